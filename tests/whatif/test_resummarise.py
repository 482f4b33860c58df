"""``resummarise`` after an edit of each kind gives, frame for frame, what ``summarise`` of
the edited snapshot gives: on the economics tests' programs (in memory, and over HTTP whole
and sampled) and on a small generated program. The speed-ups it takes (points owed kept
when only values change, the costs x rewards join kept when only points change, the edited
rows not lined up again) are checked here to change no figure."""

from __future__ import annotations

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from economics.conftest import snapshot_of
from economics.owed_program import owed_program, pull_program
from economics.programs import economics_program

from lyt_toolkit import ProgramSnapshot, Sample
from lyt_toolkit.economics import resummarise, summarise
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.whatif import Baseline, compare, earn_rate, reward_price
from lyt_toolkit.whatif.edited import changed_frames, edited_snapshot

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "economics.py"


def generated(rewards: int = 300, cards: int = 200, buckets: int = 300) -> ProgramSnapshot:
    """A generated program (``synthetic``) with cards and pending buckets, in memory: the
    ``snapshot`` of ``benchmarks/economics.py``."""
    snapshot: Callable[..., ProgramSnapshot] = runpy.run_path(str(BENCHMARK))["snapshot"]
    return snapshot(rewards, cards, buckets)


Edit = Callable[[ProgramSnapshot], dict[str, pd.DataFrame]]


def _every_other(frame: pd.DataFrame, column: str, change: Callable[[Any], Any]) -> pd.DataFrame:
    edited = frame.copy()
    rows = edited.index[::2]
    edited.loc[rows, column] = change(edited.loc[rows, column])
    return edited


def _earning(snapshot: ProgramSnapshot) -> str:
    """A card definition whose earn rate can be set."""
    for definition in snapshot.benefits["card_definition_id"].dropna().unique():
        try:
            earn_rate(str(definition)).current(snapshot)
        except ValueError:
            continue
        return str(definition)
    raise AssertionError("no earning card definition")


def _spent(snapshot: ProgramSnapshot) -> str:
    """The card definition most reward costs spend."""
    return str(snapshot.reward_costs["card_definition_id"].value_counts().index[0])


EDITS: dict[str, Edit] = {
    "rewards: gift voucher balances doubled": lambda s: {
        "rewards": _every_other(s.rewards, "digital_gift_voucher_balance", lambda c: c * 2)
    },
    "rewards: every other one inactive": lambda s: {
        "rewards": _every_other(s.rewards, "status", lambda c: "INACTIVE")
    },
    "reward_costs: one card definition's prices +20 %": lambda s: reward_price(
        card_definition_id=_spent(s)
    ).frames(s, 0.2),
    "reward_costs: every price x3": lambda s: {
        "reward_costs": _every_other(s.reward_costs, "points", lambda c: c * 3)
    },
    "reward_costs: a spending entry moved to another card definition": lambda s: {
        "reward_costs": _every_other(
            s.reward_costs, "card_definition_id", lambda c: s.card_definitions["id"].iloc[-1]
        )
    },
    "benefits: an earn rate doubled": lambda s: earn_rate(_earning(s)).frames(
        s, 2 * earn_rate(_earning(s)).current(s)
    ),
    "card_definitions: exchange ratios and names": lambda s: {
        "card_definitions": _every_other(
            _every_other(
                s.card_definitions, "pay_with_points_exchange_ratio", lambda c: "POINTS / 7"
            ),
            "name",
            lambda c: c + " (renamed)",
        )
    },
    "cards: balances +100": lambda s: {
        "cards": _every_other(s.cards, "balance_points", lambda c: c + 100)
    },
    "pending_buckets: points doubled": lambda s: {
        "pending_buckets": _every_other(s.pending_buckets, "points_total", lambda c: c * 2)
    },
}


@pytest.fixture(scope="module")
def programs(start_sandbox: Callable[..., Any], make_client: Callable[..., Any]) -> dict:
    owed = pull_program(start_sandbox, make_client, owed_program())
    return {
        "economics program": snapshot_of(economics_program()),
        "owed program (pulled)": owed,
        "owed program, sampled": owed.sampled(Sample(2, seed=1)),
        "generated": generated(),
    }


@pytest.fixture(scope="module")
def baselines(programs: dict) -> dict[str, Baseline]:
    """Each program's ``Baseline``, summarised once for the module: its ``economics`` is
    ``summarise`` of the program, and every test's edit is tried against it (reuse is what
    a baseline is for; the sweep test below checks nothing one edit leaves reaches the
    next)."""
    return {name: Baseline(snapshot) for name, snapshot in programs.items()}


