"""Python's, numpy's and your own functions with the same names; PhiML's current names: untouched."""
import math
import math as pymath

import numpy as np
import torch
from phiml import math as pm

GOLDEN = {"findings": []}


def divide_no_nan(a, b):
    return a / b if b else 0.0


finite = math.isfinite(1.0)
angle = pymath.degrees(3.14)
ok = np.isfinite(np.ones(3))
swapped = torch.transpose(torch.ones(2, 3), 0, 1)
mine = divide_no_nan(1.0, 2.0)
current = pm.safe_div(pm.tensor(1.0), pm.tensor(2.0))
length = pm.vec_length
