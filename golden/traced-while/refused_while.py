"""Reported without a fix: `return` in the body, a name first assigned in the loop and read after it,
and a loop under `torch.jit.trace` (no loop primitive there)."""
import jax
import jax.numpy as jnp
import torch

GOLDEN = {
    "findings": ["PML203:14", "PML203:23", "PML203:30"],
}


@jax.jit
def first_large(x):
    while jnp.any(x < 10):
        x = x * 2
        if x.shape[0] > 4:
            return x
    return x


@jax.jit
def last_ratio(x):
    while jnp.any(x > 1):
        ratio = x / 2
        x = ratio
    return x, ratio


def halve(x):
    while bool((x > 1).any()):
        x = x / 2
    return x


traced = torch.jit.trace(halve, (torch.tensor([4., 8.]),), check_trace=False)
