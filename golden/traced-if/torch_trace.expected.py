"""`torch.jit.trace` bakes in the branch of the example input; `torch.where` keeps it in the graph."""
import torch

GOLDEN = {
    "findings": ["PML201:13"],
    "framework": "torch",
    "backends": ["torch"],
    "original_broken": {"torch": "differs"},
}


def double_or_flip(x):
    return torch.where((x > 0).all(), x * 2, -x)


traced = torch.jit.trace(double_or_flip, (torch.tensor([1., 2.]),), check_trace=False)


def golden_run():
    return [traced(torch.tensor([1., 2.])), traced(torch.tensor([-1., -2.]))]
