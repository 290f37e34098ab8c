"""jax solvers whose functions are traced on every eager call however they are defined (measured on
jax 0.10.2: `gmres` and `cg` trace their matvec 5 times a call, `custom_linear_solve` once, and a
module-level function or a `functools.partial` just as often): nothing is lifted, even what captures
nothing; one info finding per call says to jit the caller. A `functools.partial` of a module-level
function and a module-level matvec are not reported. Must not change."""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy.sparse.linalg import cg, gmres

GOLDEN = {
    "findings": ["PML101:26", "PML101:43", "PML101:51", "PML101:63"],
    "messages": {"PML101:26": "`gmres` traces its `A` (a lambda) again on every eager call of `relax`",
                 "PML101:43": "`custom_linear_solve` traces its `matvec` (`matvec`) and `solve` (`solve`)",
                 "PML101:51": "lifting would not help",
                 "PML101:63": "`cg` traces its `A` (`op`) again"},
    "framework": "jax",
    "backends": ["jax"],
}


def relax(b):
    # captures nothing, yet a module-level copy would be traced just as often
    return gmres(lambda x: 4.0 * x - jnp.roll(x, -1), b, tol=1e-6, restart=4)[0]


def _shifted(x, bc):
    return 2.0 * x + bc * jnp.roll(x, 1)


def with_partial(b, bc):
    return cg(functools.partial(_shifted, bc=bc), b, tol=1e-6)[0]


def diagonal(b, d):
    def matvec(x):
        return d * x

    def solve(mv, y):
        return y / d
    return lax.custom_linear_solve(matvec, b, solve, symmetric=True)


def _equation(x):
    return x ** 2 - 2.0


def root(y):
    return lax.custom_root(_equation, y, lambda f, x0: _newton(f, x0), lambda g, r: r / g(1.0))


def _newton(f, x0):
    x = x0
    for _ in range(8):
        x = x - f(x) / (2 * x)
    return x


def bound(b):
    op = lambda x: 3.0 * x  # a lambda bound to a name: named in the finding
    return cg(op, b, tol=1e-6)[0]


def golden_run():
    b = jnp.arange(1.0, 9.0)
    return [relax(b), relax(b * 2), with_partial(b, 0.5), diagonal(b, 2.0), diagonal(b, 4.0),
            root(jnp.float32(1.5)), root(jnp.float32(3.0)), bound(b)]
