"""The economics charts and report folder, drawn from small hand-made economics frames."""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import Collection, LineCollection
from matplotlib.figure import Figure
from matplotlib.text import Text

from lyt_toolkit.reports import read_manifest
from lyt_toolkit.reports.economics_chart import (
    CHARTS,
    plot_effective_return,
    plot_liability,
    plot_liability_over_time,
    plot_pending_by_month,
    plot_value_per_point,
)
from lyt_toolkit.reports.economics_report import (
    ECONOMICS_FORMAT,
    ECONOMICS_HTML,
    format_figure,
    write_economics_report,
)
from lyt_toolkit.snapshot import ProgramSnapshot

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DEFINITION = {"card_definition_id": "string", "card_definition_name": "string"}
"""The columns naming a row's card definition, as every frame here has them."""


def _frame(dtypes: dict[str, str], rows: list[Any]) -> pd.DataFrame:
    """A frame of ``rows`` with columns and dtypes ``dtypes``; dates given as text are read as
    UTC instants."""
    frame = pd.DataFrame(rows, columns=list(dtypes))
    for column, dtype in dtypes.items():
        if dtype.startswith("datetime64"):
            frame[column] = pd.to_datetime(frame[column], utc=True)
    return frame.astype(dtypes)


def liability() -> pd.DataFrame:
    dtypes = {
        **DEFINITION,
        "outstanding_points": "Int64",
        "pending_points": "Int64",
        "value_median": "Float64",
        "outstanding_value_median": "Float64",
        "pending_value_median": "Float64",
        "value_low": "Float64",
        "value_high": "Float64",
    }
    # 1,000 outstanding and 200 pending points at 0.5 (low 0.25, high 1.0) minor units a point.
    coffee = ["lcdef_1", "Coffee Points", 1000, 200, 600.0, 500.0, 100.0, 300.0, 1200.0]
    tea = ["lcdef_2", "=Tea Stars", 80, 0, 40.0, 40.0, 0.0, 40.0, 40.0]
    miles = ["lcdef_3", "Miles", 2400, 4100, None, None, None, None, None]
    spare = ["lcdef_4", "Spare", 0, 0, None, None, None, None, None]
    return _frame(dtypes, [coffee, tea, miles, spare])


def pending_schedule() -> pd.DataFrame:
    dtypes = {
        **DEFINITION,
        "month": "datetime64[ns, UTC]",
        "points": "Int64",
        "buckets": "Int64",
        "cannot_activate_points": "Int64",
        "cannot_activate_buckets": "Int64",
    }
    rows = [
        ("lcdef_1", "Coffee Points", "2026-02-01", 150, 2, 0, 0),
        ("lcdef_1", "Coffee Points", "2026-03-01", 50, 1, 0, 0),
        ("lcdef_2", "=Tea Stars", "2026-03-01", 30, 1, 0, 0),
    ]
    return _frame(dtypes, rows)


def burn_values() -> pd.DataFrame:
    dtypes = {
        "reward_id": "string",
        "reward_name": "string",
        "reward_status": "string",
        "cost_id": "string",
        "spending_index": "Int64",
        **DEFINITION,
        "points": "Int64",
        "value": "Float64",
        "value_per_point": "Float64",
    }
    rows = [
        (
            "lrew_1",
            "$5 Gift Card",
            "ACTIVE",
            "lrcst_1",
            0,
            "lcdef_1",
            "Coffee Points",
            1000,
            500.0,
            0.5,
        ),
        (
            "lrew_2",
            "$10 Gift Card",
            "ACTIVE",
            "lrcst_2",
            0,
            "lcdef_1",
            "Coffee Points",
            2000,
            1000.0,
            0.5,
        ),
        (
            "lrew_3",
            "Bargain Card",
            "ACTIVE",
            "lrcst_3",
            0,
            "lcdef_1",
            "Coffee Points",
            100,
            500.0,
            5.0,
        ),
        ("lrew_4", "Mug", "ACTIVE", "lrcst_4", 0, "lcdef_1", "Coffee Points", 300, None, None),
    ]
    return _frame(dtypes, rows)


def mispriced() -> pd.DataFrame:
    return burn_values().iloc[[2]][["reward_id", "reward_name", "cost_id", "spending_index"]]


def effective_return() -> pd.DataFrame:
    dtypes = {
        **DEFINITION,
        "return_low": "Float64",
        "return_median": "Float64",
        "return_high": "Float64",
    }
    rows = [("lcdef_1", "Coffee Points", 0.005, 0.01, 0.02), ("lcdef_2", "=Tea Stars", *[None] * 3)]
    return _frame(dtypes, rows)


def over_time() -> pd.DataFrame:
    dtypes = {
        "pulled_at": "datetime64[ns, UTC]",
        **DEFINITION,
        "liability_median": "Float64",
    }
    rows = [
        ("2026-01-01", "lcdef_1", "Coffee Points", 400.0),
        ("2026-01-15", "lcdef_1", "Coffee Points", 600.0),
    ]
    return _frame(dtypes, rows)


