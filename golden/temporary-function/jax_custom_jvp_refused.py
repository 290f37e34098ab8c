"""Raw jax: custom_jvp rules given with the decorator form, reading a local: reported only."""
import jax

GOLDEN = {"findings": ["PML101:9"]}


def scaled(x, k):
    @jax.custom_jvp
    def f(x):
        return x * k

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), tangents[0] * k

    return f(x)
