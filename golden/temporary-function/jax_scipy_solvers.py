"""jax's iterative solvers with matvec closures: in eager code each call traces the matvec and
compiles the solver's loop again, however the matvec is defined (measured: a module-level one is
traced as often), so nothing is lifted; each is reported with the fix that helps, a jitted caller;
inside a jitted function nothing is reported. Must not change."""
import jax
import jax.numpy as jnp
from jax.scipy.sparse.linalg import bicgstab, cg

GOLDEN = {
    "findings": ["PML101:18", "PML101:24"],
    "messages": {"PML101:24": "jit the function that calls `bicgstab`"},
    "framework": "jax",
    "backends": ["jax"],
}


def smooth(b):
    return cg(lambda x: 2.0 * x + 0.5 * jnp.roll(x, 1), b, M=lambda r: r / 2.0, tol=1e-6)[0]


def with_boundary(b, bc):
    def laplacian(x):
        return 3.0 * x - bc * (jnp.roll(x, 1) + jnp.roll(x, -1))
    return bicgstab(laplacian, b, tol=1e-6)[0]


@jax.jit
def step(b, bc):
    def laplacian(x):
        return 3.0 * x - bc * (jnp.roll(x, 1) + jnp.roll(x, -1))
    return jax.scipy.sparse.linalg.gmres(laplacian, b, tol=1e-6)[0]


def golden_run():
    b = jnp.arange(8.0)
    return [smooth(b), smooth(b * 2), with_boundary(b, 0.5), step(b, 0.5)]
