"""``ProgramSnapshot.refresh``: a snapshot brought up to date by what is new, over real HTTP.

The old snapshot is pulled from one sandbox; the program then changes (new rewards and
members, some created at exactly the old snapshot's newest ``created_at`` and some inside
the overlap, a card definition edited, a benefit and a card definition deleted, an old
member's balance changed) and is served by a second sandbox on the same fixed clock, where
the refresh is compared with a full pull of it.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import httpx
import pandas as pd
import pytest
from fixture_types import StartSandbox
from shared_tls import TLS

from lyt_toolkit import AsyncLoyaltyClient, ProgramSnapshot
from lyt_toolkit._services import forget_local
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import PullBudgetError
from lyt_toolkit.fill import refresh_plan
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.frames.sample import Sample
from lyt_toolkit.pull.threaded import ThreadedClient
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.server import free_port
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.synthetic import generate_program

from .helpers import pull

CHANGED = 2
"""The old member card whose balance changes in the new program (its place in the file)."""


def _iso(stamp: pd.Timestamp) -> str:
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _reward(program: dict[str, Any], n: int, created_at: str) -> dict[str, Any]:
    reward = copy.deepcopy(program["rewards"][0])
    reward["id"] = f"lrew_ff{n:014x}"
    reward["name"] = f"New reward {n}"
    reward["created_at"] = created_at
    for cost in reward["costs"]:
        cost["id"] = f"lrcst_ff{n:014x}"
        for i, spending in enumerate(cost["spending"]):
            spending["id"] = f"lrspn_ff{n:012x}{i:02x}"
    return reward


def _member(program: dict[str, Any], n: int, created_at: str) -> None:
    """A new member (its customer and one card; an odd ``n``'s card holds pending points, in
    a PENDING bucket like one of its card definition's)."""
    member = copy.deepcopy(program["members"][0])
    customer = copy.deepcopy(
        next(c for c in program["customers"] if c["id"] == member["customer_id"])
    )
    card = copy.deepcopy(next(c for c in program["cards"] if c["member_id"] == member["id"]))
    customer.update(
        id=f"cust_New{n:010d}", source_id=f"new-customer-{n}", email=f"new{n}@example.com"
    )
    member.update(id=f"lmbr_ff{n:014x}", customer_id=customer["id"], created_at=created_at)
    card.update(
        id=f"lcrd_ff{n:014x}",
        member_id=member["id"],
        code=f"NEW-{n:08d}",
        created_at=created_at,
        balance={"points": 100 * n, "pending_points": 0},
    )
    if n % 2:
        bucket = copy.deepcopy(
            next(
                b
                for b in program["pending_buckets"]
                if b["card_definition_id"] == card["card_definition_id"]
                and b["status"] == "PENDING"
            )
        )
        bucket.update(
            id=f"lcppb_ff{n:014x}",
            card_id=card["id"],
            member_id=member["id"],
            created_at=created_at,
        )
        card["balance"]["pending_points"] = bucket["points"]["total"]
        program["pending_buckets"].append(bucket)
    program["customers"].append(customer)
    program["members"].append(member)
    program["cards"].append(card)


@pytest.fixture(scope="module")
def before() -> dict[str, Any]:
    program = generate_program(
        rewards=12, benefits=6, card_definitions=3, tier_structures=2, members=80, seed=21
    )
    spare = copy.deepcopy(program["card_definitions"][0])
    spare.update(id="lcdef_00000000000000ee", name="Spare card, deleted later")
    program["card_definitions"].append(spare)
    return program


@pytest.fixture(scope="module")
def old(start_sandbox: StartSandbox, before: dict[str, Any]) -> ProgramSnapshot:
    with start_sandbox(before) as sb:
        return pull(sb)


@pytest.fixture(scope="module")
def after(before: dict[str, Any], old: ProgramSnapshot) -> dict[str, Any]:
    """The program changed: what a refresh must find, and what it cannot."""
    program = copy.deepcopy(before)
    newest_reward = old.rewards["created_at"].max()
    newest_member = old.members["created_at"].max()
    inside = pd.Timedelta(minutes=1)
    program["rewards"] += [
        _reward(program, 1, _iso(newest_reward)),  # exactly the old newest: $after is strict
        _reward(program, 2, _iso(newest_reward - inside)),
        _reward(program, 3, "now-1s"),
    ]
    _member(program, 1, _iso(newest_member))
    _member(program, 2, _iso(newest_member - inside))
    _member(program, 3, "now-2s")
    definition = program["card_definitions"][1]
    definition.update(name="Renamed card", updated_at="now-1s")
    program["card_definitions"] = [
        d for d in program["card_definitions"] if d["id"] != "lcdef_00000000000000ee"
    ]
    gone = program["benefits"].pop()["id"]
    assert gone in set(old.benefits["id"])
    card = program["cards"][CHANGED]
    card["balance"] = {**card["balance"], "points": card["balance"]["points"] + 5}
    return program


@pytest.fixture(scope="module")
def full_after(start_sandbox: StartSandbox, after: dict[str, Any]) -> ProgramSnapshot:
    with start_sandbox(after) as sb:
        return pull(sb)


def _refresh(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    program: dict[str, Any],
    old: ProgramSnapshot,
    **kwargs: Any,
) -> ProgramSnapshot:
    with start_sandbox(program) as sb, make_client(sb) as client:
        return old.refresh(client, progress=False, **kwargs)


def test_new_objects_at_the_boundary_and_in_the_overlap_are_found_once(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
) -> None:
    refreshed = _refresh(start_sandbox, make_client, after, old)
    new_rewards = {f"lrew_ff{n:014x}" for n in (1, 2, 3)}
    new_members = {f"lmbr_ff{n:014x}" for n in (1, 2, 3)}
    assert new_rewards <= set(refreshed.rewards["id"])
    assert new_members <= set(refreshed.members["id"])
    for frame in (refreshed.rewards, refreshed.members, refreshed.cards):
        assert frame["id"].is_unique
    assert len(refreshed.rewards) == len(old.rewards) + 3
    assert len(refreshed.members) == len(old.members) + 3
    assert set(refreshed.cards["member_id"]) == set(refreshed.members["id"])


def test_without_an_overlap_the_strict_filter_misses_the_boundary(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
) -> None:
    refreshed = _refresh(start_sandbox, make_client, after, old, overlap=pd.Timedelta(0))
    found = set(refreshed.rewards["id"]) - set(old.rewards["id"])
    assert found == {f"lrew_ff{3:014x}"}  # the one at exactly the newest is not after it


def test_members_all_equals_a_full_pull_frame_for_frame(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
) -> None:
    refreshed = _refresh(start_sandbox, make_client, after, old, members="all")
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(refreshed, name), getattr(full_after, name))
    assert refreshed.pulled_at == full_after.pulled_at
    assert set(refreshed.read_at.values()) == {refreshed.pulled_at}


