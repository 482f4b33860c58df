"""``what_if``: an edit of a snapshot's frames on paper, its money moved, and the part of it
the service can make.

A ``Baseline`` holds a snapshot and its economics (computed once); each ``what_if`` of it
reads the edit as the plan does, values again only what the edit reaches
(``economics.resummarise``) and compares (``economics.compare_economics``). The edits, who
can make each (``edits``, from ``plan``) and the audit findings that appear or resolve
(``findings``) are worked out when first asked for: at scale they cost more than the
figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from ..actions import ChangePlan
from ..audit import compare_findings
from ..audit import run as run_audit
from ..economics import Economics, EconomicsChange, compare_economics, resummarise, summarise
from ..snapshot import ProgramSnapshot
from .edited import Edit, changed_frames, check_values, edited_snapshot
from .schemas import EDITS, MadeBy
from .show import what_if_html, what_if_text

__all__ = ["Baseline", "WhatIf", "what_if"]


class Baseline:
    """A snapshot and its economics, summarised once, to try edits against (``what_if``):
    what a sweep and the what-if widget hold between moves. ``prices``,
    ``redemption_rate`` and ``override`` are ``economics.summarise``'s, used on both sides."""

    def __init__(
        self,
        snapshot: ProgramSnapshot,
        *,
        prices: pd.DataFrame | None = None,
        redemption_rate: float | None = 1.0,
        override: Mapping[str, float] | None = None,
    ) -> None:
        if not isinstance(snapshot, ProgramSnapshot):
            raise TypeError(f"snapshot: expected a ProgramSnapshot, not {type(snapshot).__name__}")
        self.snapshot = snapshot
        self._options: dict[str, Any] = {
            "prices": prices,
            "redemption_rate": redemption_rate,
            "override": override,
        }
        self.economics: Economics = summarise(snapshot, **self._options)

    def __repr__(self) -> str:
        return f"Baseline({self.snapshot!r})"

    @cached_property
    def findings(self) -> pd.DataFrame:
        """The snapshot's audit findings (run once, when first asked for)."""
        return run_audit(self.snapshot)

    def what_if(self, edit: Edit) -> WhatIf:
        """The economics of ``edit`` (``actions.edit(snapshot)``, an edited snapshot or
        edited frames by kind) against this baseline's. ``EditError`` names the frame, row
        and column of a value the plan cannot read or the service forbids (a
        ``proportional_every`` below 1, negative points, stock or balance: ``LIMITS``)."""
        changed = changed_frames(self.snapshot, edit)
        after = edited_snapshot(self.snapshot, changed)
        check_values(self.snapshot, after, changed)
        economics = (
            self.economics
            if not changed
            else resummarise(self.economics, after, set(changed), **self._options)
        )
        return WhatIf(self, after, changed, compare_economics(self.economics, economics))


def what_if(
    snapshot: ProgramSnapshot,
    edit: Edit,
    *,
    prices: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
    override: Mapping[str, float] | None = None,
) -> WhatIf:
    """What ``edit`` of ``snapshot`` does to the money: the headline figures before, after
    and the change, per card definition the earn rate, value per point, effective return
    and liability, the reward costs whose mispricing changes, the audit findings that
    appear or resolve, and which edits the service can make (``WhatIf.plan`` plans them).

    ``edit`` is ``actions.edit(snapshot)`` changed with pandas, an edited snapshot, or a
    mapping of edited frames. ``prices``, ``redemption_rate`` and ``override`` are
    ``economics.summarise``'s. Nothing is sent: an edit on paper, however the service could
    make it. To try many edits of one snapshot, hold a ``Baseline``."""
    baseline = Baseline(snapshot, prices=prices, redemption_rate=redemption_rate, override=override)
    return baseline.what_if(edit)


