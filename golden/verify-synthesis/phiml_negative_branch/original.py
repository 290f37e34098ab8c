"""PhiML: the original halves the whole tensor once any entry is negative; the rewrite halves only
the negative entries. The program passes positive values; synthesis draws negatives, on every
installed PhiML backend."""
from phiml import math
from phiml.math import spatial

SYNTHESIS = {"verdicts": {"damp": "falsified"}, "reasons": {"damp": "values differ"}, "inputs": {"damp": "x=float32[x="}}


@math.jit_compile
def damp(x):
    return x * 0.5 if (x < 0).any else x


def main():
    return damp(math.tensor([1.0, 2.0], spatial('x')))
