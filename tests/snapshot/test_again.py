"""``again_calls``, the calls of pulling a snapshot's kinds and sample again, counted from the
snapshot alone, against the calls such a pull sends to the sandbox.

The snapshots are saved and read back, as a base read from its folder is: they keep no
``calls`` of their own pull, so the count is the snapshot's data alone.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, Sample
from lyt_toolkit.pull.window_cost import windowed_calls
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.snapshot.again import again_calls, again_sample
from lyt_toolkit.snapshot.cost import pages
from lyt_toolkit.synthetic import generate_program

MakeClient = Callable[..., LoyaltyClient]

MEMBERS = 4_500
"""One program's members: a list long enough for its ``created_at`` windows to split (a
window splits once it has read 21 pages with as many left), so that the pull walks it in a
call or two more than its 45 pages."""

BUCKETS = 150
"""The pending buckets of one card: two pages of its bucket list."""


@pytest.fixture(scope="module")
def large(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """The program of ``MEMBERS`` members (generated here, not on import: every worker
    collects this file, few run it)."""
    program = generate_program(
        members=MEMBERS, rewards=5, benefits=2, card_definitions=2, tier_structures=1, seed=5
    )
    with start_sandbox(program, now=program["now"]) as sb:
        yield sb


def _saved(snapshot: ProgramSnapshot, folder: Path) -> ProgramSnapshot:
    """``snapshot`` saved as Parquet and read back: its data, not what its pull sent."""
    snapshot.to_parquet(folder)
    saved = read_snapshot(folder)
    assert saved.calls is None
    return saved


def _sent_again(sb: Sandbox, make_client: MakeClient, snapshot: ProgramSnapshot) -> int:
    """The calls a pull of ``snapshot``'s kinds and sample again sends to ``sb``."""
    used = sb.plan()["used"]
    with make_client(sb) as client:
        kinds, sample = snapshot.kinds, again_sample(snapshot)
        ProgramSnapshot.pull(client, progress=False, kinds=kinds, sample=sample)
    return int(sb.plan()["used"] - used)


@pytest.mark.parametrize(
    ("kinds", "sample"),
    [(("programs", "members"), None), (None, 20)],
    ids=["whole", "sampled"],
)
def test_again_calls_count_the_member_list_as_the_pull_walks_it_in_windows(
    large: Sandbox,
    make_client: MakeClient,
    tmp_path: Path,
    kinds: tuple[str, ...] | None,
    sample: int | None,
) -> None:
    with make_client(large) as client:
        pulled = ProgramSnapshot.pull(client, progress=False, kinds=kinds, sample=sample)
    snapshot = _saved(pulled, tmp_path / "saved")
    members = snapshot.members.to_dict("records")
    assert len(members) == MEMBERS
    assert windowed_calls(members) > pages(MEMBERS, 100)  # the windows split
    assert again_calls(snapshot) == _sent_again(large, make_client, snapshot)


def test_a_sampled_snapshot_is_pulled_again_with_its_whole_design(
    large: Sandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """Join bands and allocation not the defaults, and fewer members asked than drawn (each
    stratum gets two): the pull again draws the very sample, for the calls counted."""
    asked = Sample(15, seed=3, bands=5, allocation="tenure")
    with make_client(large) as client:
        pulled = ProgramSnapshot.pull(client, progress=False, sample=asked)
    snapshot = _saved(pulled, tmp_path / "saved")
    assert snapshot.sample is not None and snapshot.sample.size > asked.n
    assert again_sample(snapshot) == asked
    used = large.plan()["used"]
    with make_client(large) as client:
        again = ProgramSnapshot.pull(client, progress=False, sample=again_sample(snapshot))
    assert again_calls(snapshot) == large.plan()["used"] - used
    assert again.sample is not None and again.sample.drawn_by == asked
    pd.testing.assert_frame_equal(again.sample.strata, snapshot.sample.strata)
    pd.testing.assert_frame_equal(again.sample.units, snapshot.sample.units)


def test_again_calls_count_a_card_definition_read_by_id_that_answers_404(
    start_sandbox: StartSandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """The demo program points at a card definition it lacks: the pull reads it by ID
    (404) and holds no row of it, only references marked not found."""
    with start_sandbox() as sb:
        with make_client(sb) as client:
            pulled = ProgramSnapshot.pull(client, progress=False)
        snapshot = _saved(pulled, tmp_path / "saved")
        costs = snapshot.reward_costs
        missing = set(costs.loc[costs["card_definition_found"] == False, "card_definition_id"])  # noqa: E712
        assert missing and not missing & set(snapshot.card_definitions["id"])
        assert again_calls(snapshot) == _sent_again(sb, make_client, snapshot)


def _one_card_of_many_buckets() -> dict[str, Any]:
    """A small generated program whose first card holds ``BUCKETS`` pending buckets."""
    program = generate_program(
        members=5, rewards=2, benefits=1, card_definitions=2, tier_structures=1, seed=8
    )
    card, template = program["cards"][0], program["pending_buckets"][0]
    buckets = [
        {
            **copy.deepcopy(template),
            "id": f"lcppb_ff{n:014x}",
            "card_id": card["id"],
            "member_id": card["member_id"],
            "program_id": card["program_id"],
            "card_definition_id": card["card_definition_id"],
            "card_type": card["card_type"],
        }
        for n in range(BUCKETS)
    ]
    others = [b for b in program["pending_buckets"] if b["card_id"] != card["id"]]
    program["pending_buckets"] = others + buckets
    card["balance"]["pending_points"] = sum(b["points"]["total"] for b in buckets)
    return program


def test_again_calls_count_every_page_of_a_cards_bucket_list(
    start_sandbox: StartSandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    program = _one_card_of_many_buckets()
    with start_sandbox(program, now=program["now"]) as sb:
        with make_client(sb) as client:
            pulled = ProgramSnapshot.pull(client, progress=False)
        snapshot = _saved(pulled, tmp_path / "saved")
        assert (snapshot.pending_buckets["card_id"] == program["cards"][0]["id"]).sum() == BUCKETS
        assert again_calls(snapshot) == _sent_again(sb, make_client, snapshot)
