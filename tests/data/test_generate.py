"""The synthetic program generator: deterministic, sized as asked, well formed."""

from __future__ import annotations

import json
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import lyt_toolkit.models as models
from lyt_toolkit.models.ids import IdPrefix, matches
from lyt_toolkit.sandbox.timeexpr import resolve, resolve_tree
from lyt_toolkit.synthetic import generate_program, write_program
from lyt_toolkit.synthetic.rows import row_id

from .helpers import ID_PREFIXES

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
SIZES = {
    "rewards": 300,
    "benefits": 250,
    "card_definitions": 7,
    "tier_structures": 5,
    "members": 40,
    "pending_buckets": 70,
}


@pytest.fixture(scope="module")
def program() -> dict:
    return generate_program(**SIZES, seed=3)


def test_deterministic_per_seed(program: dict) -> None:
    assert generate_program(**SIZES, seed=3) == program
    assert generate_program(**SIZES, seed=4) != program


def test_requested_counts(program: dict) -> None:
    assert program["format"] == "lyt-program/1"
    for key, count in SIZES.items():
        assert len(program[key]) == count, key
    assert len(program["cards"]) == SIZES["members"]


def test_ids_valid_and_unique(program: dict) -> None:
    for key, prefix in ID_PREFIXES.items():
        ids = [row["id"] for row in program[key]]
        assert len(set(ids)) == len(ids), key
        assert all(matches(prefix, i) for i in ids), key


def test_names_unique_and_created_at_distinct(program: dict) -> None:
    for key in ("rewards", "benefits", "card_definitions", "tier_structures"):
        names = [row["name"] for row in program[key]]
        assert len(set(names)) == len(names), key
        created = [resolve(row["created_at"], NOW) for row in program[key]]
        assert len(set(created)) == len(created), key
        assert all(c < NOW for c in created)


def test_references_resolve_and_active_benefits_use_active_card_definitions(program: dict) -> None:
    cds = {c["id"]: c for c in program["card_definitions"]}
    for reward in program["rewards"]:
        for cost in reward["costs"]:
            assert all(s["card_definition_id"] in cds for s in cost["spending"])
    for benefit in program["benefits"]:
        ref = (benefit.get("points") or benefit.get("points_proportional") or {}).get(
            "card_definition_id"
        )
        if ref:
            assert ref in cds
            if benefit["status"] == "ACTIVE":
                assert cds[ref]["status"] == "ACTIVE"
    for ts in program["tier_structures"]:
        ref = (ts.get("point_balance") or ts.get("point_earned"))["card_definition_id"]
        assert ref in cds
    cards = {c["id"]: c for c in program["cards"]}
    for bucket in program["pending_buckets"]:
        assert cards[bucket["card_id"]]["member_id"] == bucket["member_id"]


def test_validates_against_models(program: dict) -> None:
    pairs = {"card_definitions": "CardDefinition", "tier_structures": "TierStructure",
             "rewards": "Reward", "benefits": "Benefit", "members": "Member",
             "pending_buckets": "PendingBucket"}  # fmt: skip
    resolved = resolve_tree(program, NOW)
    for key, name in pairs.items():
        for row in resolved[key][:100]:
            getattr(models, name).model_validate(row)


def test_pending_buckets_agree_with_their_cards_and_lie_ahead(program: dict) -> None:
    held: dict[str, int] = {}
    for bucket in program["pending_buckets"]:
        assert bucket["status"] == "PENDING"
        held[bucket["card_id"]] = held.get(bucket["card_id"], 0) + bucket["points"]["total"]
        assert NOW < resolve(bucket["date"], NOW) <= NOW + timedelta(days=180)
    assert {c["id"]: c["balance"]["pending_points"] for c in program["cards"]} == {
        c["id"]: held.get(c["id"], 0) for c in program["cards"]
    }
    months = {resolve(b["date"], NOW).strftime("%Y-%m") for b in program["pending_buckets"]}
    assert len(months) >= 6


def test_default_is_two_pending_buckets_per_member() -> None:
    assert len(generate_program(rewards=0, benefits=0, members=7, seed=1)["pending_buckets"]) == 14


def gift_voucher_values(program: dict) -> dict[str, tuple[str, float]]:
    """Reward ID -> (card definition, voucher balance / points cost)."""
    return {
        r["id"]: (s["card_definition_id"], r["digital"]["gift_vouchers"]["balance"] / s["points"])
        for r in program["rewards"]
        if "gift_vouchers" in r.get("digital", {})
        for c in r["costs"]
        for s in c["spending"]
    }


def test_rewards_cluster_around_their_card_definitions_value_per_point(program: dict) -> None:
    by_cd: dict[str, list[float]] = {}
    for cd, value in gift_voucher_values(program).values():
        by_cd.setdefault(cd, []).append(value)
    assert len(by_cd) >= 2
    spending = [s for r in program["rewards"] for c in r["costs"] for s in c["spending"]]
    assert all(isinstance(s["points"], int) and s["points"] > 0 for s in spending)
    for values in by_cd.values():  # each priced within 10 % (and a 10-point rounding)
        assert max(values) / min(values) < 1.1 / 0.9 * 1.05
    for benefit in program["benefits"]:
        if benefit["type"] == "POINTS_PROPORTIONAL":
            amount = benefit["points_proportional"]["order"]["amount"]
            assert amount["value"] / amount["every"] in (1 / 100, 1.5 / 100, 2 / 100)


def test_every_thousandth_reward_is_mispriced_5x() -> None:
    values = gift_voucher_values(generate_program(rewards=2000, benefits=0, members=0, seed=2))
    by_cd: dict[str, list[float]] = {}
    for cd, value in values.values():
        by_cd.setdefault(cd, []).append(value)
    medians = {cd: statistics.median(v) for cd, v in by_cd.items()}
    far = {rid for rid, (cd, value) in values.items() if not 1 / 3 < value / medians[cd] < 3}
    assert far == {row_id(IdPrefix.REWARD, 2, 1000), row_id(IdPrefix.REWARD, 2, 2000)}


def test_large_program_has_the_asked_size() -> None:
    big = generate_program(rewards=20_000, benefits=0, members=0, seed=1)
    assert len(big["rewards"]) == 20_000


def test_write_program(tmp_path: Path) -> None:
    path = write_program(tmp_path / "sub" / "p.json", rewards=5, benefits=5, members=2, seed=9)
    assert json.loads(path.read_text()) == generate_program(
        rewards=5, benefits=5, members=2, seed=9
    )


def test_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="rewards"):
        generate_program(rewards=-1)
    with pytest.raises(ValueError, match="card_definitions"):
        generate_program(card_definitions=1)
    with pytest.raises(ValueError, match="pending_buckets"):
        generate_program(members=0, pending_buckets=1)
