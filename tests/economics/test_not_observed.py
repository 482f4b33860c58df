"""The headline figures a point's value decides, of programs pulled whole over real HTTP:
with no value per point observed they are None and say so (``Economics.not_given``) on
every surface, a liability of no points owed is still 0, and an override valuing every
card definition a figure needs gives it without the rewards."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.economics import summarise
from lyt_toolkit.frames import FRAME_NAMES
from lyt_toolkit.reports.economics_report import headline_lines, write_economics_report
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.whatif import Baseline, earn_rate, reward_price, sweep, what_if
from lyt_toolkit.whatif.edited import edited_snapshot
from lyt_toolkit.widgets._what_if_view import definition_figures, definition_reasons, headline_html

from .programs import GEMS, MILES, NOW, STARS, unvalued_program, what_if_program

# The module (the package's attribute of that name is the function).
OWED = importlib.import_module("lyt_toolkit.economics.liability")
WHY = "n/a (no point value observed)"
LIABILITY = ("liability_low", "liability_median", "liability_high")


@pytest.fixture(scope="module")
def unvalued(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> ProgramSnapshot:
    """``unvalued_program`` pulled whole: 1,700 points owed and nothing values them."""
    with start_sandbox(unvalued_program(), now=NOW) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


def test_no_point_value_observed_is_not_a_liability_of_0(
    unvalued: ProgramSnapshot,
    pulled: ProgramSnapshot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Earlier the headline said liability 0 (none owed) where 1,700 points are owed and
    none has a value, and 0 mispriced rewards where no cost could be judged, on the
    terminal, the report page and its manifest."""
    summary = summarise(unvalued)
    headline = summary.headline
    assert headline["liability_median"] is None
    assert headline["unvalued_points"] == headline["outstanding_points"] == 1700  # a count
    assert summary.not_pulled == {}  # every kind was pulled
    assert summary.not_given == {
        **dict.fromkeys(LIABILITY, "no point value observed"),
        "highest_effective_return": "no point value observed",
        "mispriced_rewards": "no point value observed",
    }
    assert all(headline[name] is None for name in summary.not_given)
    lines = dict(headline_lines(headline, summary.not_given))
    assert (lines["liability median"], lines["unvalued points"]) == (WHY, "1,700")
    write_economics_report(summary, tmp_path / "page")
    assert (tmp_path / "page" / "economics.html").read_text().count(f"<td>{WHY}</td>") == 5
    manifest = json.loads((tmp_path / "page" / "manifest.json").read_text())
    assert manifest["not_given"] == summary.not_given
    unvalued.to_csv(tmp_path / "base")
    out = str(tmp_path / "report")
    assert main(["report", "economics", "--base", str(tmp_path / "base"), "--out", out]) == 0
    printed = capsys.readouterr().out
    assert re.search(rf"^  liability median +{re.escape(WHY)}$", printed, re.M), printed
    # Values observed and no points owed (the program without cards): truly 0.
    held = summarise(pulled)
    assert held.headline["liability_median"] == 0 and held.not_given == {}


def test_a_what_if_says_which_side_observed_no_point_value(unvalued: ProgramSnapshot) -> None:
    """Activating the $5 voucher (500 for 400 Stars) gives the Stars a value, 1.25 a point:
    the liability after is 1,500 x 1.25, before none; earlier the what-if printed 0 before
    and 1,875 as the change."""
    rewards = unvalued.rewards.copy()
    rewards.loc[rewards["id"] == "lrew_e001", "status"] = "ACTIVE"
    what = what_if(unvalued, {"rewards": rewards})
    text = str(what)
    before = re.escape("n/a (before: no point value observed)")
    assert re.search(rf"^  liability median +n/a +1,875 +{before}$", text, re.M), text
    assert what.not_given["highest_effective_return"] == "before: no point value observed"
    assert headline_html(what.headline, what.not_given).count("before: no point value") == 5
    valued = ("value_low", "value_median", "value_high", "return_median", "liability_median")
    assert what.definition_not_given(STARS) == dict.fromkeys(
        valued, "before: no point value observed"
    )
    miles = what.definition_not_given(MILES)  # the same on both sides: no side named
    assert miles["earn_points_per_unit"] == "no ACTIVE benefit earns points on spend"
    stars = definition_figures(what.card_definitions, STARS)  # the what-if panel's table
    table = headline_html(stars, definition_reasons(what.definition_not_given(STARS)))
    assert table.count("<td>n/a (before: no point value observed)</td>") == 3  # not the rate
    price = reward_price("lrew_e002")
    swept = str(sweep(unvalued, price, [0.0, 0.25])).splitlines()
    assert f"liability median: {WHY}" in swept
    same = what_if(unvalued, price.frames(unvalued, 0.25))
    assert re.search(rf"^  liability median +n/a +n/a +{re.escape(WHY)}$", str(same), re.M)


