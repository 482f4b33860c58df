"""WhatIfPanel driven headless on the demo program pulled over HTTP: the dropdown and the
sliders set as a browser sets them, the worker waited for, and the figures shown checked
against a what-if recomputed on its own."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from html import unescape

import pandas as pd
import pytest
from interrupting import until

from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.whatif import Baseline, WhatIf, earn_rate, reward_price
from lyt_toolkit.whatif.edited import Edit
from lyt_toolkit.widgets import WhatIfPanel
from lyt_toolkit.widgets._latest import LatestOnly
from lyt_toolkit.widgets._what_if_view import format_value, liability_bars, liability_html
from lyt_toolkit.widgets.what_if import Setting

BEANS = "lcdef_c0ffee0001"  # 2 ACTIVE amount-based earning benefits, rewards spend its points
GOLD_STARS = "lcdef_c0ffee0002"  # the highest effective return of the program
HOLIDAY_BEANS = "lcdef_c0ffee0004"  # rewards spend its points; no earning benefit
WHY = "n/a (no point value observed)"
ROW = re.compile(r'<tr data-figure="(\w+)"><td>[^<]*</td><td>([^<]*)</td><td[^>]*>([^<]*)</td>')
CHANGE = re.compile(r'<tr data-figure="(\w+)">(?:<td[^>]*>[^<]*</td>){3}<td[^>]*>([^<]*)</td>')
BAR_ROW = re.compile(r'<tr data-card-definition="([^"]*)">(.*?)</tr>')
BAR = re.compile(r'data-side="(\w+)".*?width:([\d.]+)%.*?<span[^>]*>([^<]*)</span>')


@pytest.fixture
def snapshot(fresh_pulled: ProgramSnapshot) -> ProgramSnapshot:
    """The demo program as a pull of it gives it (pulled once a module, a copy a test)."""
    return fresh_pulled


@pytest.fixture
def panel(snapshot: ProgramSnapshot) -> WhatIfPanel:
    shown = WhatIfPanel(snapshot)
    shown.wait()
    return shown


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, list[Setting]]]:
    """Each what-if the panel works out waits for the event (set: no wait); the settings
    worked out are recorded in order."""
    release, computed = threading.Event(), []
    frames = Setting.frames

    def gated(setting: Setting, snapshot: ProgramSnapshot) -> dict[str, pd.DataFrame]:
        computed.append(setting)
        assert release.wait(60)
        return frames(setting, snapshot)

    monkeypatch.setattr(Setting, "frames", gated)
    yield release, computed
    release.set()


def expected(snapshot: ProgramSnapshot, edit: Edit) -> WhatIf:
    """The what-if recomputed on its own, as a notebook would."""
    return Baseline(snapshot).what_if(edit)


def bars_shown(html: str) -> dict[str, dict[str, tuple[float, str]]]:
    """Card definition -> side (before, after) -> (bar width in %, figure) as the liability
    chart shows them."""
    return {
        unescape(label): {side: (float(width), unescape(f)) for side, width, f in BAR.findall(row)}
        for label, row in BAR_ROW.findall(html)
    }


def bars_wanted(what: WhatIf) -> dict[str, tuple[str, str]]:
    """Card definition -> (before, after) liability figures a what-if's chart should show."""
    bars = liability_bars(what.card_definitions)
    return {
        label: (format_value("liability_median", b), format_value("liability_median", a))
        for label, b, a in bars.itertuples(index=False)
    }


def figures_of(bars: dict[str, dict[str, tuple[float, str]]]) -> dict[str, tuple[str, str]]:
    return {label: (s["before"][1], s["after"][1]) for label, s in bars.items()}


def shown(html: str) -> dict[str, tuple[str, str]]:
    """Figure -> (before, after) as a table of the panel shows them."""
    return {name: (unescape(b), unescape(a)) for name, b, a in ROW.findall(html)}


def changes_shown(html: str) -> dict[str, str]:
    """Figure -> its change as a table of the panel shows it."""
    return {name: unescape(change) for name, change in CHANGE.findall(html)}


def formatted(frame: pd.DataFrame) -> dict[str, tuple[str, str]]:
    return {
        str(r.figure): (format_value(str(r.figure), r.before), format_value(str(r.figure), r.after))
        for r in frame.itertuples()
    }


def test_the_panel_opens_on_the_programs_own_figures(
    panel: WhatIfPanel, snapshot: ProgramSnapshot
) -> None:
    assert panel.card_definition.value == BEANS  # those with an earn rate first, by name
    assert panel.earn_rate.value == pytest.approx(earn_rate(BEANS).current(snapshot))
    assert panel.price_change.value == 0 and not panel.busy
    assert panel.what_if is not None and panel.status.value == ""
    headline = panel.what_if.headline
    assert (headline["change"] == 0).all()
    assert shown(panel.headline_table.value) == formatted(expected(snapshot, {}).headline)
    bars = bars_shown(panel.liability_chart.value)
    assert figures_of(bars) == bars_wanted(expected(snapshot, {}))
    assert len(bars) >= 2 and all(s["before"] == s["after"] for s in bars.values())
    assert max(s["before"][0] for s in bars.values()) == 85.0  # the largest fills the track


