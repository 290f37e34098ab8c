"""A later `import *` of a module whose exports are not known may rebind `math` or `gradient`:
nothing is resolved through the earlier star import, nothing is renamed."""
from phi.flow import *
from numpy import *

GOLDEN = {"findings": []}


def loss(x):
    return x ** 2


a = functional_gradient(loss, "x")
b = math.functional_gradient(loss, "x")
