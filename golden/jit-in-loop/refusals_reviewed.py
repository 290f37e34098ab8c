"""Hoists that would change behaviour, found in review: each is reported, none is rewritten."""
import jax

GOLDEN = {"findings": ["PML302:13", "PML302:20", "PML302:26", "PML302:32", "PML302:38", "PML302:51", "PML302:59"]}
USE_JAX = True
if USE_JAX:
    import jax.numpy as jnp


def defaults_capture_the_loop_variable(x):
    out = []
    for k in range(3):
        out.append(jax.jit(lambda y, k=k: y * k)(x))
    return out


def guarded(x, model, steps):
    for _ in range(steps):
        if model is not None:
            x = jax.jit(model.forward)(x)
    return x


def factory_called_every_time(x, make_step):
    for _ in range(3):
        x = jax.jit(make_step())(x)
    return x


def conditional_import(x):
    for _ in range(3):
        x = jax.jit(jnp.sin)(x)
    return x


def mutated_container(x, fns):
    for _ in range(3):
        x = jax.jit(fns[0])(x)
        fns[0] = fns[-1]
    return x


def rebound_elsewhere(x):
    g = jnp.cos

    def swap():
        nonlocal g
        g = jnp.sin

    for _ in range(3):
        x = jax.jit(lambda y: g(y))(x)
        swap()
    return x


def only_in_elif(xs, lr, flag):
    if flag:
        return 0
    elif any(jax.jit(lambda y: y * lr)(x) > 0 for x in xs):
        return 1
    return 2