def test_moving_the_earn_rate_shows_that_rates_figures(
    panel: WhatIfPanel, snapshot: ProgramSnapshot
) -> None:
    panel.card_definition.value = GOLD_STARS
    panel.wait()
    panel.earn_rate.value = 0.03
    panel.wait()
    want = expected(snapshot, earn_rate(GOLD_STARS).frames(snapshot, 0.03))
    assert panel.what_if is not None
    pd.testing.assert_frame_equal(panel.what_if.headline, want.headline)
    assert shown(panel.headline_table.value) == formatted(want.headline)
    highest = shown(panel.headline_table.value)["highest_effective_return"]
    assert highest == ("15.00%", "30.00%")  # 0.015 -> 0.03 points per unit doubles it
    chosen = shown(panel.definition_table.value)
    assert chosen["earn_points_per_unit"] == ("0.015", "0.03")
    assert chosen["effective_return_median"] == ("15.00%", "30.00%")
    assert panel.setting == Setting(GOLD_STARS, 0.03, True, 0.0)


def test_moving_the_reward_price_moves_the_liability_and_its_chart(
    panel: WhatIfPanel, snapshot: ProgramSnapshot
) -> None:
    chart = panel.liability_chart.value
    panel.price_change.value = 0.3
    panel.wait()
    want = expected(snapshot, reward_price(card_definition_id=BEANS).frames(snapshot, 0.3))
    assert panel.what_if is not None
    pd.testing.assert_frame_equal(panel.what_if.headline, want.headline)
    figures = shown(panel.headline_table.value)
    assert figures == formatted(want.headline)
    before, after = figures["liability_median"]
    assert before != after  # dearer rewards: each point is worth less
    assert panel.liability_chart.value != chart
    bars = bars_shown(panel.liability_chart.value)
    assert figures_of(bars) == bars_wanted(want)
    beans = next(s for label, s in bars.items() if label.startswith("Northwind Beans"))
    assert beans["after"][1] != beans["before"][1]  # its rewards dearer: its liability moves

    panel.earn_rate.value = 0.02  # both knobs: one edit of both frames
    panel.wait()
    both = {
        **earn_rate(BEANS).frames(snapshot, 0.02),
        **reward_price(card_definition_id=BEANS).frames(snapshot, 0.3),
    }
    assert panel.what_if is not None
    pd.testing.assert_frame_equal(
        panel.what_if.card_definitions, expected(snapshot, both).card_definitions
    )


def test_a_move_returns_at_once_while_the_figures_are_worked_out(
    panel: WhatIfPanel, snapshot: ProgramSnapshot, gate: tuple[threading.Event, list[Setting]]
) -> None:
    release, computed = gate
    panel.price_change.value = -0.2  # what the slider's comm message does
    # Returned while the figures wait for the gate: the kernel's thread is free (not timed: a
    # loaded machine can take longer than any bound to return from a move that waited for
    # nothing; one that waited for the figures would never have returned)
    assert panel.busy and "Computing" in panel.status.value
    release.set()
    panel.wait()
    assert not panel.busy and panel.status.value == ""
    assert [s.price_change for s in computed] == [-0.2]
    want = expected(snapshot, reward_price(card_definition_id=BEANS).frames(snapshot, -0.2))
    assert shown(panel.headline_table.value) == formatted(want.headline)


def test_moves_arriving_while_computing_compute_only_the_last(
    panel: WhatIfPanel, snapshot: ProgramSnapshot, gate: tuple[threading.Event, list[Setting]]
) -> None:
    release, computed = gate
    panel.earn_rate.value = 0.016
    until(lambda: len(computed) == 1, "the worker began the first move")
    for rate in (0.017, 0.018, 0.019, 0.02):  # a drag: each arrives while it computes
        panel.earn_rate.value = rate
    release.set()
    panel.wait()
    assert [s.earn_points_per_unit for s in computed] == [0.016, 0.02]
    assert panel.setting is not None and panel.setting.earn_points_per_unit == 0.02
    want = expected(snapshot, earn_rate(BEANS).frames(snapshot, 0.02))
    assert panel.what_if is not None
    pd.testing.assert_frame_equal(panel.what_if.card_definitions, want.card_definitions)


def test_a_card_definition_without_an_earning_benefit_says_so_in_the_panel(
    panel: WhatIfPanel, snapshot: ProgramSnapshot
) -> None:
    panel.card_definition.value = HOLIDAY_BEANS
    panel.wait()
    assert panel.earn_rate.disabled and not panel.price_change.disabled
    assert "has no ACTIVE amount-based POINTS_PROPORTIONAL benefit" in panel.note.value
    panel.price_change.value = 0.5  # the price still moves
    panel.wait()
    assert panel.status.value == ""
    want = expected(snapshot, reward_price(card_definition_id=HOLIDAY_BEANS).frames(snapshot, 0.5))
    assert shown(panel.headline_table.value) == formatted(want.headline)

    panel.earn_rate.value = 0.01  # from code: the disabled slider moved anyway
    panel.wait()
    assert "Could not compute" in panel.status.value
    assert "has no ACTIVE amount-based" in panel.status.value
    assert "Traceback" not in panel.status.value and not panel.busy
    assert panel.setting is not None and panel.setting.price_change == 0.5  # figures kept


