"""``WhatIfPanel``: sliders for a card definition's earn rate and its rewards' price, the
headline figures before and after, and each card definition's liability as a chart.

Every move is worked out in a worker thread (``lyt_toolkit.whatif``'s ``Baseline``, whose
economics are summarised once, in that thread), so the kernel stays free; moves arriving
meanwhile replace one another and only the last is computed. Nothing is sent to the
service: both knobs are changes only its dashboard makes (Plan these values lists them as
unsupported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import ipywidgets as w
import pandas as pd

from .. import actions
from ..snapshot import ProgramSnapshot
from ..whatif import Baseline, WhatIf, earn_rate, reward_price
from ._latest import LatestOnly
from ._messages import describe_error, error_html, status_html
from ._what_if_view import (
    definition_figures,
    definition_reasons,
    headline_html,
    liability_bars,
    liability_html,
)

__all__ = ["Setting", "WhatIfPanel"]

PRICE_CHANGES = (-0.5, 0.5, 0.05)
"""The reward-price slider's range and step: a share of the points each reward costs."""


@dataclass(frozen=True)
class Setting:
    """Where the panel's controls stand: the card definition, its earn rate (points per
    minor unit of spend; ``earn_moved``: away from the program's own) and the change of
    its rewards' prices (0.1: 10 % dearer). ``plan``: the plan of the edit is wanted too."""

    card_definition_id: str
    earn_points_per_unit: float
    earn_moved: bool
    price_change: float
    plan: bool = False

    def frames(self, snapshot: ProgramSnapshot) -> dict[str, pd.DataFrame]:
        """The edited frames by kind: each knob moved, and only those."""
        frames: dict[str, pd.DataFrame] = {}
        if self.earn_moved:
            frames |= earn_rate(self.card_definition_id).frames(snapshot, self.earn_points_per_unit)
        if self.price_change != 0:
            price = reward_price(card_definition_id=self.card_definition_id)
            frames |= price.frames(snapshot, self.price_change)
        return frames


@dataclass(frozen=True)
class _Choice:
    """A card definition the panel offers: its earn rate (None: none can be set) and
    whether rewards spend its points, each with the reason when not."""

    label: str
    earn_points_per_unit: float | None
    priced: bool
    reasons: tuple[str, ...]


