"""Must not change: raw jax custom derivatives built and used inside one function (the decorator form
reading a local, with `@f.defjvp`; the call form `jax.custom_vjp(f)`): nothing keyed on them is traced
again (see jax_custom_vjp.py)."""
import jax

GOLDEN = {"findings": []}


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
