"""Raw jax, reported only: custom_jvp rules given with the decorator form and reading a local;
the call form `jax.custom_vjp(f)` built per call."""
import jax

GOLDEN = {"findings": ["PML101:10", "PML101:21"]}


def scaled(x, k):
    @jax.custom_jvp
    def f(x):
        return x * k

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), tangents[0] * k

    return f(x)


def call_form(x):
    g = jax.custom_vjp(lambda x: x * 2)
    g.defvjp(lambda x: (x * 2, None), lambda res, ct: (ct * 2,))
    return g(x)