@dataclass(frozen=True, eq=False)
class WhatIf:
    """An edit's economics against its baseline's. ``headline``, ``card_definitions`` and
    ``mispricing`` are ``economics.EconomicsChange``'s frames; ``edits``, ``plan`` and
    ``findings`` are worked out when first read."""

    baseline: Baseline = field(repr=False)
    edited: ProgramSnapshot = field(repr=False)
    """The base snapshot with the edit applied (on paper)."""
    changed: Mapping[str, pd.DataFrame] = field(repr=False)
    """The edited frames that differ from the base's, by kind."""
    economics: EconomicsChange = field(repr=False)

    @property
    def before(self) -> Economics:
        """The base snapshot's economics."""
        return self.economics.before

    @property
    def after(self) -> Economics:
        """The edited snapshot's economics."""
        return self.economics.after

    @property
    def headline(self) -> pd.DataFrame:
        """Each headline figure before, after and the change (``HEADLINE_CHANGE``)."""
        return self.economics.headline

    @property
    def not_pulled(self) -> dict[str, str]:
        """Headline figure -> why it is NA: the kinds it counts that the base snapshot was
        pulled without (``"rewards, reward_costs not pulled"``; ``Economics.not_pulled``)."""
        return self.economics.not_pulled

    @property
    def not_given(self) -> dict[str, str]:
        """Headline figure -> why its change is NA: why a side gives it as None
        (``EconomicsChange.not_given``: ``"rewards not pulled"``, ``"no point value
        observed"``, ``"before: no point value observed"``); what the what-if prints."""
        return self.economics.not_given

    def definition_not_given(self, card_definition_id: str) -> dict[str, str]:
        """Measure of ``card_definitions`` (``earn_points_per_unit``, ``value_median``, ...)
        -> why the card definition's is NA on a side (``EconomicsChange.definition_not_given``:
        ``"no point value observed"``, ``"before: no ACTIVE benefit earns points on
        spend"``); what the what-if panel shows as its change."""
        return self.economics.definition_not_given(card_definition_id)

    @property
    def card_definitions(self) -> pd.DataFrame:
        """Per card definition, each measure before, after and the change
        (``DEFINITION_CHANGE``)."""
        return self.economics.card_definitions

    @property
    def mispricing(self) -> pd.DataFrame:
        """The reward costs whose mispricing appears, resolves or moves
        (``MISPRICING_CHANGE``)."""
        return self.economics.mispricing

    @cached_property
    def plan(self) -> ChangePlan:
        """The plan making the edits the service has a call for; the others are its
        ``unsupported`` rows (change them in the service's dashboard)."""
        return ChangePlan.from_frames(self.baseline.snapshot, self.changed)

    @cached_property
    def edits(self) -> pd.DataFrame:
        """Every change of the edit, and who can make it (``EDITS``): the service (the
        plan's call) or only its dashboard (the reason)."""
        made = self.plan.changes.assign(made_by=MadeBy.SERVICE.value, reason=None)
        cannot = self.plan.unsupported.assign(made_by=MadeBy.DASHBOARD.value, call=None)
        rows = pd.concat([made[list(EDITS.names)], cannot[list(EDITS.names)]], ignore_index=True)
        for column in ("before", "after"):
            rows[column] = rows[column].map(_text, na_action="ignore")
        return EDITS.conform(rows.astype(object).where(rows.notna(), None))

    @cached_property
    def findings(self) -> pd.DataFrame:
        """The audit findings that appear, change or resolve with the edit
        (``audit.compare_findings``): every rule on both sides, the base's run once per
        baseline."""
        return compare_findings(self.baseline.findings, run_audit(self.edited))

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> frame: ``headline``, ``card_definitions``, ``mispricing``,
        ``edits``, ``findings``."""
        return {**self.economics.frames(), "edits": self.edits, "findings": self.findings}

    def __str__(self) -> str:
        return what_if_text(self)

    def __repr__(self) -> str:
        return what_if_text(self)

    def _repr_html_(self) -> str:
        return what_if_html(self)


def _text(value: Any) -> str:
    return str(value)
