"""A torch network built with PhiML's nn and called like a function inside jit."""
from phiml import math
from phiml.nn import mlp

GOLDEN = {
    "findings": ["PML503:14"],
}

model = mlp(2, 1, [16, 16])


@math.jit_compile
def forward(x):
    return model(x)