def test_a_refresh_with_a_checkpoint_is_resumable_and_gives_the_same_snapshot(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
    tmp_path: Path,
) -> None:
    folder = tmp_path / "refresh-checkpoint"
    with start_sandbox(after) as sb:
        with make_client(sb) as client:
            kept = old.refresh(client, progress=False, members="all", checkpoint=folder)
        with make_client(sb) as client:
            again = old.refresh(client, progress=False, members="all", checkpoint=folder)
            assert client.quota.calls_used == 0  # every answer from the folder
        with make_client(sb) as client, pytest.raises(ValueError, match="holds another pull"):
            old.refresh(client, progress=False, members="new", checkpoint=folder)
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(kept, name), getattr(full_after, name))
        pd.testing.assert_frame_equal(getattr(again, name), getattr(full_after, name))
    assert kept.calls is not None
    assert again.calls is not None and again.calls.recalled == kept.calls.used - 1


def test_a_refresh_checkpoint_of_a_sandbox_served_elsewhere_is_its_holder_s(
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    tmp_path: Path,
) -> None:
    """Served from another process (not named here), the sandbox is told by what it says it
    holds: restarted on its port with another seed, its refresh's folder is refused."""
    folder, port = tmp_path / "refresh-checkpoint", free_port()

    def served(seed: int) -> Sandbox:
        sb = Sandbox.start(after, port=port, now="2026-01-15T12:00:00Z", seed=seed)
        forget_local(sb.base_url)
        return sb

    with served(7) as sb, make_client(sb) as client:
        old.refresh(client, progress=False, members="all", checkpoint=folder)
    assert ", seed 7," in json.loads((folder / "checkpoint.json").read_text())["pull"]["holds"]
    with (
        served(8) as sb,
        make_client(sb) as client,
        pytest.raises(ValueError, match=r"holds: '.*seed 7.*' there, '.*seed 8.*' now"),
    ):
        old.refresh(client, progress=False, members="all", checkpoint=folder)


