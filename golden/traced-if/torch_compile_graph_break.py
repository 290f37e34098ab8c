"""Must not change: under `torch.compile` a Python `if` on a tensor breaks the graph there (slower, the
same values), and a Python int argument is specialized, not traced."""
import torch

GOLDEN = {
    "findings": [],
    "framework": "torch",
    "backends": ["torch"],
}


def double_or_flip(x, times: int):
    for _ in range(times):
        x = x + 1
    if (x > 2).all():
        return x * 2
    return -x


# (backend="eager": dynamo's graph capture and breaks, without compiling C++ in the test)
compiled = torch.compile(double_or_flip, backend="eager")


def golden_run():
    x = torch.tensor([1.0, 2.0])
    return [compiled(x, 1), compiled(x, 3), compiled(-x, 0)]
