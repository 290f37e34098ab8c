"""`nn.update_weights` inside a jit-compiled training step: fails on jax and torch."""
from phiml import math, nn

GOLDEN = {
    "findings": ["PML503:18"],
}

net = nn.mlp(1, 1, [8])
optimizer = nn.sgd(net, 0.01)


def loss_function(x, y):
    return math.l2_loss(math.native_call(net, x) - y)


@math.jit_compile
def train_step(x, y):
    return nn.update_weights(net, optimizer, loss_function, x, y)
