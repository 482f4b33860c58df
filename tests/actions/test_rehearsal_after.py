"""A rehearsal reads again only the member trees its run wrote to: its ``after`` is, frame for
frame (dtypes and categories included), what a full pull of its sandbox gives, on a generated
program of two programs, members with two cards, and a deleted card definition only cards
point at."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import httpx
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit import actions
from lyt_toolkit.actions import rehearsal as rehearsal_module
from lyt_toolkit.actions.rehearsal import Rehearsal, rehearse_run
from lyt_toolkit.actions.written import WrittenMembers
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import APIError
from lyt_toolkit.fill.refresh_merge import member_rows
from lyt_toolkit.fill.repull import _as_built
from lyt_toolkit.frames.registry import FRAME_NAMES, SCHEMAS
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program

from .helpers import benefit_rows

Plan = actions.ActionPlan[Any]
Seen = list[tuple[frozenset[str] | None, ProgramSnapshot]]

DELETED_DEFINITION = "lcdef_0dd000000001"
"""Deleted, so no list shows it: a pull reads it by ID because the second cards of members
no plan here writes to, and nothing else, point at it."""

UNKNOWN_MEMBER = "lmbr_0dd0000000ff"
"""A member the snapshot does not hold."""


def _program() -> dict[str, Any]:
    """A generated program of 100 members over two programs (three times the 31 members a
    plan here names, so that reading every member again shows); a few members hold a second
    card with two buckets, one of them dated in the past (423 when activated)."""
    program = generate_program(
        members=100, programs=2, rewards=120, benefits=120, pending_buckets=300, seed=11
    )
    program.pop("now", None)
    deleted = {**program["card_definitions"][0], "id": DELETED_DEFINITION, "status": "DELETED"}
    program["card_definitions"].append({**deleted, "name": "Deleted card"})
    for n, member in enumerate(program["members"][::20], start=1):
        card = f"lcrd_0dd{n:09x}"
        definition = "lcdef_000b000000000001" if n == 1 else DELETED_DEFINITION
        base = {"program_id": member["program_id"], "member_id": member["id"], "updated_at": None}
        program["cards"].append(
            {
                **base,
                "id": card,
                "card_definition_id": definition,
                "card_type": "INDIVIDUAL",
                "code": f"TWO-{n:04d}",
                "member_role": "OWNER",
                "balance": {"points": 10 * n, "pending_points": 30 + n},
                "created_at": "now-3d",
            }
        )
        for i, (points, date) in enumerate([(30, "now+20d"), (n, "now-1d")]):
            program["pending_buckets"].append(
                {
                    **base,
                    "id": f"lcppb_0dd{n:07x}{i:02x}",
                    "card_id": card,
                    "card_definition_id": definition,
                    "card_type": "INDIVIDUAL",
                    "points": {"total": points},
                    "date": date,
                    "type": "PERIOD_BASED",
                    "status": "PENDING",
                    "created_at": f"now-{i + 1}h",
                }
            )
    return program


@pytest.fixture(scope="module")
def snapshot(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> Iterator[ProgramSnapshot]:
    with start_sandbox(_program()) as production, make_client(production) as client:
        yield ProgramSnapshot.pull(client, progress=False)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    """Each rehearsal's members read again, and a full pull of its sandbox taken right after
    its own read."""
    found: Seen = []
    fast = rehearsal_module.repull

    def read_twice(
        snapshot: ProgramSnapshot, client: LoyaltyClient, changed: Any, **options: Any
    ) -> ProgramSnapshot:
        after = fast(snapshot, client, changed, **options)
        found.append((changed, ProgramSnapshot.pull(client, progress=False, kinds=snapshot.kinds)))
        return after

    monkeypatch.setattr(rehearsal_module, "repull", read_twice)
    return found


def _as_fully_pulled(rehearsal: Rehearsal, full: ProgramSnapshot) -> None:
    after = rehearsal.after
    assert after.kinds == full.kinds and after.sample is None
    for kind in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(after, kind), getattr(full, kind), obj=kind)
    pd.testing.assert_frame_equal(rehearsal.diff.changes, rehearsal.snapshot.diff(full).changes)
    assert sorted(map(repr, after.odd)) == sorted(map(repr, full.odd))
    for kind in FRAME_NAMES:  # a frame read again or copied keeps the tuple a pull gives
        assert isinstance(getattr(after, kind).attrs["odd_values"], tuple), kind


def _buckets(snapshot: ProgramSnapshot, ids: list[str]) -> pd.DataFrame:
    frame = snapshot.pending_buckets
    return frame[frame.id.isin(ids)].rename(columns={"id": "bucket_id"})


def _activations(snapshot: ProgramSnapshot) -> Plan:
    """Buckets of 30 members, every bucket of a two-card member's second card (one dated in
    the past: 423), and a bucket of a member the snapshot does not hold (404)."""
    buckets = snapshot.pending_buckets
    two_cards = buckets.member_id[buckets.id.str.startswith("lcppb_0dd")]
    some = list(buckets.id[~buckets.member_id.isin(two_cards)][::10][:30])
    rows = _buckets(snapshot, [*some, "lcppb_0dd000000100", "lcppb_0dd000000101"])
    stranger = rows.iloc[:1].assign(member_id=UNKNOWN_MEMBER, bucket_id="lcppb_0dd0000ff00")
    return actions.activate_pending_buckets(pd.concat([rows, stranger]))


def _members(plan: Plan) -> set[str]:
    """The members the plan's items name."""
    return {item.payload[1] for item in plan.items if item.payload is not None}


