"""Jitted lambdas built inside lambdas kept in a list and a dict: the finding names the lambda by
where it is kept (`ops[1]`), and so does the hoisted wrapper (`ops_1_lambda_jit`)."""
import jax
import jax.numpy as jnp
import numpy as np

GOLDEN = {
    "findings": ["PML302:18", "PML302:19", "PML302:21"],
    "framework": "jax",
    "backends": ["jax"],
    "compiles": [6, 3],
    "messages": {"PML302:18": "built on every call of the lambda `ops[0]`",
                 "PML302:19": "built on every call of the lambda `ops[1]`",
                 "PML302:21": "built on every call of the lambda `named[\"scale\"]`"},
}

ops = [
    lambda x: jax.jit(lambda y: y + 1.0)(x),
    lambda x: jax.jit(lambda y: 2.0 * y)(x),
]
named = {"scale": lambda x: jax.jit(lambda y: y * 0.5)(x)}


def golden_run():
    x = jnp.asarray(np.arange(4, dtype=np.float32))
    out = []
    for _ in range(2):
        for op in ops:
            x = op(x)
        out.append(named["scale"](x))
    return out