def test_members_new_differs_from_a_full_pull_only_in_old_members_balances(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
) -> None:
    changed = after["cards"][CHANGED]["id"]
    refreshed = _refresh(start_sandbox, make_client, after, old, members="new")
    for name in FRAME_NAMES:
        if name != "cards":
            pd.testing.assert_frame_equal(getattr(refreshed, name), getattr(full_after, name))
    stale = refreshed.cards.set_index("id")
    live = full_after.cards.set_index("id")
    assert list(stale.index) == list(live.index)
    differs = (stale != live).any(axis=1)
    assert list(differs[differs].index) == [changed]
    assert stale.loc[changed, "balance_points"] + 5 == live.loc[changed, "balance_points"]
    # The old members' cards are as old as the old snapshot; the re-read lists are new.
    assert refreshed.read_at["cards"] == old.pulled_at
    assert refreshed.read_at["card_definitions"] == refreshed.pulled_at


def test_edits_deletions_and_the_read_times_survive_export(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    before: dict[str, Any],
    old: ProgramSnapshot,
    after: dict[str, Any],
    tmp_path: Path,
) -> None:
    hour = pd.Timedelta(hours=1)  # the old snapshot as if pulled an hour before
    older = replace(
        old, pulled_at=old.pulled_at - hour, read_at={k: t - hour for k, t in old.read_at.items()}
    )
    refreshed = _refresh(start_sandbox, make_client, after, older, members="none")
    definitions = refreshed.card_definitions.set_index("id")
    assert "lcdef_00000000000000ee" not in definitions.index  # deleted
    assert definitions.loc[after["card_definitions"][1]["id"], "name"] == "Renamed card"
    gone = before["benefits"][-1]["id"]
    assert gone in set(old.benefits["id"])
    assert set(refreshed.benefits["id"]) == set(old.benefits["id"]) - {gone}
    # members="none": the new members are listed, not read.
    assert len(refreshed.members) == len(old.members) + 3
    pd.testing.assert_frame_equal(refreshed.cards, old.cards)
    refreshed.to_csv(tmp_path / "csv")
    refreshed.to_parquet(tmp_path / "parquet")
    for folder in ("csv", "parquet"):
        back = read_snapshot(tmp_path / folder)
        assert back.read_at == refreshed.read_at
    assert refreshed.read_at["members"] == older.read_at["members"] != refreshed.pulled_at
    assert refreshed.read_at["benefits"] == refreshed.pulled_at
    assert refreshed.read_at["rewards"] == older.pulled_at
    manifest = tmp_path / "csv" / "manifest.json"
    written = json.loads(manifest.read_text(encoding="utf-8"))
    written["read_at"]["rewards"] = "yesterday"
    manifest.write_text(json.dumps(written), encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=r"read_at\.rewards: 'yesterday' is not an ISO"):
        read_snapshot(tmp_path / "csv")


def test_card_definition_edits_are_found_by_updated_at_in_a_long_list(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    monkeypatch: pytest.MonkeyPatch,
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
) -> None:
    monkeypatch.setattr(refresh_plan, "WHOLE_PAGES", 0)  # every list counts as long
    refreshed = _refresh(start_sandbox, make_client, after, old, members="none")
    renamed = after["card_definitions"][1]["id"]
    names = refreshed.card_definitions.set_index("id")["name"]
    assert names[renamed] == "Renamed card"
    live = full_after.card_definitions
    kept = refreshed.card_definitions[refreshed.card_definitions["id"].isin(live["id"])]
    pd.testing.assert_frame_equal(kept.reset_index(drop=True), live)
    # A long list is read by date: what was deleted from it cannot be seen.
    assert "lcdef_00000000000000ee" in set(refreshed.card_definitions["id"])
    assert set(refreshed.benefits["id"]) == set(old.benefits["id"])


