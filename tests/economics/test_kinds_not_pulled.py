"""The economics of a snapshot pulled with ``kinds=``: the points of a kind not pulled are
unknown, not 0, and a sample of the cards alone (the pull the large-programs page gives for
points outstanding) is summarised and reported, pulled over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.economics import summarise
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

CARDS_ONLY = ["programs", "members", "cards"]


@pytest.fixture(scope="module")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    program = generate_program(rewards=10, benefits=5, card_definitions=3, members=60, seed=4)
    with start_sandbox(program) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def full(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    with make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


def test_points_of_a_kind_not_pulled_are_unknown_not_zero(
    sb: Sandbox, full: ProgramSnapshot, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(sb) as client:
        cards = ProgramSnapshot.pull(client, kinds=CARDS_ONLY, progress=False)
    truth = summarise(full).headline
    assert truth["pending_points"]  # the program holds pending points
    headline = summarise(cards).headline
    assert headline["outstanding_points"] == truth["outstanding_points"]
    assert headline["pending_points"] is None  # not read: unknown, not 0
    assert headline["liability_median"] is None and headline["unvalued_points"] is None


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
    assert "  pending points            n/a" in printed.splitlines()
