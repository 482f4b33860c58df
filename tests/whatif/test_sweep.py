"""Sweeps: each row recomputed by hand (or by ``summarise`` of the snapshot edited by hand),
the current value's row is the base's figures, bad values are refused naming ``values``,
and the chart draws both series (headless, Agg)."""

from __future__ import annotations

import dataclasses
import io
import math
import subprocess
import sys
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest
from economics.conftest import snapshot_of
from economics.programs import GEMS, STARS, economics_program
from frame_reads import cell
from matplotlib import pyplot as plt
from matplotlib.figure import Figure

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import summarise
from lyt_toolkit.whatif import SWEEP, Baseline, earn_rate, reward_price, sweep
from lyt_toolkit.whatif.sweep import HEADLINE

from .test_resummarise import generated

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def program() -> ProgramSnapshot:
    """The economics tests' program (three card definitions, no cards), in memory."""
    return snapshot_of(economics_program())


@pytest.fixture(scope="module")
def owing() -> ProgramSnapshot:
    """A small generated program with cards and pending buckets, in memory."""
    return generated()


def _figures(snapshot: ProgramSnapshot) -> dict[str, float | None]:
    headline = summarise(snapshot).headline
    return {name: headline[name] for name in HEADLINE}


def _row_figures(row: pd.Series) -> dict[str, float | None]:
    return {name: None if pd.isna(row[name]) else float(row[name]) for name in HEADLINE}


def test_an_earn_rate_sweep_returns_the_rate_times_the_value_per_point(
    program: ProgramSnapshot,
) -> None:
    rates = [0.005, 0.01, 0.02, 0.04]
    swept = sweep(program, earn_rate(GEMS), rates)
    frame = swept.frame
    assert list(frame.columns) == list(SWEEP.names)
    assert frame.dtypes.to_dict() == SWEEP.empty().dtypes.to_dict()
    assert frame["value"].tolist() == rates
    base = cell(summarise(program).point_values.set_index("card_definition_id"), GEMS, "median")
    assert (frame["definition_earn_points_per_unit"] == frame["value"]).all()
    assert (frame["definition_value_median"] == base).all()
    np.testing.assert_allclose(frame["definition_return_median"], frame["value"] * base)
    assert (frame["card_definition_id"] == GEMS).all()
    assert frame["current"].tolist() == [True, False, False, False]  # 1 per 200 today
    assert swept.current == 1 / 200


def test_a_price_sweep_gives_the_figures_of_the_snapshot_priced_by_hand(
    owing: ProgramSnapshot,
) -> None:
    definition = owing.reward_costs["card_definition_id"].dropna().iloc[0]
    changes = [-0.3, 0.0, 0.25]
    swept = sweep(owing, reward_price(card_definition_id=definition), changes)
    costs = owing.reward_costs
    chosen = (costs["card_definition_id"] == definition) & costs["points"].notna()
    for change, (_, row) in zip(changes, swept.frame.iterrows(), strict=True):
        priced = costs.copy()
        points = [max(round(p * (1 + change)), 1) for p in costs.loc[chosen, "points"]]
        priced.loc[chosen, "points"] = points
        edited = dataclasses.replace(owing, reward_costs=priced)
        assert _row_figures(row) == pytest.approx(_figures(edited)), change
        mine = summarise(edited).effective_return.set_index("card_definition_id").loc[definition]
        assert row["definition_return_median"] == pytest.approx(mine["return_median"])
    assert swept.frame["current"].tolist() == [False, True, False]
    assert swept.frame["liability_median"].is_monotonic_decreasing  # dearer: each point worth less


def test_the_current_values_row_is_the_base_snapshots_figures(owing: ProgramSnapshot) -> None:
    baseline = Baseline(owing)
    definition = owing.benefits["card_definition_id"].dropna().iloc[0]
    parameter = earn_rate(definition)
    current = parameter.current(owing)
    swept = sweep(baseline, parameter, [current / 2, current, current * 2])
    assert swept.baseline is baseline
    row = swept.frame[swept.frame["current"]]
    assert len(row) == 1
    base = baseline.economics.headline
    assert _row_figures(row.iloc[0]) == pytest.approx({n: base[n] for n in HEADLINE})
    outstanding = base["outstanding_points"]
    assert outstanding is not None
    assert row["outstanding_points"].iloc[0] == outstanding > 0


