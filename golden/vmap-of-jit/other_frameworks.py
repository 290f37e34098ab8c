"""torch: reported, never rewritten (torch.compile and torch.vmap compose differently)."""
import torch

GOLDEN = {"findings": ["PML301:11"]}


def f(x):
    return torch.sin(x)


batched = torch.vmap(torch.compile(f))
