"""math.gradient of a lambda built on every call; one that captures a local is only reported.
Not executed: the eager reference (PhiML on numpy) has no gradients."""
from phiml import math

GOLDEN = {"findings": ["PML101:9", "PML101:20"]}


def loss_gradient(x):
    return math.gradient(lambda x: math.l2_loss(x - 1), wrt='x', get_output=False)(x)


def weighted_gradient(x, weight):
    return math.gradient(lambda x: weight * math.l2_loss(x), wrt='x', get_output=False)(x)