@dataclass(frozen=True)
class HandMade:
    """An economics summary as the report reads it (``lyt_toolkit.economics.Economics``)."""

    source: str = "http://127.0.0.1:8000"
    pulled_at: pd.Timestamp = field(default_factory=lambda: pd.Timestamp("2026-01-15T12:00Z"))
    headline: Mapping[str, float | None] = field(
        default_factory=lambda: {
            "outstanding_points": 1000,
            "liability_median": 640.0,
            "redemption_rate": 1.0,
            "effective_return_median": 0.01,
            "mispriced_rewards": 1,
            "liability_low": None,
        }
    )
    over: pd.DataFrame = field(default_factory=over_time)

    def frames(self) -> dict[str, pd.DataFrame]:
        return {
            "liability": liability(),
            "pending_schedule": pending_schedule(),
            "burn_values": burn_values(),
            "mispriced": mispriced(),
            "effective_return": effective_return(),
            "economics_over_time": self.over,
        }


def _axes() -> Axes:
    return Figure(figsize=(11, 6)).add_subplot()


def _xs(points: Collection) -> list[float]:
    """The x of each point a scatter plot drew."""
    return np.asarray(points.get_offsets())[:, 0].tolist()


def test_liability_chart_stacks_outstanding_and_pending_with_the_range() -> None:
    ax = plot_liability(liability(), _axes())
    assert ax.get_title().startswith("Points liability per card definition")
    # Spare owes nothing: left out. Miles owes 6,500 points worth nothing known: said so.
    labels = ["Miles", "=Tea Stars", "Coffee Points"]
    assert [t.get_text() for t in ax.get_yticklabels()] == labels
    outstanding, pending = (c for c in ax.containers)
    assert [b.get_width() for b in outstanding] == [0.0, 40.0, 500.0]
    assert [(b.get_x(), b.get_width()) for b in pending] == [(0, 0), (40.0, 0.0), (500.0, 100.0)]
    (ranges_drawn,) = ax.collections
    assert isinstance(ranges_drawn, LineCollection)
    segments = ranges_drawn.get_segments()
    ranges = [(s[0][0], s[1][0]) for s in segments if len(s)]  # Miles has no range
    assert ranges == [(40.0, 40.0), (300.0, 1200.0)]
    assert [t.get_text() for t in ax.texts] == ["no point value (6,500 points)"]
    assert ax.get_xlabel() == "liability (minor units)"


def test_pending_chart_has_one_bar_per_month_stacked_by_definition() -> None:
    ax = plot_pending_by_month(pending_schedule(), _axes())
    assert ax.get_title() == "Pending points by activation month"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-02", "2026-03"]
    heights = {c.get_label(): [b.get_height() for b in c] for c in ax.containers}
    assert heights == {"=Tea Stars": [0, 30], "Coffee Points": [150, 50]}


def test_pending_chart_marks_the_points_that_can_never_activate() -> None:
    schedule = pending_schedule()
    schedule.loc[0, ["cannot_activate_points", "cannot_activate_buckets"]] = [100, 1]
    schedule.loc[2, ["cannot_activate_points", "cannot_activate_buckets"]] = [30, 1]
    ax = plot_pending_by_month(schedule, _axes())
    heights = {c.get_label(): [b.get_height() for b in c] for c in ax.containers}
    assert heights == {
        "=Tea Stars": [0, 0],
        "Coffee Points": [50, 50],
        "cannot activate": [100, 30],
    }
    blocked = ax.containers[-1]
    assert [b.get_y() for b in blocked] == [50, 50]  # on top of what will activate


def _is_math(text: str) -> bool:
    """How matplotlib tells math text: an even, non-zero number of unescaped dollar signs."""
    dollars = text.count("$") - text.count(r"\$")
    return dollars > 0 and dollars % 2 == 0


@pytest.mark.parametrize("name", ["Double $$ Days", "$5% off$", "$5 and $10 cards"])
def test_every_chart_draws_names_as_plain_text(name: str) -> None:
    frames = HandMade().frames()
    for frame in frames.values():
        for column in ("card_definition_name", "reward_name"):
            if column in frame.columns:
                frame[column] = name + " " + frame[column]
    for chart, plot in CHARTS.items():
        figure = Figure(figsize=(11, 6))
        plot(frames, figure.add_subplot())
        figure.savefig(io.BytesIO(), format="png")  # math text that does not parse raises
        texts = [t.get_text() for t in figure.findobj(Text)]
        assert any(name.replace("$", r"\$") in t for t in texts), chart
        assert not [t for t in texts if _is_math(t)], chart


