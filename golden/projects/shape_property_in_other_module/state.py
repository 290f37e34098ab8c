"""A pytree whose `dim` property reads a shape: a Python int under any transform."""
from dataclasses import dataclass

import jax


@jax.tree_util.register_dataclass
@dataclass
class State:
    pos: jax.Array

    @property
    def dim(self) -> int:
        """The spatial dimension."""
        return self.pos.shape[-1]
