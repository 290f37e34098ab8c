"""Must not change, outside tests: a handler that reads the error it catches records it (`log` keeps the
message for the caller to show), so the code around it is there to fail and be recorded. A handler
that does not read the error is no such evidence outside test code (a fallback: the fix is applied)."""
import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML201:18"],
    "messages": {
        "PML201:18": "not fixed: this code is expected to fail: an `except` that reads the error (`error`)",
    },
}
log = []


@jax.jit
def recorded(x):
    if x > 0:
        return x
    return -x


def run(x):
    try:
        return recorded(x)
    except jax.errors.ConcretizationTypeError as error:
        log.append(f"fell back: {error}")
        return jnp.abs(x)