@pytest.mark.parametrize("members", ["new", "all", "none"])
def test_the_cost_shown_first_is_what_the_refresh_sends(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    members: Literal["new", "all", "none"],
) -> None:
    with start_sandbox(after) as sb, make_client(sb) as client:
        cost = old.refresh_cost(client)
        choice = cost.choices[members]
        sent_before = client.quota.calls_used
        refreshed = old.refresh(client, members=members, progress=False)
        sent = client.quota.calls_used - sent_before
    assert cost.new_members == 3 and cost.new_rewards == 3
    read = {"new": set(refreshed.members["id"]) - set(old.members["id"]), "none": set()}
    chosen = read.get(members, set(refreshed.members["id"]))
    cards = refreshed.cards[refreshed.cards["member_id"].isin(chosen)]
    holding = int((cards["balance_pending_points"] != 0).sum())
    assert sent == choice.lists + choice.reads + holding
    assert sent <= choice.at_most
    assert choice.reads == len(chosen)
    assert f"members={members}" in str(cost)


def test_a_sample_refresh_reads_a_sample_of_old_and_new(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
    tmp_path: Path,
) -> None:
    """Drawn as asked, join bands and allocation too, and its folder keeps that design."""
    asked = Sample(20, seed=3, bands=3, allocation="proportional")
    refreshed = _refresh(start_sandbox, make_client, after, old, members=asked)
    design = refreshed.sample
    assert design is not None and design.population == len(full_after.members)
    expected = full_after.sampled(asked)
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(refreshed, name), getattr(expected, name))
    refreshed.to_parquet(tmp_path)
    back = read_snapshot(tmp_path).sample
    assert design.drawn_by == asked and back is not None and back.drawn_by == asked


def test_a_refresh_over_its_share_is_refused_with_its_own_ways(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
) -> None:
    with start_sandbox(after) as sb, make_client(sb) as client:
        sb.set_plan("60/hour")
        with pytest.raises(PullBudgetError) as caught:
            old.refresh(client, members="all", progress=False)
    hows = [way.how for way in caught.value.ways]
    assert 'members="new"' in hows and 'members="none"' in hows
    assert not any(how.startswith("kinds=") for how in hows)


def test_a_sampled_snapshot_is_priced_and_offered_only_the_choices_it_takes(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
) -> None:
    sampled = old.sampled(Sample(10, seed=1))
    with start_sandbox(after) as sb, make_client(sb) as client:
        cost = sampled.refresh_cost(client, sample=Sample(10))
        sb.set_plan("60/hour")
        with pytest.raises(PullBudgetError) as caught:
            sampled.refresh(client, members="all", progress=False)
    # members="new" and "none" are refused for a sample (test_members_is_checked_by_name).
    assert set(cost.choices) == {"all", "Sample(10)"}
    assert "members=new" not in str(cost) and "members=none" not in str(cost)
    hows = [way.how for way in caught.value.ways]
    assert not any(how.startswith('members="') for how in hows), hows
    assert any(how.startswith("members=Sample(") for how in hows), hows


def test_members_is_checked_by_name(old: ProgramSnapshot) -> None:
    with pytest.raises(ValueError, match="members: give 'all', 'new', 'none' or a Sample"):
        old.refresh(None, members="some")  # type: ignore[arg-type]
    sampled = old.sampled(Sample(10))
    with pytest.raises(ValueError, match="members: 'new' would add unsampled"):
        sampled.refresh(None, members="new")
    with pytest.raises(ValueError, match="overlap"):
        old.refresh(None, overlap=pd.Timedelta(seconds=-1))


def test_the_async_refresh_gives_what_the_blocking_one_gives(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    full_after: ProgramSnapshot,
) -> None:
    import asyncio

    from lyt_toolkit import AsyncLoyaltyClient

    async def run(sb: Sandbox) -> ProgramSnapshot:
        keys = sb.credentials.as_client_kwargs()
        async with AsyncLoyaltyClient(base_url=sb.base_url, env_file=None, **keys) as client:
            return await old.arefresh(client, members="all", progress=False)

    with start_sandbox(after) as sb:
        refreshed = asyncio.run(run(sb))
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(refreshed, name), getattr(full_after, name))


