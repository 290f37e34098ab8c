"""A lambda passed to a custom-gradient function: functions are cache keys compared by identity."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML101:24"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [3, 1],
}


def cg_fwd(x, fn):
    return fn(x)


def cg_bwd(params, y, dy):
    return {'x': dy * 3}


scale_cg = math.custom_gradient(cg_fwd, cg_bwd)


def _triple_fn(v):
    return 3. * v


def triple(x):
    return scale_cg(x, fn=_triple_fn)


def golden_run():
    x = math.tensor([1., -2., 0.5], spatial('x'))
    return [triple(x * i) for i in range(1, 4)]
