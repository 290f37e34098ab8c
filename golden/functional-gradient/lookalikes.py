"""Names that only look like the legacy API: nothing to migrate."""
from phiml import math


class Optimizer:
    def functional_gradient(self, f):
        return f


def functional_gradient(f, wrt=(0,)):
    return f, wrt


def gradient(f, wrt):
    return f, wrt


def loss(x, y):
    return math.l2_loss(x - y)


GOLDEN = {"findings": []}

mine = functional_gradient(loss, (0,))
also_mine = gradient(loss, 0)
method = Optimizer().functional_gradient(loss)
current = math.gradient(loss, "x,y", get_output=False)
named = math.jacobian(loss, wrt=("x",))


def shadowed(math):
    return math.functional_gradient(loss)
