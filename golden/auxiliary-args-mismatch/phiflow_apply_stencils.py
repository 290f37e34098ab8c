"""The shape of a real bug in PhiFlow 3.4 (`phi/field/_field_math.py`, `apply_stencils`): the
auxiliary names, spread over several string pieces, list `type` where the parameter is `at`.
Reported (no single close spelling, and the pieces are the author's layout); `at == 'center'`
compares with a string, so it is static either way and PML201 stays silent."""
from phiml.math import jit_compile_linear

GOLDEN = {
    "findings": ["PML205:12"],
}


@jit_compile_linear(auxiliary_args="field_extrapolation, field_dx, "
                                   "type, dim")
def apply_stencils(field, field_extrapolation, field_dx, at, dim):
    if at == 'center':
        return field * field_dx
    return field