class WhatIfPanel(w.VBox):
    """A what-if of ``snapshot`` moved with sliders: choose a card definition, move its earn
    rate or the price of the rewards spending its points, and the headline figures (before,
    after, change) and the liability per card definition follow.

    ``headline_table`` shows the program's headline, ``definition_table`` the chosen card
    definition's earn rate, value per point, effective return and liability (a figure n/a
    says why as its change: ``n/a (no point value observed)``, as the headline's), and
    ``liability_chart`` each card definition's liability before and after (HTML bars).
    ``prices`` and ``redemption_rate`` are ``economics.summarise``'s. ``what_if`` holds the
    ``WhatIf`` shown and ``setting`` its ``Setting``; ``busy`` is true while moves are worked
    out, and :meth:`wait` blocks until the last is shown. Plan these values shows the plan of
    the edit (``plan``): the service has no call for either knob.
    """

    def __init__(
        self,
        snapshot: ProgramSnapshot,
        *,
        prices: pd.DataFrame | None = None,
        redemption_rate: float | None = 1.0,
    ) -> None:
        if not isinstance(snapshot, ProgramSnapshot):
            raise TypeError(f"snapshot: expected a ProgramSnapshot, not {type(snapshot).__name__}")
        self.snapshot = snapshot
        self._options: dict[str, Any] = {"prices": prices, "redemption_rate": redemption_rate}
        self._baseline: Baseline | None = None
        self.what_if: WhatIf | None = None
        self.setting: Setting | None = None
        self.plan: actions.ChangePlan | None = None
        self._choices = _choices(snapshot)
        if not self._choices:
            raise ValueError(
                "snapshot: no card definition has an ACTIVE amount-based earning benefit or "
                "rewards spending its points"
            )
        self._earn_rest = 0.0
        self._choosing = False

        wide = {"description_width": "initial"}
        self.card_definition = w.Dropdown(
            options=[(c.label, cid) for cid, c in self._choices.items()],
            description="Card definition",
            style=wide,
            layout=w.Layout(width="auto"),
        )
        self.earn_rate = w.FloatSlider(
            description="Earn rate", min=0.0, max=1.0, step=0.01, style=wide
        )
        self.price_change = w.FloatSlider(
            value=0.0,
            min=PRICE_CHANGES[0],
            max=PRICE_CHANGES[1],
            step=PRICE_CHANGES[2],
            description="Reward price",
            readout_format="+.0%",
            style=wide,
        )
        self.note = w.HTML()
        self.status = w.HTML()
        self.headline_table = w.HTML()
        self.definition_table = w.HTML()
        self.liability_chart = w.HTML()
        self.plan_button = w.Button(description="Plan these values", icon="list")
        self.plan_summary = w.HTML()
        self._worker: LatestOnly[Setting] = LatestOnly(
            self._compute, self._failed, name="lyt-what-if"
        )

        self.card_definition.observe(lambda _: self._choose(), names="value")
        self.earn_rate.observe(lambda _: self._moved(), names="value")
        self.price_change.observe(lambda _: self._moved(), names="value")
        self.plan_button.on_click(lambda _: self._submit(plan=True))
        super().__init__(
            [
                self.card_definition,
                w.HTML("<small>earn rate: points per minor unit of spend</small>"),
                self.earn_rate,
                self.price_change,
                self.note,
                self.status,
                w.HTML("<b>Program headline</b> (amounts in minor units)"),
                self.headline_table,
                w.HTML("<b>The chosen card definition</b>"),
                self.definition_table,
                self.liability_chart,
                w.HBox([self.plan_button, self.plan_summary]),
            ]
        )
        self._choose()

    # -- moves -----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True from a move until the figures of the last move are shown."""
        return self._worker.busy

    def wait(self, timeout: float | None = 120) -> None:
        """Block until the figures of the last move (or the plan asked for) are shown."""
        self._worker.wait(timeout)

    def current_setting(self, *, plan: bool = False) -> Setting:
        """The controls as they stand now (to 12 decimals: a browser's steps add up to
        0.019999999999999997)."""
        value = round(float(self.earn_rate.value), 12)
        return Setting(
            card_definition_id=str(self.card_definition.value),
            earn_points_per_unit=value,
            earn_moved=not math.isclose(value, self._earn_rest, rel_tol=1e-9, abs_tol=1e-12),
            price_change=round(float(self.price_change.value), 12),
            plan=plan,
        )

    def _choose(self) -> None:
        """A card definition chosen: both sliders back to its own values."""
        choice = self._choices[str(self.card_definition.value)]
        self._choosing = True
        try:
            _set_earn_slider(self.earn_rate, choice.earn_points_per_unit)
            self.earn_rate.disabled = choice.earn_points_per_unit is None
            self.price_change.value = 0.0
            self.price_change.disabled = not choice.priced
        finally:
            self._choosing = False
        self._earn_rest = float(self.earn_rate.value)
        self.note.value = "<br>".join(status_html(r, "partial") for r in choice.reasons)
        self._submit()

    def _moved(self) -> None:
        if not self._choosing:
            self._submit()

    def _submit(self, *, plan: bool = False) -> None:
        """Hand the controls' setting to the worker and return at once."""
        self.plan_summary.value = ""
        self.plan = None
        self.status.value = status_html("Computing…", "running")
        self._worker.submit(self.current_setting(plan=plan))

    # -- in the worker ---------------------------------------------------------------------

    def _compute(self, setting: Setting) -> None:
        try:
            if self._baseline is None:
                self._baseline = Baseline(self.snapshot, **self._options)
            frames = setting.frames(self.snapshot)
            if setting.plan:
                edit = actions.edit(self.snapshot)
                for kind, frame in frames.items():
                    setattr(edit, kind, frame)
                what = self._baseline.what_if(edit)
                plan = what.plan
            else:
                what, plan = self._baseline.what_if(frames), None
        except Exception as exc:
            self._failed(exc)
            return
        if self._worker.superseded:
            return  # a newer move waits: draw that one instead
        self.what_if, self.setting, self.plan = what, setting, plan
        self.headline_table.value = headline_html(what.headline, what.not_given)
        chosen = definition_figures(what.card_definitions, setting.card_definition_id)
        why = definition_reasons(what.definition_not_given(setting.card_definition_id))
        self.definition_table.value = headline_html(chosen, why)
        self.liability_chart.value = liability_html(liability_bars(what.card_definitions))
        if plan is not None:
            self.plan_summary.value = status_html(plan.summary(), "success")
        if not self._worker.superseded:
            self.status.value = ""

    def _failed(self, exc: Exception) -> None:
        shown = "the figures shown are the last computed" if self.what_if else "no figures yet"
        self.status.value = error_html(f"Could not compute: {describe_error(exc)} ({shown})")


def _choices(snapshot: ProgramSnapshot) -> dict[str, _Choice]:
    """The card definitions with an earn rate to set or rewards spending their points, by
    ID: those with an earn rate first, then by name."""
    choices = {}
    for cid, name in snapshot.card_definitions[["id", "name"]].itertuples(index=False):
        reasons = []
        try:
            rate: float | None = earn_rate(str(cid)).current(snapshot)
        except ValueError as exc:
            rate = None
            reasons.append(f"Earn rate: {exc}.")
        try:
            reward_price(card_definition_id=str(cid)).current(snapshot)
            priced = True
        except ValueError as exc:
            priced = False
            reasons.append(f"Reward price: {exc}.")
        if rate is not None or priced:
            label = f"{name} ({cid})" if isinstance(name, str) and name else str(cid)
            choices[str(cid)] = _Choice(label, rate, priced, tuple(reasons))
    ordered = sorted(choices.items(), key=lambda c: (c[1].earn_points_per_unit is None, c[1].label))
    return dict(ordered)


def _set_earn_slider(slider: w.FloatSlider, current: float | None) -> None:
    """``slider`` from 0 to about three times ``current`` (or 0.05 when there is none), in
    steps of about a tenth of it, at ``current``."""
    rate = current if current is not None and current > 0 else 0.01
    step = 10.0 ** (math.floor(math.log10(rate)) - 1)
    top = max(round(3 * rate / step) * step, 10 * step)
    decimals = max(0, -math.floor(math.log10(step)))
    with slider.hold_trait_notifications():
        slider.max = max(top, slider.max)
        slider.min = 0.0
        slider.step = step
        slider.value = current if current is not None else 0.0
        slider.max = top
        slider.readout_format = f".{decimals}f"
