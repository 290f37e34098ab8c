"""A plain function named like a network, called in jit: not a network."""
from phiml import math

GOLDEN = {
    "findings": [],
}


def net(x):
    return math.tanh(x)


@math.jit_compile
def predict(x):
    return net(x) * 2
