"""math.gradient of a lambda built on every call; one that captures a local is only reported.
Not executed: the eager reference (PhiML on numpy) has no gradients."""
from phiml import math

GOLDEN = {"findings": ["PML101:9", "PML101:20"]}


def _loss_gradient_function(x):
    return math.l2_loss(x - 1)


_loss_gradient_gradient = math.gradient(_loss_gradient_function, wrt='x', get_output=False)


def loss_gradient(x):
    return _loss_gradient_gradient(x)


def weighted_gradient(x, weight):
    return math.gradient(lambda x: weight * math.l2_loss(x), wrt='x', get_output=False)(x)