def test_read_at_is_the_pull_time_or_a_paced_kinds_first_read(old: ProgramSnapshot) -> None:
    first, last = pd.Timestamp("2026-01-15T09:00Z"), pd.Timestamp("2026-01-15T11:00Z")
    frames = {"members": old.members, "programs": old.programs}
    paced = ProgramSnapshot.from_frames(
        frames, pulled_at="2026-01-15T12:00Z", read_times={"members": (first, last)}
    )
    assert paced.read_at == {"members": first, "programs": pd.Timestamp("2026-01-15T12:00Z")}
    with pytest.raises(ValueError, match="read_at names kinds not given"):
        ProgramSnapshot.from_frames(frames, read_at={"cards": first})


Sent = list[tuple[str, str, tuple[tuple[str, str], ...]]]


def _noted(sent: Sent) -> Callable[[httpx.Request], None]:
    """Notes each request's method, path and query in ``sent``."""

    def note(request: httpx.Request) -> None:
        query = tuple(sorted(request.url.params.multi_items()))
        sent.append((request.method, request.url.path, query))

    return note


SAMPLE = Sample(40, seed=3, by=("program",))
"""An adaptive sample (one stratum, its pilot of 16 large enough): the pilot's reads, then
the second round's."""


@pytest.mark.parametrize("members", ["all", "new", SAMPLE], ids=["all", "new", "sample"])
def test_a_sync_refresh_hands_its_reads_to_its_threads_and_sends_the_async_requests(
    start_sandbox: StartSandbox,
    make_client: Callable[..., LoyaltyClient],
    old: ProgramSnapshot,
    after: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    members: Literal["all", "new"] | Sample,
) -> None:
    """Every member read and bucket list of a sync refresh goes to its threads, and it sends
    what the async client's refresh sends, request for request: its member lists filtered
    to those created since (``"new"``, a sample), or not (``"all"``)."""
    handed: list[int] = []  # the calls of each level handed to a sync client's threads
    each = ThreadedClient.each

    async def handed_over(self: ThreadedClient, calls: Sequence[Callable[[], Any]]) -> list[Any]:
        handed.append(len(calls))
        return await each(self, calls)

    monkeypatch.setattr(ThreadedClient, "each", handed_over)
    synced: Sent = []
    with (
        start_sandbox(after) as sb,
        httpx.Client(event_hooks={"request": [_noted(synced)]}, verify=TLS) as http,
        make_client(sb, http_client=http) as client,
    ):
        old.refresh(client, members=members, progress=False)

    asynced: Sent = []
    note = _noted(asynced)

    async def noted(request: httpx.Request) -> None:
        note(request)

    async def refresh(sb: Sandbox) -> None:
        keys = sb.credentials.as_client_kwargs()
        async with (
            httpx.AsyncClient(event_hooks={"request": [noted]}, verify=TLS) as http,
            AsyncLoyaltyClient(base_url=sb.base_url, env_file=None, http_client=http, **keys) as c,
        ):
            await old.arefresh(c, members=members, progress=False)

    with start_sandbox(after) as sb:
        asyncio.run(refresh(sb))
    assert sorted(synced) == sorted(asynced)  # the filtered lists' queries among them
    filtered = {p for _, p, query in synced if any(k.startswith("filters[") for k, _ in query)}
    assert {p.rsplit("/", 1)[-1] for p in filtered} == (
        {"rewards"} if members == "all" else {"rewards", "members"}
    )
    reads = [path for _, path, _ in synced if path.split("/")[-2] == "members"]
    read = {"all": len(after["members"]), "new": len(after["members"]) - len(old.members)}
    chosen = members.n if isinstance(members, Sample) else read[members]
    assert len(set(reads)) == len(reads) == chosen  # each member chosen read once
    bucket_lists = len({path for _, path, _ in synced if path.endswith("/pending-points")})
    assert bucket_lists > 0
    assert sum(handed) == len(reads) + bucket_lists