def test_value_per_point_chart_names_only_the_mispriced_rewards() -> None:
    ax = plot_value_per_point(burn_values(), mispriced(), _axes())
    assert ax.get_title().startswith("Value per point per reward")
    assert [t.get_text() for t in ax.texts] == ["Bargain Card"]
    normal, odd = ax.collections
    assert sorted(_xs(normal)) == [0.5, 0.5]  # the Mug has no value
    assert _xs(odd) == [5.0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Coffee Points"]


def test_value_per_point_chart_draws_rewards_not_active_hollow() -> None:
    burn = burn_values()
    burn.loc[1, "reward_status"] = "DRAFT"  # point values leave it out: the chart says so
    ax = plot_value_per_point(burn, mispriced(), _axes())
    active, idle, odd = ax.collections
    assert _xs(active) == [0.5] and _xs(odd) == [5.0]
    assert (
        _xs(idle) == [0.5] and len(idle.get_facecolor()) == 0
    )  # (its alias get_facecolors is untyped)
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == [
        "ACTIVE reward",
        "reward not ACTIVE",
        "mispriced reward",
    ]


def test_effective_return_chart_leaves_out_definitions_without_a_return() -> None:
    ax = plot_effective_return(effective_return(), _axes())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Coffee Points"]
    (bars,) = ax.containers
    assert [b.get_width() for b in bars] == [0.01]
    assert ax.get_xlabel() == "share of spend returned"


def test_liability_over_time_draws_one_line_per_definition() -> None:
    ax = plot_liability_over_time(over_time(), _axes())
    (line,) = ax.get_lines()
    assert line.get_label() == "Coffee Points"
    assert np.asarray(line.get_ydata()).tolist() == [400.0, 600.0]


def test_empty_frames_give_a_chart_that_says_so() -> None:
    ax = plot_liability_over_time(over_time().iloc[:0], _axes())
    assert "No history" in ax.texts[0].get_text()
    assert ax.get_title().startswith("Points liability over time")


def test_report_folder_holds_csvs_manifest_charts_and_page(tmp_path: Path) -> None:
    written = write_economics_report(HandMade(), tmp_path)
    names = {p.name for p in written}
    frames = HandMade().frames()
    charts = {f"{c}.png" for c in CHARTS}
    assert names == {f"{f}.csv" for f in frames} | charts | {"manifest.json", ECONOMICS_HTML}
    assert {p.name for p in tmp_path.iterdir()} == names  # no temporary file left behind
    for chart in charts:
        assert (tmp_path / chart).read_bytes().startswith(PNG_MAGIC)
    manifest = read_manifest(tmp_path, formats=(ECONOMICS_FORMAT,))
    assert set(manifest["frames"]) == set(frames)
    assert manifest["frames"]["liability"]["rows"] == 4
    assert manifest["headline"]["liability_low"] is None
    assert manifest["charts"] == [f"{c}.png" for c in CHARTS]


def test_report_csvs_are_spreadsheet_safe(tmp_path: Path) -> None:
    write_economics_report(HandMade(), tmp_path)
    text = (tmp_path / "liability.csv").read_text(encoding="utf-8")
    assert "'=Tea Stars" in text and ",=Tea" not in text


def test_page_embeds_every_chart_and_needs_no_network(tmp_path: Path) -> None:
    write_economics_report(HandMade(), tmp_path)
    page = (tmp_path / ECONOMICS_HTML).read_text(encoding="utf-8")
    embedded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert [base64.b64decode(e) for e in embedded] == [
        (tmp_path / f"{c}.png").read_bytes() for c in CHARTS
    ]
    # Nothing fetched: no URL in any src/href, no external stylesheet or script.
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<script" not in page and "<link" not in page
    assert "<td>1,000</td>" in page and "<td>1.00%</td>" in page and "<td>n/a</td>" in page


def test_page_escapes_names(tmp_path: Path) -> None:
    economics = HandMade(source="<b>x</b>")
    write_economics_report(economics, tmp_path)
    page = (tmp_path / ECONOMICS_HTML).read_text(encoding="utf-8")
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("redemption_rate", 0.97, "97.00%"),
        ("effective_return_median", 0.0125, "1.25%"),
        ("outstanding_points", 12345, "12,345"),
        ("liability_median", 1234.5, "1,234.50"),
        ("liability_median", None, "n/a"),
        ("liability_median", float("nan"), "n/a"),
    ],
)
def test_headline_figures_read_as_people_read_them(
    name: str, value: float | None, shown: str
) -> None:
    assert format_figure(name, value) == shown


def test_manifest_headline_is_json(tmp_path: Path) -> None:
    write_economics_report(HandMade(), tmp_path)
    headline = json.loads((tmp_path / "manifest.json").read_text())["headline"]
    assert headline["outstanding_points"] == 1000


def test_a_snapshot_given_for_the_economics_is_refused_naming_the_call(tmp_path: Path) -> None:
    snapshot = ProgramSnapshot.from_frames({}, source="s", pulled_at="2026-01-15T12:00:00Z")
    with pytest.raises(TypeError, match=r"^economics: .* not a ProgramSnapshot: .*summarise"):
        write_economics_report(snapshot, tmp_path / "report")  # type: ignore[arg-type]
    assert not (tmp_path / "report").exists()
