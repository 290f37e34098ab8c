"""A neighbour-list step in the style of jax-md: the jitted step is called with a buffer that is
reallocated larger when it overflows, so each reallocation compiles the step again. Bounded by the
number of overflows (expected when rare): reported at info level with the stable key (allocate with
headroom), never changed. The batch loop below re-slices with a fixed width: only the last, partial
batch has another shape (one extra trace), which is not reported."""
from typing import NamedTuple

import jax
import jax.numpy as jnp

GOLDEN = {
    "findings": ["PML401:46"],
    "framework": "jax",
    "backends": ["jax"],
    "messages": {"PML401:46": "allocate with headroom"},
}


class Neighbours(NamedTuple):
    idx: jax.Array
    did_buffer_overflow: bool


class NeighbourFn:
    def allocate(self, positions, capacity=2):
        n = positions.shape[0]
        idx = jnp.zeros((n, capacity), dtype=jnp.int32)
        return Neighbours(idx, False)


@jax.jit
def md_step(positions, nbrs):
    return positions * 0.99 + 0.01 * nbrs.idx.sum(axis=1)


@jax.jit
def batch_energy(positions):
    return (positions ** 2).sum()


def simulate(positions, steps):
    neighbour_fn = NeighbourFn()
    nbrs = neighbour_fn.allocate(positions)
    capacity = 2
    for t in range(steps):
        positions = md_step(positions, nbrs)
        if t % 2 == 1:
            nbrs = nbrs._replace(did_buffer_overflow=True)
        if nbrs.did_buffer_overflow:
            capacity += 1
            nbrs = neighbour_fn.allocate(positions, capacity)
    energies = []
    for i in range(0, positions.shape[0], 3):
        energies.append(batch_energy(positions[i:i + 3]))
    return positions, energies


def golden_run():
    return simulate(jnp.arange(8.0), 4)
