"""No finding: functions created once (module level) or inside a traced body (traced once)."""
from phiml import math
from phiml.math import Solve

GOLDEN = {"findings": []}

operator = math.jit_compile_linear(lambda x: 2 * x)
module_level = math.solve_linear(lambda x: 2 * x, math.tensor(1.), Solve('CG'))


@math.jit_compile
def inside_jit(u, dt):
    return math.solve_linear(math.jit_compile_linear(lambda x: x - dt * x), u, Solve('CG', x0=u))


def stable(u):
    return math.solve_linear(operator, u, Solve('CG'))
