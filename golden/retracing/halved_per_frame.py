"""An auxiliary time step halved once per frame and used by every substep of the frame: stable
within the inner loop, a new value on each pass of the outer one. PhiML traces once per frame, never
reuses a trace, and keeps them all: `forget_traces=True` bounds the cache. The other call gets a
key from a few constants in its own inner loop: those repeat every frame, left alone."""
from phiml import math
from phiml.math import spatial

GOLDEN = {
    "findings": ["PML401:30"],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
    "traces": [5, 5],  # substep: one per frame (3); blend: one per mode (2)
    "cache": [3, 2],
    "messages": {"PML401:30": "each time `dt` changes"},
}


@math.jit_compile(auxiliary_args='dt')
def substep(x, dt):
    return x + dt * math.cos(x)


@math.jit_compile(auxiliary_args='mode')
def blend(x, mode: str):
    return 0.5 * (x + math.sin(x)) if mode == 'sin' else 0.5 * (x + math.cos(x))


def run(x, frames, dt=0.5):
    for frame in range(frames):
        for _ in range(2):
            x = substep(x, dt)
        for mode in ('sin', 'cos'):
            x = blend(x, mode)
        dt *= 0.5
    return x


def golden_run():
    return run(math.tensor([0.0, 1.0, 2.0], spatial('x')), 3)