def _one_after_another(plans: list[Plan]) -> Callable[[LoyaltyClient, Any], pd.DataFrame]:
    def run(client: LoyaltyClient, log: Any) -> pd.DataFrame:
        return pd.concat([p.execute(client, concurrency=4, progress=False) for p in plans])

    return run


def test_activations_read_again_only_the_members_they_name(
    snapshot: ProgramSnapshot, seen: Seen
) -> None:
    plan = _activations(snapshot)
    rehearsal = plan.rehearse(snapshot, concurrency=4, progress=False)
    assert set(rehearsal.results.outcome) == {"succeeded", "failed"}
    [(changed, full)] = seen
    assert changed == _members(plan)
    assert UNKNOWN_MEMBER in changed
    _as_fully_pulled(rehearsal, full)
    assert len(rehearsal.diff) > 0
    assert DELETED_DEFINITION in set(rehearsal.after.card_definitions.id)
    # A full pull reads each of the 100 members and lists each card holding pending points.
    assert rehearsal.after.calls is not None and full.calls is not None
    assert full.calls.used - rehearsal.after.calls.used > len(snapshot.members)


def test_every_plan_kind_at_once_reads_again_only_the_activations_members(
    snapshot: ProgramSnapshot, seen: Seen
) -> None:
    project = "proj_Synth000b"
    plans: list[Plan] = [
        actions.create_benefits(benefit_rows("Rehearsed", 3, "lcdef_000b000000000001")),
        actions.move_rewards_to_draft(list(snapshot.rewards.id[:4])),
        actions.delete_tier_structures(list(snapshot.tier_structures.id[:2])),
        actions.delete_webhooks([(project, "wh_Rehearsed01")]),
        _activations(snapshot),
    ]
    rehearsal = rehearse_run("mixed", plans, snapshot, _one_after_another(plans), progress=False)
    [(changed, full)] = seen
    assert changed == _members(plans[-1])
    _as_fully_pulled(rehearsal, full)
    assert set(rehearsal.diff.changes.kind) >= {
        "benefits",
        "rewards",
        "tier_structures",
        "cards",
        "pending_buckets",
    }


def test_a_plan_writing_no_member_tree_reads_no_member(
    snapshot: ProgramSnapshot, seen: Seen
) -> None:
    plans: list[Plan] = [
        actions.move_rewards_to_draft(list(snapshot.rewards.id[4:6])),
        actions.delete_tier_structures(list(snapshot.tier_structures.id[2:3])),
    ]
    rehearsal = rehearse_run("lists", plans, snapshot, _one_after_another(plans), progress=False)
    [(changed, full)] = seen
    assert changed == frozenset()
    _as_fully_pulled(rehearsal, full)
    holding = int((snapshot.cards.balance_pending_points != 0).sum())
    assert rehearsal.after.calls is not None and full.calls is not None
    assert full.calls.used - rehearsal.after.calls.used == len(snapshot.members) + holding


def test_a_write_naming_no_member_and_no_list_reads_every_member(
    snapshot: ProgramSnapshot, seen: Seen
) -> None:
    program = str(snapshot.programs.id[0])

    def run(client: LoyaltyClient, log: Any) -> pd.DataFrame:
        with pytest.raises(APIError):  # no such route: it might have written any tree
            client.request("POST", f"/v2/loyalties/programs/{program}/members", json={})
        return actions.delete_tier_structures([]).execute(client, progress=False)

    rehearsal = rehearse_run("unknown", [], snapshot, run, progress=False)
    [(changed, full)] = seen
    assert changed is None
    _as_fully_pulled(rehearsal, full)
    assert rehearsal.after.calls is not None and full.calls is not None
    assert rehearsal.after.calls.used == full.calls.used


