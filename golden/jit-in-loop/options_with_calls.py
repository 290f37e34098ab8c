"""The wrapper's options call something: hoisting would evaluate it once, at import, not per call."""
import jax
from jax.sharding import PartitionSpec as P

GOLDEN = {"findings": ["PML302:14", "PML302:18"]}


def _identity(x):
    return x


def gather(x, mesh):
    with jax.set_mesh(mesh):
        return jax.jit(_identity, out_shardings=P())(x)


def scaled(x):
    return jax.jit(_identity, static_argnums=tuple(range(0)))(x)
