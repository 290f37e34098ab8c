"""PhiML: `flux - (math.sum(flux) - cap) * 0.25` against `flux`. `math.sum` reduces the non-batch
dimensions, so the excess broadcasts back into `flux`'s shape; `cap` is a Python number (every call
passes one), weak in every backend, and every call passes float data: both branches are float tensors
shaped like `flux`, a safe `math.where`. `golden_run` returns the dtypes and shapes too, so execution
checks them."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML201:19"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "original_broken": {"jax": "TracerBoolConversionError", "torch": "differs", "tensorflow": "AttributeError"},
}


@math.jit_compile
def limit(flux, cap):
    total = math.sum(flux)
    out = math.where(math.any(total > cap, dim=math.shape), flux - (total - cap) * 0.25, flux)
    return out


def golden_run():
    f = math.tensor([1., 2., 3.], spatial('x'))
    results = [limit(f, 3.), limit(f * 0.1, 3.)]
    return results + [str(r.dtype) for r in results] + [str(r.shape) for r in results]
