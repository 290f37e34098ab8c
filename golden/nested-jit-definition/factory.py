"""No finding: a jit factory returns the function it builds (building it is the point)."""
import jax

GOLDEN = {"findings": []}


def make_scaler(scale):
    @jax.jit
    def scaler(x):
        return x * scale

    return scaler


def make_registry(registry):
    @jax.jit
    def double(x):
        return 2 * x

    registry["double"] = double