@pytest.mark.parametrize(
    "values, said",
    [
        ([], "empty"),
        ([0.1, math.nan], "item 1 is nan"),
        ([math.inf], "item 0 is inf"),
        (["0.1"], "item 0 is '0.1'"),
        ([True], "item 0 is True"),
        ([None], "item 0 is None"),
        ("0.1", "expected an iterable of numbers"),
        (0.1, "expected an iterable of numbers"),
        ([0.1, -1.0], "item 1: value: expected a finite number above -1.0"),
    ],
)
def test_bad_values_are_refused_naming_values(
    program: ProgramSnapshot, values: Any, said: str
) -> None:
    with pytest.raises(ValueError, match=r"^values: ") as raised:
        sweep(program, reward_price(card_definition_id=STARS), values)
    assert said in str(raised.value)


def test_a_negative_earn_rate_is_refused(program: ProgramSnapshot) -> None:
    with pytest.raises(ValueError, match=r"values: item 0: value: expected .* at least 0"):
        sweep(program, earn_rate(STARS), [-0.01])


def test_the_chart_draws_the_return_and_the_liability_on_two_axes(owing: ProgramSnapshot) -> None:
    definition = owing.reward_costs["card_definition_id"].dropna().iloc[0]
    swept = sweep(owing, reward_price(card_definition_id=definition), [0.2, -0.2, 0.0])
    figure = Figure()
    ax = swept.chart(figure.subplots())
    twin = next(a for a in figure.axes if a is not ax)
    ordered = swept.frame.sort_values("value")
    returned, current = ax.get_lines()
    np.testing.assert_allclose(np.asarray(returned.get_xdata()), [-0.2, 0.0, 0.2])
    np.testing.assert_allclose(
        np.asarray(returned.get_ydata()), ordered["definition_return_median"]
    )
    assert np.asarray(current.get_xdata()).tolist() == [0.0, 0.0]  # the current price marked
    (liability,) = twin.get_lines()
    np.testing.assert_allclose(np.asarray(liability.get_ydata()), ordered["liability_median"])
    legend = ax.get_legend()
    assert legend is not None
    labels = [t.get_text() for t in legend.get_texts()]
    assert "effective return (median)" in labels and "liability (median value)" in labels
    drawn = swept.chart()  # a new figure of its own (pyplot, Agg here)
    assert drawn.figure is not figure and len(drawn.figure.axes) == 2
    assert isinstance(drawn.figure, Figure)  # pyplot's, not a subfigure
    drawn.figure.savefig(io.BytesIO(), format="png")
    plt.close(drawn.figure)


def test_a_sweep_prints_a_short_table_and_renders_html(program: ProgramSnapshot) -> None:
    swept = sweep(program, earn_rate(GEMS), [0.005, 0.01])
    text = str(swept)
    assert text.splitlines()[0].startswith("Sweep of earn_points_per_unit")
    assert len(text.splitlines()) == 5 and text.splitlines()[2].startswith("*")
    # no cards in memory: the liability says why it is n/a, in the headline's words
    assert text.splitlines()[4] == "liability median: n/a (cards, pending_buckets not pulled)"
    assert "<table" in swept._repr_html_() and "definition_return_median" in swept._repr_html_()


def test_the_what_if_and_its_widget_leave_matplotlib_unloaded_until_a_sweep_is_drawn() -> None:
    # matplotlib's modules are a fifth of a kernel's objects, and every full garbage
    # collection walks them (a pause in whichever slider move it falls): only a chart loads it.
    code = "import sys, lyt_toolkit.whatif, lyt_toolkit.widgets; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]
