"""The documented exception, a jit-compiled loss passed to update_weights, drifts from eager on jax."""
from phiml import math, nn

GOLDEN = {
    "findings": ["PML503:14", "PML503:19"],
}

net = nn.mlp(1, 1, [8])
optimizer = nn.sgd(net, 0.01)


@math.jit_compile
def loss_function(x, y):
    return math.l2_loss(math.native_call(net, x) - y)


def train(x, y, steps):
    for _ in range(steps):
        nn.update_weights(net, optimizer, loss_function, x, y)
