"""The economics of a snapshot pulled with ``kinds=``: the points of a kind not pulled are
unknown, not 0, every headline figure counting a kind not pulled is None and says why
(``Economics.not_pulled``), and a sample of the cards alone (the pull the large-programs
page gives for points outstanding) is summarised and reported, pulled over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.economics import summarise
from lyt_toolkit.frames import FRAME_NAMES
from lyt_toolkit.reports.economics_report import headline_lines
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.synthetic import generate_program
from lyt_toolkit.whatif import reward_price, sweep, what_if
from lyt_toolkit.widgets._what_if_view import headline_html

from .programs import NOW, what_if_program

CARDS_ONLY = ["programs", "members", "cards"]
VALUED = ("liability_low", "liability_median", "liability_high", "unvalued_points")
"""The headline figures valuing the points owed by what a point is worth."""


@pytest.fixture(scope="module")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    program = generate_program(rewards=10, benefits=5, card_definitions=3, members=60, seed=4)
    with start_sandbox(program) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def full(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    with make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def cards(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    with make_client(sb) as client:
        return ProgramSnapshot.pull(client, kinds=CARDS_ONLY, progress=False)


def test_points_of_a_kind_not_pulled_are_unknown_not_zero(
    full: ProgramSnapshot, cards: ProgramSnapshot
) -> None:
    truth = summarise(full).headline
    assert truth["pending_points"]  # the program holds pending points
    headline = summarise(cards).headline
    assert headline["outstanding_points"] == truth["outstanding_points"]
    assert headline["pending_points"] is None  # not read: unknown, not 0
    assert headline["liability_median"] is None and headline["unvalued_points"] is None


def test_a_figure_counting_a_kind_not_pulled_is_none_and_says_why(
    full: ProgramSnapshot, cards: ProgramSnapshot, tmp_path: Path
) -> None:
    """Earlier the headline of the cards alone gave ``card_definitions`` 2 (those the cards
    name, of 3) and ``mispriced_rewards`` 0 (no reward pulled), counts that read as findings; only
    the report, given the kinds, printed them as not pulled."""
    summary = summarise(cards)
    headline = summary.headline
    assert headline["card_definitions"] is None
    assert headline["mispriced_rewards"] is None
    valued = "rewards, reward_costs, card_definitions, pending_buckets not pulled"
    assert summary.not_pulled == {
        "card_definitions": "card_definitions not pulled",
        "pending_points": "pending_buckets not pulled",
        "liability_low": valued,
        "liability_median": valued,
        "liability_high": valued,
        "unvalued_points": valued,
        "highest_effective_return": "rewards, reward_costs, benefits, card_definitions not pulled",
        "mispriced_rewards": "rewards, reward_costs, card_definitions not pulled",
    }
    assert all(headline[name] is None for name in summary.not_pulled)
    cards.to_csv(tmp_path / "cards")  # a --kinds folder read back keeps its kinds
    assert summarise(read_snapshot(tmp_path / "cards")).not_pulled == summary.not_pulled
    whole = summarise(full)
    assert whole.not_pulled == {}
    assert whole.headline["card_definitions"] == len(full.card_definitions) == 3
    assert whole.headline["pending_points"] is not None
    # Pulled whole, the generated program's points have no value observed: the liability
    # and the mispriced rewards say so, not 0 (tests/economics/test_not_observed.py).
    assert whole.not_given["liability_median"] == "no point value observed"


def test_a_sample_of_the_cards_alone_is_summarised_and_reported(
    sb: Sandbox,
    full: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with make_client(sb) as client:
        cards = ProgramSnapshot.pull(client, kinds=CARDS_ONLY, sample=20, progress=False)
    summary = summarise(cards)
    headline = summary.headline
    low, high = headline["outstanding_points_ci_low"], headline["outstanding_points_ci_high"]
    assert low is not None and high is not None and low <= high
    assert headline["pending_points"] is None and "pending_points_ci_low" not in headline
    assert summary.estimates is not None
    assert set(summary.estimates["figure"]) == {"outstanding_points"}
    cards.to_csv(tmp_path / "cards")
    out = tmp_path / "report"
    assert main(["report", "economics", "--base", str(tmp_path / "cards"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "outstanding points" in printed and "95 % CI" in printed
    assert "  pending points            n/a (pending_buckets not pulled)" in printed.splitlines()


@pytest.fixture(scope="module")
def owing(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    """The economics program with members holding cards, its figures computed by hand
    (``programs.what_if_program``)."""
    with start_sandbox(what_if_program(), now=NOW) as sandbox:
        yield sandbox


def _pull(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient], kinds: list[str] | None = None
) -> ProgramSnapshot:
    with make_client(sb) as client:
        return ProgramSnapshot.pull(client, kinds=kinds, progress=False)


@pytest.fixture(scope="module")
def owed(owing: Sandbox, make_client: Callable[..., LoyaltyClient]) -> dict[str, float | None]:
    """The headline of ``owing`` pulled whole."""
    return summarise(_pull(owing, make_client)).headline


def test_mispricing_without_the_card_definitions_is_none_not_0(
    owing: Sandbox, make_client: Callable[..., LoyaltyClient], owed: dict[str, float | None]
) -> None:
    """A cost is mispriced against its card definition's median value per point, one per
    card definition pulled: without them no median is known, and earlier the headline said 0
    mispriced rewards where the program has one (the old $20 voucher, 20 a point against 1)."""
    assert owed["mispriced_rewards"] == 1
    summary = summarise(_pull(owing, make_client, ["rewards", "reward_costs"]))
    assert summary.headline["mispriced_rewards"] is None
    assert summary.not_pulled["mispriced_rewards"] == "card_definitions not pulled"


def test_liability_and_return_without_the_rewards_are_none_and_say_why(
    owing: Sandbox, make_client: Callable[..., LoyaltyClient], owed: dict[str, float | None]
) -> None:
    """A point's value is observed from what the rewards' costs buy: without the rewards
    only the Stars' exchange ratio (0.02 a point) was left, and earlier the headline said a
    liability of 30 where the program owes 1,980 (Stars at 1.0, Gems at 2.4) and a highest
    return of 0.05 % where it is 2.5 %, with no word of the rewards."""
    assert (owed["liability_median"], owed["highest_effective_return"]) == (1980, 0.025)
    summary = summarise(_pull(owing, make_client, [k for k in FRAME_NAMES if k != "rewards"]))
    headline = summary.headline
    figures = (*VALUED, "highest_effective_return", "mispriced_rewards")
    assert {name: headline[name] for name in figures} == dict.fromkeys(figures)
    assert {name: summary.not_pulled[name] for name in figures} == dict.fromkeys(
        figures, "rewards not pulled"
    )
    assert headline["outstanding_points"] == owed["outstanding_points"] == 1700  # the cards'


def test_a_what_if_says_why_a_figure_is_na_in_the_headlines_words(
    owing: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Earlier the what-if of a snapshot pulled without the pending buckets printed the
    pending points and the liability as a bare n/a before, after and as the change, on the
    terminal, in Jupyter and in the what-if panel, and its sweep as well."""
    snapshot = _pull(owing, make_client, [k for k in FRAME_NAMES if k != "pending_buckets"])
    price = reward_price("lrew_e002")
    what = what_if(snapshot, price.frames(snapshot, 0.25))
    why = "n/a (pending_buckets not pulled)"
    text = str(what)
    for name in ("pending_points", *VALUED):
        label = name.replace("_", " ")
        assert re.search(rf"^  {label} +n/a +n/a +{re.escape(why)}$", text, re.M), text
    assert re.search(r"^  mispriced rewards +1 +1 +0$", text, re.M), text  # pulled: a figure
    assert what._repr_html_().count(f"<td>{why}</td>") == 5
    assert headline_html(what.headline, what.not_pulled).count(why) == 5
    headline = dict(headline_lines(what.before.headline, what.before.not_pulled))
    assert headline["liability median"] == why  # the headline's words
    assert what.not_pulled == what.before.not_pulled
    swept = str(sweep(snapshot, price, [0.0, 0.25])).splitlines()
    assert swept[-1] == f"liability median: {why}"