def test_a_figure_of_the_chosen_card_definition_that_is_na_says_why(panel: WhatIfPanel) -> None:
    """The Holiday Beans earn on no spend and their one reward, a cookie tin with no price
    given, values none of their points: earlier the panel's table of them showed each change
    as a bare n/a; now each says why, in the words of the frame the figure comes from (the
    return's, the point values', the liability's), as the headline's n/a do."""
    assert not any(c.startswith("n/a") for c in changes_shown(panel.definition_table.value))
    panel.card_definition.value = HOLIDAY_BEANS
    panel.wait()
    unearned = "n/a (no ACTIVE benefit earns points on spend)"
    want = {
        "earn_points_per_unit": unearned,
        "value_median": WHY,
        "effective_return_median": unearned,
        "liability_median": WHY,
    }
    assert changes_shown(panel.definition_table.value) == want
    assert shown(panel.definition_table.value)["value_median"] == ("n/a", "n/a")
    panel.price_change.value = 0.5  # a dearer tin still values none of its points
    panel.wait()
    assert changes_shown(panel.definition_table.value) == want


def test_a_failure_in_the_worker_shows_in_the_panel_and_the_next_move_works(
    panel: WhatIfPanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Baseline, edit: Edit) -> WhatIf:
        raise RuntimeError("the economics broke")

    original = Baseline.what_if
    monkeypatch.setattr(Baseline, "what_if", broken)
    panel.price_change.value = 0.1
    panel.wait()
    assert "Could not compute: RuntimeError: the economics broke" in panel.status.value
    assert "Traceback" not in panel.status.value and not panel.busy
    monkeypatch.setattr(Baseline, "what_if", original)
    panel.price_change.value = 0.15
    panel.wait()
    assert panel.status.value == ""
    assert panel.setting is not None and panel.setting.price_change == 0.15


def test_plan_these_values_lists_both_knobs_as_unsupported(panel: WhatIfPanel) -> None:
    panel.earn_rate.value = 0.02
    panel.price_change.value = 0.1
    panel.wait()
    panel.plan_button.click()
    panel.wait()
    assert panel.plan is not None
    assert panel.plan.changes.empty  # the service has no call for either knob
    kinds = set(panel.plan.unsupported["kind"])
    assert kinds == {"benefits", "reward_costs"}
    assert "changes the service cannot make" in panel.plan_summary.value
    panel.price_change.value = 0.2  # a move makes the plan stale
    assert panel.plan is None and panel.plan_summary.value == ""
    panel.wait()


def test_the_panel_needs_a_snapshot() -> None:
    with pytest.raises(TypeError, match="ProgramSnapshot"):
        WhatIfPanel("lcdef_c0ffee0001")  # type: ignore[arg-type]


def test_latest_only_drops_the_requests_that_waited() -> None:
    started, release = threading.Event(), threading.Event()
    done: list[int] = []
    failures: list[Exception] = []

    def work(request: int) -> None:
        started.set()
        assert release.wait(30)
        if request < 0:
            raise ValueError("negative")
        done.append(request)

    worker: LatestOnly[int] = LatestOnly(work, failures.append, name="test-latest")
    worker.submit(0)
    assert started.wait(30)  # the worker is on 0: the next ones wait, each replacing the last
    for request in range(1, 5):
        worker.submit(request)
    assert worker.busy and worker.superseded
    release.set()
    worker.wait(30)
    assert done == [0, 4] and not worker.busy
    worker.submit(-1)  # a failure escaping the work is reported, and the worker goes on
    worker.wait(30)
    assert [str(f) for f in failures] == ["negative"] and not worker.busy
    worker.submit(7)
    worker.wait(30)
    assert done == [0, 4, 7]


def test_the_liability_chart_scales_its_bars_to_the_largest_and_escapes_names() -> None:
    bars = pd.DataFrame(
        {"label": ["<b>Stars</b> & co", "Gems"], "before": [200.0, 50.0], "after": [100.0, 0.0]}
    )
    html = liability_html(bars)
    shown_bars = bars_shown(html)
    assert list(shown_bars) == ["<b>Stars</b> & co", "Gems"]  # in order, text not markup
    assert "<b>Stars" not in html
    assert shown_bars["<b>Stars</b> & co"] == {"before": (85.0, "200"), "after": (42.5, "100")}
    assert shown_bars["Gems"] == {"before": (21.25, "50"), "after": (0.0, "0")}


def test_the_liability_chart_without_valued_points_says_so() -> None:
    empty = pd.DataFrame({"label": [], "before": [], "after": []})
    assert "No card definition whose points have a value" in liability_html(empty)
    nothing_owed = pd.DataFrame({"label": ["Stars"], "before": [0.0], "after": [0.0]})
    assert bars_shown(liability_html(nothing_owed))["Stars"]["after"] == (0.0, "0")
