"""``sweep``: a what-if parameter (an earn rate, a reward price) stepped over values, one row
of figures per value, to pick a value before editing and planning it.

Every value is a ``Baseline.what_if`` of one baseline: the base economics are computed
once, each value values again only what its edit reaches, and nothing of the comparison,
the plan, the edits or the audit findings is worked out (a sweep reads only the figures
after).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..economics import Economics
from ..economics.change import definition_measures
from ..snapshot import ProgramSnapshot
from .compare import Baseline
from .parameters import Parameter
from .schemas import SWEEP
from .sweep_show import plot_sweep, sweep_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["HEADLINE", "Sweep", "sweep"]

HEADLINE = (
    "liability_low",
    "liability_median",
    "liability_high",
    "highest_effective_return",
    "mispriced_rewards",
    "outstanding_points",
    "unvalued_points",
)
"""The headline figures (``Economics.headline``) each row of a sweep gives."""

_MEASURES = (
    "earn_points_per_unit",
    "value_median",
    "return_median",
    "liability_median",
    "reason",
)
"""The card definition's measures (``economics.change.definition_measures``) a row gives,
prefixed ``definition_``."""


@dataclass(frozen=True, eq=False)
class Sweep:
    """A parameter swept over values: ``frame`` (``SWEEP``) has one row per value, in the
    order given; ``current`` is the parameter's value in the snapshot as it is."""

    baseline: Baseline = field(repr=False)
    parameter: Parameter
    current: float
    frame: pd.DataFrame = field(repr=False)

    def chart(self, ax: Axes | None = None) -> Axes:
        """The effective return (left axis) and the liability (right axis, low to high
        shaded) against the parameter, the current value marked; on a new figure unless
        ``ax`` is given."""
        return plot_sweep(self.frame, self.parameter, self.current, ax)

    def __str__(self) -> str:
        return sweep_text(self.frame, self.parameter, self.baseline.economics.not_given)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        return str(self.frame.to_html(index=False, na_rep="n/a"))


def sweep(
    snapshot: ProgramSnapshot | Baseline, parameter: Parameter, values: Iterable[float]
) -> Sweep:
    """``parameter`` (``earn_rate(...)``, ``reward_price(...)``) set to each of ``values``
    in turn on ``snapshot`` (or a ``Baseline`` of it, to reuse its economics and options):
    per value the headline figures after the edit and, for a parameter of one card
    definition, that card definition's earn rate, value per point, effective return and
    liability. ``ValueError`` naming ``values`` when one is not a finite number the
    parameter takes, or none is given."""
    if not isinstance(parameter, Parameter):
        raise TypeError(
            f"parameter: expected earn_rate(...) or reward_price(...), not {parameter!r}"
        )
    steps = _checked(values, parameter)
    baseline = snapshot if isinstance(snapshot, Baseline) else Baseline(snapshot)
    current = parameter.current(baseline.snapshot)
    definition: str | None = getattr(parameter, "card_definition_id", None)
    rows = [
        _row(baseline.what_if(parameter.frames(baseline.snapshot, value)).after, definition)
        for value in steps
    ]
    frame = pd.DataFrame(rows, columns=[c for c in SWEEP.names if c not in ("value", "current")])
    frame.insert(0, "value", steps)
    frame.insert(1, "current", np.isclose(steps, current, rtol=1e-9, atol=1e-12))
    frame["card_definition_id"] = definition
    return Sweep(baseline, parameter, current, SWEEP.conform(frame))


def _checked(values: Iterable[float], parameter: Parameter) -> list[float]:
    """``values`` as floats: at least one, each a finite number ``parameter`` takes."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise ValueError(f"values: expected an iterable of numbers, got {values!r}")
    given = list(values)
    if not given:
        raise ValueError("values: empty; give at least one value to sweep")
    for at, value in enumerate(given):
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"values: item {at} is {value!r}; expected a finite number")
        try:
            parameter.check(float(value))
        except ValueError as exc:
            raise ValueError(f"values: item {at}: {exc}") from None
    return [float(v) for v in given]


def _row(after: Economics, definition: str | None) -> dict[str, Any]:
    """The headline figures of ``after`` and ``definition``'s measures."""
    figures = after.headline
    row: dict[str, Any] = {name: figures[name] for name in HEADLINE}
    measures = definition_measures(after)
    known = definition is not None and definition in measures.index
    for measure in _MEASURES:
        row[f"definition_{measure}"] = measures.at[definition, measure] if known else None
    return row
