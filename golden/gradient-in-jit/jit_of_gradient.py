"""`jit_compile(math.gradient(f))`, PhiML's suggested alternative, fails on tensorflow in the same way."""
from phiml import math

GOLDEN = {
    "findings": ["PML504:13"],
}


def loss(x):
    return math.l2_loss(x)


fast_grad = math.jit_compile(math.gradient(loss, 'x'))
