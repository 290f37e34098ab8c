"""Must not change (reported): the lifted operator's decorator would read a module imported only inside the function.

`m.jit_compile_linear(lambda ...)` becomes a decorator of the lifted def, which runs at import time, at
module level, where no `m` exists: lifting would raise `NameError` when the module is imported. The
finding says to import it at module level first. (The nested def of the same shape is reported too.)"""
GOLDEN = {
    "findings": ["PML101:14", "PML101:24"],
}


def implicit(u):
    from phiml import math as m

    return m.solve_linear(m.jit_compile_linear(lambda x: 2 * x - m.laplace(x)), u, m.Solve('CG', 1e-5, 1e-5, x0=u))


def implicit_def(u):
    from phiml import math

    @math.jit_compile_linear
    def operator(x):
        return 2 * x - math.laplace(x)

    return math.solve_linear(operator, u, math.Solve('CG', 1e-5, 1e-5, x0=u))
