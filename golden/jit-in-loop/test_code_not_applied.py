"""Test code, default settings: the hoist is unsafe in a test module, so it is reported and not applied."""
import jax

GOLDEN = {
    "findings": ["PML302:10"],
}


def test_cube():
    f = jax.jit(lambda x: x ** 3)
    assert f(2.0) == 8.0
