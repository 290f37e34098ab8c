"""Must not change: the truth of a PhiML `Shape` is a Python value while tracing (has it any dimension?).

`batch()`, `channel()`, `x.shape` and what their methods and operators give (`a & b`, `.without()`,
`.only()`, `.after_gather()`) are Shapes whatever tensors they read, traced ones included: a gather's
Shape follows from its indices' Shape (`after_gather` of traced indices), and a helper's parameter
declared `Shape` holds one. So every `if` below is decided while tracing, on every backend.
`.after_gather()` of traced indices, and the helper's parameter, used to be read as tracers.
"""
from phiml import math
from phiml.math import Shape, batch, channel, instance, spatial

GOLDEN = {
    "findings": [],
    "backends": ["numpy", "jax", "torch", "tensorflow"],
}


def reduce_over(x, dims: Shape):
    if dims:  # a Shape: empty or not, known while tracing
        return math.sum(x, dims)
    return x


@math.jit_compile
def pooled(x, y, indices):
    extra = (batch(x) & batch(y)).without('b')
    if extra:
        x = math.mean(x, extra)
    if x.shape.only(spatial).without('x'):
        x = math.sum(x, spatial(x).without('x'))
    gathered = x.shape.after_gather({'x': indices})
    if gathered.without('points'):
        x = x * 2
    if channel(y):
        y = math.vec_length(y)
    return reduce_over(x, batch(x)) + reduce_over(y, instance(y))


def golden_run():
    x = math.tensor([[1., 2., 3.], [4., 5., 6.]], batch('c'), spatial('x'))
    y = math.tensor([[3., 4.], [6., 8.], [0., 1.]], spatial('x'), channel(vector='a,b'))
    indices = math.tensor([[0], [2]], instance('points'), channel(index='x'))
    return [pooled(x, y, indices), pooled(x * 2, y, indices), pooled(x, y * 0.5, indices)]