def assert_same(again: Any, full: Any) -> None:
    """Two ``Economics`` equal frame for frame, and in their headline and members' shares."""
    assert again.frames().keys() == full.frames().keys()
    for name, frame in full.frames().items():
        pd.testing.assert_frame_equal(again.frames()[name], frame, obj=name)
    assert again.headline == full.headline
    if full.per_member is None:
        assert again.per_member is None
    else:
        pd.testing.assert_frame_equal(again.per_member, full.per_member)


PROGRAMS = ("economics program", "owed program (pulled)", "owed program, sampled", "generated")

NOTHING_TO_EDIT = {
    # The owed program has one card definition and no earning benefit.
    ("reward_costs: a spending entry moved to another card definition", "owed program (pulled)"),
    ("reward_costs: a spending entry moved to another card definition", "owed program, sampled"),
    ("benefits: an earn rate doubled", "owed program (pulled)"),
    ("benefits: an earn rate doubled", "owed program, sampled"),
    # The economics program has no members, so no cards and no pending buckets.
    ("cards: balances +100", "economics program"),
    ("pending_buckets: points doubled", "economics program"),
}
"""(edit, program) pairs not tested: the program holds nothing the edit could change."""


@pytest.mark.parametrize(
    ("edit", "program"),
    [(e, p) for e in EDITS for p in PROGRAMS if (e, p) not in NOTHING_TO_EDIT],
)
def test_resummarise_after_an_edit_is_summarise_of_the_edited_snapshot(
    programs: dict[str, ProgramSnapshot],
    baselines: dict[str, Baseline],
    program: str,
    edit: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Baseline.what_if`` resummarises the edit once (its call and answer are kept here,
    not made a second time) and that answer is ``summarise`` of the edited snapshot."""
    snapshot, baseline = programs[program], baselines[program]
    frames = EDITS[edit](snapshot)
    changed = changed_frames(snapshot, frames)
    assert changed, f"{edit} changes nothing of {program}"
    after = edited_snapshot(snapshot, changed)
    calls: list[tuple[Any, ...]] = []

    def kept(*args: Any, **kwargs: Any) -> Any:
        answer = resummarise(*args, **kwargs)
        calls.append((*args, kwargs, answer))
        return answer

    monkeypatch.setattr(compare, "resummarise", kept)
    what = baseline.what_if(frames)
    ((previous, edited, kinds, options, answer),) = calls
    assert previous is baseline.economics and kinds == set(changed)
    assert options == {"prices": None, "redemption_rate": 1.0, "override": None}
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(edited, name), getattr(after, name), obj=name)
    assert what.after is answer
    assert_same(answer, summarise(after))


def test_a_sweep_of_edits_from_one_baseline_matches_each_full_summary() -> None:
    """Edits one after another from one baseline: nothing one leaves behind (a kept join,
    kept points owed) reaches the next."""
    snapshot = generated(200, 100, 100)
    baseline = Baseline(snapshot)
    parameter = reward_price(card_definition_id=_spent(snapshot))
    for change in np.linspace(-0.3, 0.3, 5):
        frames = parameter.frames(snapshot, float(change))
        after = edited_snapshot(snapshot, changed_frames(snapshot, frames))
        assert_same(baseline.what_if(frames).after, summarise(after))


def test_the_mispricing_that_changes_reads_each_sides_burn_values(
    programs: dict[str, ProgramSnapshot], baselines: dict[str, Baseline]
) -> None:
    """``WhatIf.mispricing`` (matched on the few rewards that change): each row's points,
    value per point, median and ratio are those of its spending entry on either side. (The
    module's generated program and its baseline: ``generated()``, summarised once.)"""
    snapshot = programs["generated"]
    frames = {"reward_costs": _every_other(snapshot.reward_costs, "points", lambda c: c * 10)}
    what = baselines["generated"].what_if(frames)
    moved = what.mispricing
    assert len(moved) and set(moved["change"]) >= {"appeared"}
    key = ["reward_id", "cost_id", "spending_index"]
    for side, economics in (("before", what.before), ("after", what.after)):
        burn = economics.burn_values.drop_duplicates(key).set_index(key)
        medians = economics.point_values.set_index("card_definition_id")["median"]
        for _, row in moved.iterrows():
            cost = burn.loc[tuple(row[key])]
            median = medians[cost["card_definition_id"]]
            assert row[f"points_{side}"] == cost["points"]
            assert row[f"value_per_point_{side}"] == cost["value_per_point"]
            assert row[f"median_{side}"] == median
            assert row[f"ratio_{side}"] == pytest.approx(cost["value_per_point"] / median)