class _SeedsACard:
    """A plan kind whose rehearsal adds a card to a member the snapshot holds."""

    action = "seed"
    rehearsal_kinds: frozenset[str] = frozenset()

    def __init__(self, snapshot: ProgramSnapshot) -> None:
        self.member = snapshot.members.iloc[7]

    def seed_rehearsal(self, program: dict[str, Any], at: pd.Timestamp) -> None:
        program["cards"].append(
            {
                "id": "lcrd_5eed00000001",
                "program_id": str(self.member.program_id),
                "member_id": str(self.member.id),
                "card_definition_id": "lcdef_000b000000000001",
                "card_type": "INDIVIDUAL",
                "code": "SEEDED-1",
                "member_role": "OWNER",
                "balance": {"points": 5, "pending_points": 0},
                "created_at": "2026-01-10T00:00:00.000Z",
                "updated_at": None,
            }
        )


def test_a_member_tree_a_plan_seeds_is_read_again(snapshot: ProgramSnapshot, seen: Seen) -> None:
    seeds = _SeedsACard(snapshot)
    rehearsal = rehearse_run(
        "seed",
        [seeds],
        snapshot,
        _one_after_another([actions.delete_tier_structures([])]),
        progress=False,
    )
    [(changed, full)] = seen
    assert changed == {seeds.member.id}
    _as_fully_pulled(rehearsal, full)
    assert "lcrd_5eed00000001" in set(rehearsal.after.cards.id)


@pytest.mark.parametrize(
    ("method", "path", "members"),
    [
        ("GET", "/v2/loyalties/programs/p/members/m1", set()),
        ("POST", "/v2/loyalties/programs/p/members/m1/cards/c/pending-points/b/activate", {"m1"}),
        ("PATCH", "/v2/loyalties/programs/p/members/m2", {"m2"}),
        ("POST", "/oauth/token", set()),
        ("POST", "/v2/loyalties/rewards/r/draft", set()),
        ("POST", "/v2/loyalties/benefits", set()),
        ("DELETE", "/v2/loyalties/tier-structures/t", set()),
        ("DELETE", "/management/v1/projects/p/webhooks/w", set()),
        ("POST", "/v1/promotions/tiers/t/validation", set()),
        ("POST", "/v2/loyalties/programs/p/members", None),
        ("PUT", "/v2/loyalties/card-definitions/d", None),
    ],
)
def test_the_members_a_request_writes_to_are_read_from_its_path(
    method: str, path: str, members: set[str] | None
) -> None:
    written = WrittenMembers()
    written(httpx.Request(method, f"http://127.0.0.1:8000{path}"))
    assert written.members == (None if members is None else frozenset(members))


def _built(frame: pd.DataFrame, kind: str, column: str) -> pd.DataFrame:
    """``frame`` with the categories of ``column`` as a builder gives them for its rows."""
    values = frame[column].astype(object).tolist()
    built = frame.assign(**{column: SCHEMAS[kind].by_name[column].array(values)})
    return built.reset_index(drop=True)


@settings(max_examples=25)
@given(data=st.data())
def test_copied_and_read_rows_are_put_as_a_pull_builds_them(
    snapshot: ProgramSnapshot, data: st.DataObject
) -> None:
    """Whichever members are read again, in whatever order the old snapshot held the copied
    members' rows, and with values outside the declared categories read now in some rows and
    then in others, the rows come out as a pull builds them."""
    members = snapshot.members.id
    for kind, column in (("cards", "card_type"), ("pending_buckets", "type")):
        frame = getattr(snapshot, kind)
        rows = st.integers(0, len(frame) - 1)
        odd = data.draw(st.lists(rows, min_size=2, max_size=2, unique=True), label="odd rows")
        values = frame[column].astype(object).tolist()
        values[odd[0]], values[odd[1]] = "ODD_A", "ODD_B"
        whole = _built(frame.assign(**{column: values}), kind, column)
        read = data.draw(st.sets(st.sampled_from(list(members))), label="read")
        is_read = whole.member_id.isin(read).to_numpy(bool)
        then = whole.assign(**{column: whole[column].astype(object).where(~is_read, "ODD_THEN")})
        order = pd.Series(data.draw(st.permutations(list(members)), label="old order"))
        old = _built(member_rows(then, then[:0], order), kind, column)
        kept = old[~old.member_id.isin(read).to_numpy(bool)]
        fresh = _built(whole[is_read], kind, column)
        spliced = _as_built(member_rows(kept, fresh, members), SCHEMAS[kind])
        pd.testing.assert_frame_equal(spliced, whole, obj=kind)
