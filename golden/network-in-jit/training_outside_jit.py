"""The portable form: networks called and trained outside jit, with a plain loss. Not reported."""
from phiml import math, nn

GOLDEN = {
    "findings": [],
}

net = nn.mlp(1, 1, [8])
optimizer = nn.sgd(net, 0.01)


def loss_function(x, y):
    return math.l2_loss(math.native_call(net, x) - y)


@math.jit_compile
def physics(u):
    return u + 0.1 * math.laplace(u)


def train(x, y, steps):
    for _ in range(steps):
        nn.update_weights(net, optimizer, loss_function, physics(x), y)
    return math.native_call(net, x)
