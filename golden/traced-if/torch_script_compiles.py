"""Must not change: `torch.jit.script` compiles Python control flow: an `if` on an `int` parameter, a
`for` over its range, and an `if` on a tensor are all compiled, not traced. Nothing fails or is baked in."""
import torch

GOLDEN = {
    "findings": [],
    "framework": "torch",
    "backends": ["torch"],
}


@torch.jit.script
def kernel(q: torch.Tensor, dim: int, steps: int) -> torch.Tensor:
    if dim == 1:
        out = q * 0.5
    elif dim == 2:
        out = q * 0.25
    else:
        out = q * 0.125
    for _ in range(steps):
        out = out + 1.0
    if bool((out > 2.0).all()):
        out = -out
    return out


def golden_run():
    q = torch.tensor([1.0, 2.0])
    return [kernel(q, 1, 1), kernel(q, 2, 3), kernel(q, 3, 0)]
