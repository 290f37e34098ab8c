"""Dynamo runs a Python loop while capturing the graph: under `torch.compile` each of the 80 steps is a
copy in the graph (measured: 403 FX nodes for 200 steps, 43 for 20). Reported, not rewritten: torch has no
public loop primitive. `torch.jit.script` compiles the loop as a loop: not reported."""
import torch

GOLDEN = {
    "findings": ["PML206:15"],
    "framework": "torch",
    "backends": ["torch"],
    "messages": {"PML206:15": "`torch.compile` records every iteration"},
}


def rollout(x, w):
    for _ in range(80):
        x = torch.tanh(x @ w)
    return x


# (backend="eager": dynamo's graph capture, without compiling C++ in the test)
compiled = torch.compile(rollout, backend="eager")


@torch.jit.script
def scripted(x, w):
    for _ in range(80):
        x = torch.tanh(x @ w)
    return x


def golden_run():
    x = torch.ones(2, 3) * 0.3
    w = torch.eye(3) * 0.9
    return [compiled(x, w), scripted(x, w)]
