"""The wrapped function reads a mutated global, or is defined after its user: reported, not hoisted."""
from phiml import math

HISTORY = []
GOLDEN = {"findings": ["PML302:14", "PML302:18", "PML501:9"]}


def record(x):
    HISTORY.append(1)
    return x * len(HISTORY)


def run(x):
    return math.jit_compile(record)(x)


def run_early(x):
    return math.jit_compile(late)(x)


def late(x):
    return x + 1
