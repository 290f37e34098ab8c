"""A network evaluated inside a jit-compiled function: on jax the weights are frozen at the first trace."""
from phiml import math, nn

GOLDEN = {
    "findings": ["PML503:13"],
}

net = nn.mlp(1, 1, [8])


@math.jit_compile
def predict(x):
    return math.native_call(net, x)
