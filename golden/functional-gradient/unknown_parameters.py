"""`wrt` by position where the parameters are not known here (a decorated function, a function from
elsewhere, a position past the parameters): reported, not rewritten."""
from phiml import math
from phiml.math import l2_loss

GOLDEN = {"findings": ["PML601:19", "PML601:20", "PML601:21"]}


@math.jit_compile
def jitted_loss(x, y):
    return math.l2_loss(x - y)


def loss(x, y):
    return math.l2_loss(x - y)


computed = math.gradient(jitted_loss, "x")
a = math.gradient(jitted_loss, 0)
b = math.jacobian(l2_loss, (0,))
c = math.gradient(loss, (0, 2))