def test_an_override_of_every_owing_definition_values_the_liability_without_rewards(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """Stars at 1.0 and Gems at 2.4 (the values the rewards give) value all 1,700 points
    owed: without the rewards the liability is 1,980 as with them, and the return 2.5 %;
    earlier both read 'rewards not pulled'. Mispricing judges the rewards: still not
    pulled. An override of the Stars alone leaves the Gems to the rewards."""
    kinds = [k for k in FRAME_NAMES if k != "rewards"]
    with start_sandbox(what_if_program(), now=NOW) as sb, make_client(sb) as client:
        snapshot = ProgramSnapshot.pull(client, kinds=kinds, progress=False)
    summary = summarise(snapshot, override={STARS: 1.0, GEMS: 2.4})
    headline = summary.headline
    assert (headline["liability_median"], headline["unvalued_points"]) == (1980, 0)
    assert headline["highest_effective_return"] == 0.025
    assert summary.not_given == {"mispriced_rewards": "rewards not pulled"}
    partial = summarise(snapshot, override={STARS: 1.0})
    assert partial.headline["liability_median"] is None
    assert partial.not_given["liability_median"] == "rewards not pulled"


def test_each_card_definition_row_says_why_its_values_are_na(
    unvalued: ProgramSnapshot, tmp_path: Path
) -> None:
    """Earlier the point values, liability and return of a card definition were NA (or, of a
    snapshot without the rewards, the Stars' exchange ratio alone) with no word of why; the
    report's CSV rows, a what-if's card definitions (its page and Jupyter table) and a
    sweep's rows now carry the headline's words in a ``reason`` column."""
    summary = summarise(unvalued)
    write_economics_report(summary, tmp_path)
    for name in ("point_values", "liability"):
        rows = (tmp_path / f"{name}.csv").read_text().splitlines()
        assert rows[0].endswith(",reason") and all(
            r.endswith(",no point value observed") for r in rows[1:]
        ), rows
    returns = summary.effective_return.set_index("card_definition_id")["reason"]
    assert returns.to_dict() == {
        GEMS: "no point value observed",
        MILES: "no ACTIVE benefit earns points on spend",
        STARS: "no point value observed",
    }
    rewards = unvalued.rewards.copy()
    rewards.loc[rewards["id"] == "lrew_e001", "status"] = "ACTIVE"
    what = what_if(unvalued, {"rewards": rewards})
    reasons = what.card_definitions.set_index("card_definition_id")["reason"]
    assert reasons[STARS] == "before: no point value observed"
    assert reasons[GEMS] == "no point value observed"
    assert "<td>before: no point value observed</td>" in what._repr_html_()
    swept = sweep(unvalued, earn_rate(STARS), [0.02, 0.03]).frame
    assert swept["definition_reason"].tolist() == ["no point value observed"] * 2


def test_a_value_from_the_exchange_ratio_alone_says_the_rewards_were_not_pulled(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """Without the rewards the Stars' 0.02 a point is the exchange ratio alone (the rewards
    value it at 1.0): its row says so, as the headline does; an overridden row says nothing."""
    kinds = [k for k in FRAME_NAMES if k != "rewards"]
    with start_sandbox(what_if_program(), now=NOW) as sb, make_client(sb) as client:
        snapshot = ProgramSnapshot.pull(client, kinds=kinds, progress=False)
    values = summarise(snapshot).point_values.set_index("card_definition_id")
    assert (values.at[STARS, "median"], values.at[STARS, "reason"]) == (0.02, "rewards not pulled")
    owed = summarise(snapshot, override={GEMS: 2.4}).liability.set_index("card_definition_id")
    assert owed["reason"].isna().to_dict() == {STARS: False, MILES: False, GEMS: True}
    assert owed.at[STARS, "reason"] == "rewards not pulled"  # Gems overridden


def test_no_redemption_rate_is_not_a_liability_of_0(
    holding: ProgramSnapshot, pulled: ProgramSnapshot, tmp_path: Path
) -> None:
    """``redemption_rate=None`` with no history to estimate it from: earlier the headline
    said liability 0 (none owed) where 1,700 valued points are owed, every one of them
    unvalued, and the rate NaN, though each liability row said 'no redemption rate'. One
    rate values the whole program, so no card definition is valued without it."""
    summary = summarise(holding, redemption_rate=None)
    headline = summary.headline
    assert headline["liability_median"] is None
    assert summary.not_given == dict.fromkeys(("redemption_rate", *LIABILITY), "no redemption rate")
    assert headline["redemption_rate"] is None
    assert headline["unvalued_points"] == 0  # the Stars and Gems have a value per point
    assert (
        summary.liability.set_index("card_definition_id")["reason"][[STARS, GEMS]].tolist()
        == ["no redemption rate"] * 2
    )
    lines = dict(headline_lines(headline, summary.not_given))
    assert lines["liability median"] == "n/a (no redemption rate)"
    write_economics_report(summary, tmp_path)
    page = (tmp_path / "economics.html").read_text()
    assert page.count("<td>n/a (no redemption rate)</td>") == 4
    assert json.loads((tmp_path / "manifest.json").read_text())["not_given"] == summary.not_given
    what = what_if(holding, reward_price("lrew_e002").frames(holding, 0.25), redemption_rate=None)
    assert re.search(r"^  liability median +n/a +n/a +n/a \(no redemption rate\)$", str(what), re.M)
    unrated = Baseline(holding, redemption_rate=None)
    swept = str(sweep(unrated, reward_price("lrew_e002"), [0.0, 0.25]))
    assert "liability median: n/a (no redemption rate)" in swept.splitlines(), swept
    # No points owed (the program without cards): truly 0, rate or none.
    held = summarise(pulled, redemption_rate=None)
    assert held.headline["liability_median"] == 0 and "liability_median" not in held.not_given


def test_a_balance_left_unknown_says_so(
    holding: ProgramSnapshot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card's balance left empty (an edited cards frame, a snapshot's CSV cell): earlier
    the outstanding points and the liability read a bare n/a, the card definition's row had
    no reason, and the unvalued points (of the valued Stars) read n/a too."""
    cards = holding.cards.copy()
    cards.loc[cards["id"] == "lcrd_e0000001", "balance_points"] = pd.NA
    what = what_if(holding, {"cards": cards})
    after = re.escape("n/a (after: a card balance unknown)")
    assert re.search(rf"^  liability median +1,980 +n/a +{after}$", str(what), re.M), str(what)
    assert re.search(rf"^  outstanding points +1,700 +n/a +{after}$", str(what), re.M)
    summary = what.after
    assert summary.headline["unvalued_points"] == 0
    assert summary.liability.set_index("card_definition_id").at[STARS, "reason"] == (
        "a card balance unknown"
    )
    base, edited = tmp_path / "base", tmp_path / "edited"
    holding.to_csv(base)
    holding.to_csv(edited)
    frame = pd.read_csv(edited / "cards.csv", dtype=str, keep_default_na=False)
    frame.loc[frame["id"] == "lcrd_e0000001", "balance_points"] = ""
    frame.to_csv(edited / "cards.csv", index=False)
    argv = ["report", "economics", "--base", str(base), "--edited", str(edited)]
    assert main([*argv, "--out", str(tmp_path / "report")]) == 0
    printed = capsys.readouterr().out
    assert re.search(rf"^  liability median +1,980 +n/a +{after}$", printed, re.M), printed


def test_a_pending_bucket_left_unknown_says_so(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """A PENDING bucket's points left empty in an edit of the demo: earlier the pending
    points and the liability read a bare n/a."""
    with start_sandbox() as sb, make_client(sb) as client:
        demo = ProgramSnapshot.pull(client, kinds=list(FRAME_NAMES), progress=False)
    buckets = demo.pending_buckets.copy()
    buckets.loc[buckets.index[0], "points_total"] = pd.NA
    what = what_if(demo, {"pending_buckets": buckets})
    after = re.escape("n/a (after: a pending bucket's points unknown)")
    assert re.search(rf"^  pending points +[\d,]+ +n/a +{after}$", str(what), re.M), str(what)
    assert what.not_given["liability_median"] == "after: a pending bucket's points unknown"


def test_rewording_the_reasons_changes_no_figure(
    holding: ProgramSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which points are unvalued is decided by the point values, not by the ``reason``
    words: earlier ``unpriced`` compared them with 'a card balance unknown' and 'no
    redemption rate', so reworded reasons counted the valued Stars' and Gems' points as
    unvalued (n/a: a Stars balance unknown, where 0)."""
    cards = holding.cards.copy()
    cards.loc[cards["id"] == "lcrd_e0000001", "balance_points"] = pd.NA
    edited = edited_snapshot(holding, {"cards": cards})
    plain = summarise(edited, redemption_rate=None)
    worded = OWED.owed_reasons
    monkeypatch.setattr(OWED, "owed_reasons", lambda *a: worded(*a).str.upper())
    reworded = summarise(edited, redemption_rate=None)
    reasons = plain.liability.set_index("card_definition_id")["reason"]
    assert reasons[[STARS, GEMS]].tolist() == ["a card balance unknown", "no redemption rate"]
    again = reworded.liability.set_index("card_definition_id")["reason"]
    assert again[[STARS, GEMS]].tolist() == ["A CARD BALANCE UNKNOWN", "NO REDEMPTION RATE"]
    assert plain.headline["unvalued_points"] == 0  # the Stars and Gems have a value per point
    assert (reworded.headline, reworded.not_given) == (plain.headline, plain.not_given)
