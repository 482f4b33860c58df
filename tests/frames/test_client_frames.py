"""``client.<group>.frame()`` over real HTTP: declared dtypes and values that match the API."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest
from frame_reads import row_of

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.frames import SCHEMAS

GROUPS = {
    "rewards": "rewards",
    "benefits": "benefits",
    "card_definitions": "card_definitions",
    "tier_structures": "tier_structures",
    "programs": "programs",
}


def assert_schema(frame: pd.DataFrame, kind: str) -> None:
    assert list(frame.columns) == SCHEMAS[kind].names
    assert frame.dtypes.to_dict() == SCHEMAS[kind].dtypes


@pytest.mark.parametrize("kind", GROUPS)
def test_frame_has_declared_schema(client: LoyaltyClient, kind: str) -> None:
    frame = getattr(client, GROUPS[kind]).frame(progress=False)
    assert len(frame) > 0
    assert_schema(frame, kind)
    assert frame["id"].is_unique


@pytest.mark.parametrize("kind", GROUPS)
def test_empty_program_keeps_the_schema(empty_client: LoyaltyClient, kind: str) -> None:
    frame = getattr(empty_client, GROUPS[kind]).frame(progress=False)
    assert len(frame) == 0
    assert_schema(frame, kind)


def test_reward_values_match_the_api(client: LoyaltyClient) -> None:
    frame = client.rewards.frame(progress=False).set_index("id")
    rewards = list(client.rewards.iter(limit=100))
    assert list(frame.index) == [r.id for r in rewards]
    for reward in rewards:
        row = row_of(frame, reward.id)
        assert row["name"] == reward.name
        assert row["status"] == reward.status.value
        assert row["created_at"] == pd.Timestamp(reward.created_at)
        assert row["cost_count"] == len(reward.costs)
        if reward.end_date is None:
            assert pd.isna(row["end_date"])
        else:
            assert row["end_date"] == pd.Timestamp(reward.end_date)
        daily = reward.validity_hours.daily
        if daily is None:
            assert pd.isna(row["validity_daily"])
        else:
            windows = json.loads(row["validity_daily"])
            assert windows == [w.model_dump(mode="json") for w in daily]
    assert (frame["validity_hours_type"] == "DAILY").any()


def test_reward_costs_one_row_per_spending_entry(client: LoyaltyClient) -> None:
    costs = client.rewards.costs_frame(progress=False)
    assert_schema(costs, "reward_costs")
    rewards = list(client.rewards.iter(limit=100))
    expected = [
        (r.id, c.id, s.points, s.card_definition_id)
        for r in rewards
        for c in r.costs
        for s in c.spending or []
    ]
    got = costs.dropna(subset=["points"])
    assert (
        list(
            zip(
                got["reward_id"],
                got["cost_id"],
                got["points"],
                got["card_definition_id"],
                strict=True,
            )
        )
        == expected
    )


def test_benefit_and_definition_values(client: LoyaltyClient) -> None:
    benefits = client.benefits.frame(progress=False).set_index("id")
    for b in client.benefits.iter(limit=100):
        row = benefits.loc[b.id]
        assert row["type"] == b.type.value
        if b.stock and b.stock.limited:
            assert row["stock_type"] == "LIMITED"
            assert row["stock_quantity"] == b.stock.limited.quantity
        source = b.points or b.points_proportional
        if source:
            assert row["card_definition_id"] == source.card_definition_id
        else:
            assert pd.isna(row["card_definition_id"])
    assert (benefits["stock_type"] == "LIMITED").any()
    definitions = client.card_definitions.frame(progress=False).set_index("id")
    for d in client.card_definitions.iter(limit=100):
        row = definitions.loc[d.id]
        assert bool(row["balance_settings_allow_negative"]) is d.balance_settings.allow_negative
        assert row["earning_limits_global_type"] == d.earning_limits.global_.type
        assert row["pending_points_type"] == d.pending_points.type
    tiers = client.tier_structures.frame(progress=False).set_index("id")
    for t in client.tier_structures.iter(limit=100):
        assert tiers.loc[t.id, "card_definition_id"] == t.card_definition_id


def test_nested_resources_frames(client: LoyaltyClient) -> None:
    program = client.programs.frame(progress=False)["id"].iloc[-1]
    members = client.members.frame(program, progress=False)
    assert_schema(members, "members")
    assert set(members["program_id"]) == {program}
    member = client.members.get(program, members["id"].iloc[0])
    card = member.cards[0].card
    assert card is not None
    buckets = client.pending_buckets.frame(program, member.id, card.id, progress=False)
    assert_schema(buckets, "pending_buckets")
    assert set(buckets["card_id"]) <= {card.id}


def test_small_pages_give_the_same_frame(client: LoyaltyClient) -> None:
    whole = client.rewards.frame(progress=False)
    paged = client.rewards.frame(limit=7, progress=False)
    pd.testing.assert_frame_equal(whole, paged)


def test_progress_bar_only_past_one_page(
    client: LoyaltyClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LYT_PROGRESS", "text")  # captured stderr is no terminal: ask for text
    client.rewards.frame(limit=5, progress=False)
    assert capsys.readouterr().err == ""
    client.rewards.frame(progress=True)  # one page of 100: no bar
    assert capsys.readouterr().err == ""
    client.rewards.frame(limit=5, progress=True)
    assert "rewards" in capsys.readouterr().err


def test_async_frame_equals_sync(client: LoyaltyClient) -> None:
    async def pull() -> tuple[pd.DataFrame, pd.DataFrame]:
        async with AsyncLoyaltyClient(config=client.config) as ac:
            return await ac.rewards.frame(progress=False), await ac.rewards.costs_frame(
                progress=False
            )

    rewards, costs = asyncio.run(pull())
    pd.testing.assert_frame_equal(rewards, client.rewards.frame(progress=False))
    pd.testing.assert_frame_equal(costs, client.rewards.costs_frame(progress=False))


def test_filters_pass_through(client: LoyaltyClient) -> None:
    frame = client.rewards.frame(filters={"name": {"$contains": "Espresso"}}, progress=False)
    assert len(frame) > 0
    assert frame["name"].str.lower().str.contains("espresso").all()


def test_progress_callback_counts_rows(client: LoyaltyClient) -> None:
    seen: list[tuple[int, int]] = []
    frame = client.rewards.frame(limit=5, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(frame), len(frame))


def test_a_group_without_a_list_has_no_frame(client: LoyaltyClient) -> None:
    with pytest.raises(TypeError, match="OAuth has no DataFrame form"):
        client.oauth.frame()


@pytest.mark.parametrize("kind", ["rewards", "reward_costs"])
def test_a_pulled_reward_frame_can_be_edited_in_place(client: LoyaltyClient, kind: str) -> None:
    """Every column takes a new value, categories included (their codes are the frame's
    own, never a read-only Arrow buffer lent to it)."""
    frame = client.rewards.frame(kind=kind, progress=False)
    row = frame.index[0]
    for name, dtype in SCHEMAS[kind].dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype):
            frame.loc[row, name] = dtype.categories[-1]
        elif dtype == "Int64":
            frame.loc[row, name] = 7
    assert (frame.loc[row, [c for c in frame if frame[c].dtype == "category"]].notna()).all()
