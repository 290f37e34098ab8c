"""Must not change: tests of exactly the composition `vmap(jit(f))`. One reads the jaxpr (the batched
`jit` equation the swap would move outside), one the lowered text, and one is a regression test named
for the composition. Swapping to `jit(vmap(f))` keeps the values, not what these
tests are about: reported with what they read (test_reads_nothing.py: a test of values is fixed)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML301:25", "PML301:34", "PML301:40", "PML302:40"],
    "framework": "jax",
    "backends": ["jax"],
    "messages": {
        "PML301:25": "not fixed: the tests of this module inspect the structure the fix changes: the staged program (`jaxpr`)",
        "PML301:34": "not fixed: this test inspects the structure the fix changes: the lowered program's text (`.as_text()`)",
        "PML301:40": "not fixed: this test inspects the structure the fix changes: its name says it tests `vmap` (`test_vmap_of_jit_regression`)",
        "PML302:40": "not fixed: this test inspects the structure the fix changes: its name says it tests `jit` (`test_vmap_of_jit_regression`)",
    },
}


def energy(x):
    return jnp.sum(x ** 2)


batched = jax.vmap(jax.jit(energy))


def test_jaxpr_has_batched_jit():
    jaxpr = jax.make_jaxpr(batched)(jnp.ones((2, 3)))
    assert jaxpr.jaxpr.eqns[0].primitive.name == "jit"


def test_lowered_text():
    per_row = jax.vmap(jax.jit(lambda x: jnp.sum(x ** 2)))
    text = jax.jit(per_row).lower(jnp.ones((2, 3))).as_text()
    assert "reduce" in text


def test_vmap_of_jit_regression():
    out = jax.vmap(jax.jit(lambda x: jnp.sum(x ** 2)))(jnp.ones((2, 3)))
    assert out.shape == (2,)


def golden_run():
    return [batched(jnp.arange(6.).reshape(2, 3))]
