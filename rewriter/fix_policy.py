"""Which fixes a run applies, whatever tree a rule decides on: safe ones always, unsafe ones on request,
both subject to the units `verify` restricts them to (rewriter/units.py)."""
from __future__ import annotations

from functools import cached_property

from .findings import Safety


class FixPolicy:
    """Mixed into a file's context (codemod.FileContext, ast_rule.AstFile), which sets `unsafe_fixes`,
    `unsafe_units`, `withheld_units`, `proven_units` and says its code (`policy_code`)."""

    unsafe_fixes: bool
    unsafe_units: frozenset[str] | None
    withheld_units: frozenset[str]
    proven_units: frozenset[str]

    def policy_code(self) -> str:
        raise NotImplementedError

    def fix_enabled(self, safety: Safety, line: int, provable: bool = False) -> bool:
        """Safe fixes always, unsafe ones on request; both subject to the unit restrictions of verify
        (`provable`: unsafe only because merged values may differ in shape, dtype or structure)."""
        if safety is Safety.UNSAFE and not self.unsafe_fixes or safety is Safety.DISPLAY:
            return False
        if self.unsafe_units is None and not self.withheld_units and not self.proven_units:
            return True
        unit = self._unit_at(line)
        if unit in self.withheld_units:
            return False
        if safety is Safety.SAFE or self.unsafe_units is None or unit in self.unsafe_units:
            return True
        return provable and unit in self.proven_units

    def _unit_at(self, line: int) -> str:
        from .units import unit_at

        return unit_at(self.units, line)

    @cached_property
    def units(self) -> dict:
        from .units import units

        return units(self.policy_code())
