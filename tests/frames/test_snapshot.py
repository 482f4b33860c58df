"""``ProgramSnapshot.pull`` over real HTTP: schema, reference resolution, faults, concurrency."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import json
import warnings

import pandas as pd
import pytest

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient, ProgramSnapshot
from lyt_toolkit.errors import UnauthorizedError
from lyt_toolkit.frames import FRAME_NAMES, SCHEMAS
from lyt_toolkit.sandbox import Sandbox

from .helpers import NOW, PATIENT_RETRY, assert_same, client_for

MISSING = "lcdef_deadbeef0000"
"""The card definition the demo program references but never defines."""


@pytest.fixture(scope="module")
def snapshot(demo: Sandbox) -> ProgramSnapshot:
    with client_for(demo, retry=PATIENT_RETRY) as client:
        return ProgramSnapshot.pull(client, progress=False)


def test_every_frame_has_its_declared_schema(snapshot: ProgramSnapshot) -> None:
    assert list(snapshot.frames()) == list(FRAME_NAMES)
    for name, frame in snapshot.frames().items():
        assert list(frame.columns) == SCHEMAS[name].names, name
        assert frame.dtypes.to_dict() == SCHEMAS[name].dtypes, name
        assert len(frame) > 0, name


def test_source_and_pulled_at(snapshot: ProgramSnapshot, demo: Sandbox) -> None:
    assert snapshot.source == demo.base_url
    assert snapshot.pulled_at == pd.Timestamp(NOW)
    assert str(snapshot.pulled_at.tz) == "UTC"
    assert "token" not in repr(snapshot)


def test_counts_match_the_api(snapshot: ProgramSnapshot, demo: Sandbox) -> None:
    with client_for(demo) as client:
        assert len(snapshot.rewards) == len(list(client.rewards.iter(limit=100)))
        assert len(snapshot.benefits) == len(list(client.benefits.iter(limit=100)))
        assert len(snapshot.tier_structures) == len(list(client.tier_structures.iter(limit=100)))
        programs = list(client.programs.iter())
        members = [m for p in programs for m in client.members.iter(p.id, limit=100)]
    assert len(snapshot.programs) == len(programs)
    assert sorted(snapshot.members["id"]) == sorted(m.id for m in members)
    assert set(snapshot.cards["member_id"]) == {m.id for m in members}


def test_missing_card_definition_is_marked(snapshot: ProgramSnapshot) -> None:
    assert MISSING not in set(snapshot.card_definitions["id"])
    for name in ("benefits", "reward_costs", "tier_structures"):
        frame = snapshot.frames()[name]
        dangling = frame[frame["card_definition_id"] == MISSING]
        assert len(dangling) > 0, name
        assert (dangling["card_definition_found"] == False).all(), name  # noqa: E712
        assert dangling["card_definition_status"].isna().all(), name


def test_every_reference_is_resolved_or_marked(snapshot: ProgramSnapshot) -> None:
    known = dict(
        zip(snapshot.card_definitions["id"], snapshot.card_definitions["status"], strict=True)
    )
    for name in ("benefits", "reward_costs", "tier_structures"):
        frame = snapshot.frames()[name]
        refs = frame.dropna(subset=["card_definition_id"])
        for _, row in refs.iterrows():
            cid = row["card_definition_id"]
            assert bool(row["card_definition_found"]) is (cid in known), (name, cid)
            if cid in known:
                assert row["card_definition_status"] == known[cid]
        unreferenced = frame[frame["card_definition_id"].isna()]
        assert unreferenced["card_definition_found"].isna().all()


def test_reward_costs_name_the_card_definition_spent_from(snapshot: ProgramSnapshot) -> None:
    defs = snapshot.card_definitions
    names = dict(zip(defs["id"], defs["name"], strict=True))
    costs = snapshot.reward_costs
    assert costs["card_definition_name"].dtype == "string"
    found = costs[costs["card_definition_found"] == True]  # noqa: E712 (NA-aware)
    assert len(found) > 0 and found["card_definition_name"].notna().all()
    for cid, name in zip(found["card_definition_id"], found["card_definition_name"], strict=True):
        assert name == names[cid], cid
    dangling = costs[costs["card_definition_id"] == MISSING]
    assert len(dangling) > 0 and dangling["card_definition_name"].isna().all()
    assert costs.loc[costs["card_definition_id"].isna(), "card_definition_name"].isna().all()


def test_unlisted_definitions_are_fetched_by_id(snapshot: ProgramSnapshot, demo: Sandbox) -> None:
    with client_for(demo) as client:
        listed = {d.id for d in client.card_definitions.iter(limit=100)}
    defs = snapshot.card_definitions
    assert set(defs.loc[defs["listed"], "id"]) == listed
    for _, row in defs[~defs["listed"]].iterrows():
        assert row["id"] not in listed
    # the demo's DELETED definition is referenced, so it is present either way
    assert "DELETED" in set(defs["status"])


def test_pending_buckets_carry_program_and_member_status(snapshot: ProgramSnapshot) -> None:
    buckets = snapshot.pending_buckets
    programs = snapshot.programs.set_index("id")["status"]
    members = snapshot.members.set_index("id")["status"]
    assert (buckets["program_status"] == buckets["program_id"].map(programs)).all()
    assert (buckets["member_status"] == buckets["member_id"].map(members)).all()
    assert {"ACTIVE", "INACTIVE"} <= set(buckets["member_status"])
    assert (buckets["date"] > snapshot.pulled_at).any()
    assert (buckets["date"] < snapshot.pulled_at).any()


def test_daily_windows_are_json(snapshot: ProgramSnapshot) -> None:
    daily = snapshot.rewards[snapshot.rewards["validity_hours_type"] == "DAILY"]
    assert len(daily) > 0
    for text in daily["validity_daily"].dropna():
        assert isinstance(json.loads(text), list)


def test_empty_program_keeps_every_schema(empty: Sandbox) -> None:
    with client_for(empty) as client:
        snap = ProgramSnapshot.pull(client, progress=False)
    for name, frame in snap.frames().items():
        assert len(frame) == 0, name
        assert list(frame.columns) == SCHEMAS[name].names
        assert frame.dtypes.to_dict() == SCHEMAS[name].dtypes, name


def test_pull_under_faults_equals_clean_pull(demo: Sandbox, snapshot: ProgramSnapshot) -> None:
    demo.set_faults(rate_limit=0.2, unavailable=0.1, retry_after=0, seed=3)
    try:
        with client_for(demo, retry=PATIENT_RETRY) as client:
            faulted = ProgramSnapshot.pull(client, progress=False)
    finally:
        demo.clear_faults()
    assert_same(faulted, snapshot)


def test_concurrent_pulls_are_equal(demo: Sandbox, snapshot: ProgramSnapshot) -> None:
    with client_for(demo, retry=PATIENT_RETRY) as client:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            a, b = pool.map(lambda _: ProgramSnapshot.pull(client, progress=False), range(2))

        async def both() -> tuple[ProgramSnapshot, ProgramSnapshot]:
            async with AsyncLoyaltyClient(config=client.config) as ac:
                return await asyncio.gather(
                    ProgramSnapshot.apull(ac, progress=False),
                    ProgramSnapshot.apull(ac, progress=False),
                )

        c, d = asyncio.run(both())
    for other in (a, b, c, d):
        assert_same(other, snapshot)


def test_pull_inside_a_running_event_loop(demo: Sandbox, snapshot: ProgramSnapshot) -> None:
    """As in Jupyter, whose kernel already runs an event loop."""

    async def notebook_cell() -> ProgramSnapshot:
        with client_for(demo) as client:
            return ProgramSnapshot.pull(client, progress=False)

    assert_same(asyncio.run(notebook_cell()), snapshot)


def test_pull_from_settings(demo: Sandbox, snapshot: ProgramSnapshot) -> None:
    settings = {"base_url": demo.base_url, "env_file": None, **demo.credentials.as_client_kwargs()}
    assert_same(ProgramSnapshot.pull(settings, progress=False), snapshot)
    with pytest.raises(TypeError, match="LoyaltyClient"):
        ProgramSnapshot.pull(42, progress=False)  # type: ignore[arg-type]


def test_progress_bar_on_request(
    demo: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LYT_PROGRESS", "text")  # captured stderr is no terminal: ask for text
    with client_for(demo) as client:
        ProgramSnapshot.pull(client, progress=True)
    assert "snapshot" in capsys.readouterr().err


def test_sync_client_and_async_client_agree(demo: Sandbox, snapshot: ProgramSnapshot) -> None:
    with client_for(demo) as client:
        assert isinstance(client, LoyaltyClient)
        twin = AsyncLoyaltyClient(config=client.config)
        assert_same(ProgramSnapshot.pull(twin, progress=False), snapshot)


def test_a_failed_pull_leaves_no_request_half_done(demo: Sandbox) -> None:
    """Refused credentials fail the pull; the requests running beside the failed one stop too.

    Before, they ran on after the client was closed and died mid-connect when
    the event loop stopped ("coroutine ... was never awaited").
    """
    settings = {
        "base_url": demo.base_url,
        "env_file": None,
        "app_id": demo.credentials.app_id,
        "app_token": "not-the-app-token",
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(UnauthorizedError):
            ProgramSnapshot.pull(settings, progress=False)
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
