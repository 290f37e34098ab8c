"""Calls in loops whose trace keys do not change, or change among a few values: left alone."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [8, 8],  # step 3 (tensor k, then float k for two modes), already_bounded 3, outer 1, inner 1 inside it
}


@math.jit_compile(auxiliary_args='mode')
def step(x, k, mode: str):
    return x * k if mode == 'scale' else x + k


@math.jit_compile
def inner(x, k):
    return x * k


@math.jit_compile(auxiliary_args='k', forget_traces=True)
def already_bounded(x, k):
    return x - k


@math.jit_compile
def outer(x):
    for i in range(3):
        x = inner(x, 0.5 + i)  # inside a traced body: inlined into `outer`'s trace
    return x


def run(x, steps):
    for i in range(steps):
        x = step(x, math.tensor(0.5 + i), 'scale')  # a tensor: traced, not keyed on
        for mode in ('scale', 'shift'):  # a few values, each traced once
            x = step(x, 0.1, mode)
    for i in range(3):
        x = already_bounded(x, 0.1 * i)  # the author bounded the cache already
    return outer(x)


def golden_run():
    return run(math.tensor([0.5, -1.0, 2.0], spatial('x')), 4)
