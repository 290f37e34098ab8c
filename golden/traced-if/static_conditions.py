"""Must not change: conditions on static values inside jit functions are Python decisions at trace time."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}

SCALE = 2.0


@math.jit_compile(auxiliary_args='mode')
def f(x, mode, bias=None):
    if x.shape.get_size('x') > 2:  # a shape
        x = x[{'x': slice(0, 2)}]
    if mode == 'double':  # an auxiliary argument
        x = x * 2
    if bias is not None:  # a None check
        x = x + bias
    if isinstance(mode, str) and len(mode) > 3:
        x = x + 1
    if x.available:  # known values (never under jit)
        x = x * 1
    if math.always_close(x, 0):  # a Python bool at trace time
        x = x + 1
    y = x * SCALE if SCALE > 1 else x  # a module constant
    return y


def golden_run():
    x = math.tensor([1., 2., 3.], spatial('x'))
    return [f(x, 'double'), f(x, 'plain', 1.)]
