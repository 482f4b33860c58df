"""The synthetic program generator: deterministic, sized as asked, well formed."""

from __future__ import annotations

import json
import statistics
from collections import Counter
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


def test_default_is_four_pending_buckets_per_ten_members() -> None:
    assert len(generate_program(rewards=0, benefits=0, members=55, seed=1)["pending_buckets"]) == 22


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
    with pytest.raises(ValueError, match="programs"):
        generate_program(programs=0)


# The production-like skew (see lyt_toolkit.synthetic.members): seeded, so every figure
# below is fixed; the bounds are the documented ranges, wide enough to survive a retune
# within them and narrow enough that the old uniform shape fails each one.

YEAR = 365 * 86400


def age_seconds(row: dict) -> int:
    return int((NOW - resolve(row["created_at"], NOW)).total_seconds())


def top_share(values: list[int], fraction: float = 0.01) -> float:
    ranked = sorted(values, reverse=True)
    return sum(ranked[: max(1, int(len(ranked) * fraction))]) / sum(ranked)


@pytest.fixture(scope="module")
def skewed() -> dict:
    return generate_program(rewards=0, benefits=0, members=20_000, seed=0)


@pytest.fixture(scope="module")
def several() -> dict:
    return generate_program(rewards=0, benefits=0, members=5_000, programs=4, seed=7)


def test_most_cards_hold_no_pending_points(skewed: dict) -> None:
    cards = skewed["cards"]
    holders = [c for c in cards if c["balance"]["pending_points"]]
    assert 0.15 <= len(holders) / len(cards) <= 0.25
    per_card = Counter(b["card_id"] for b in skewed["pending_buckets"])
    assert set(per_card.values()) == {1, 2, 3, 4}
    assert len(skewed["pending_buckets"]) == 8_000  # 0.4 per member


def test_pending_points_sit_with_active_recent_members(skewed: dict) -> None:
    members = {m["id"]: m for m in skewed["members"]}
    holding = [members[c["member_id"]] for c in skewed["cards"] if c["balance"]["pending_points"]]
    assert sum(m["status"] == "ACTIVE" for m in holding) / len(holding) > 0.95
    mean_age = statistics.mean(age_seconds(m) for m in members.values())
    assert statistics.mean(age_seconds(m) for m in holding) < mean_age / 2


def test_pending_totals_are_their_buckets_sums_and_follow_the_listing(skewed: dict) -> None:
    held: dict[str, int] = {}
    by_card: dict[str, list[dict]] = {}
    for bucket in skewed["pending_buckets"]:
        held[bucket["card_id"]] = held.get(bucket["card_id"], 0) + bucket["points"]["total"]
        by_card.setdefault(bucket["card_id"], []).append(bucket)
    cards = {c["id"]: c for c in skewed["cards"]}
    assert {i: c["balance"]["pending_points"] for i, c in cards.items()} == {
        i: held.get(i, 0) for i in cards
    }
    for card_id, buckets in by_card.items():
        assert buckets[0]["program_id"] == cards[card_id]["program_id"]
        # listed by creation, buckets come in activation order; none predates its card
        created = [resolve(b["created_at"], NOW) for b in buckets]
        dates = [resolve(b["date"], NOW) for b in buckets]
        assert created == sorted(created) and dates == sorted(dates)
        assert created[0] > resolve(cards[card_id]["created_at"], NOW)


def test_a_few_members_hold_much_of_the_points(skewed: dict) -> None:
    points = [c["balance"]["points"] for c in skewed["cards"]]
    assert all(isinstance(p, int) and p >= 0 for p in points)
    # an exponential (the old shape) gives the top 1 % about 5.6 %
    assert top_share(points) > 0.12
    members = {m["id"]: m for m in skewed["members"]}
    # the tail is heavy within a tenure group too, not only across groups
    group = [
        c["balance"]["points"]
        for c in skewed["cards"]
        if members[c["member_id"]]["status"] == "ACTIVE"
        and 1 <= age_seconds(members[c["member_id"]]) / YEAR < 2
    ]
    assert len(group) > 2_000 and top_share(group) > 0.09


def test_balances_grow_with_tenure_and_lapse_with_inactivity(skewed: dict) -> None:
    members = {m["id"]: m for m in skewed["members"]}

    def median(status: str, low: float, high: float) -> float:
        return statistics.median(
            c["balance"]["points"]
            for c in skewed["cards"]
            if members[c["member_id"]]["status"] == status
            and low <= age_seconds(members[c["member_id"]]) / YEAR < high
        )

    assert median("ACTIVE", 3, 9) > 2 * median("ACTIVE", 0, 0.5)
    assert median("INACTIVE", 0, 9) < median("ACTIVE", 0, 0.5) / 3


def test_some_members_are_inactive_more_among_old_joiners(skewed: dict) -> None:
    members = skewed["members"]

    def inactive(low: float, high: float) -> float:
        group = [m for m in members if low <= age_seconds(m) / YEAR < high]
        return sum(m["status"] == "INACTIVE" for m in group) / len(group)

    assert 0.15 <= inactive(0, 9) <= 0.25
    assert inactive(3, 9) > 2 * inactive(0, 1)


def test_joins_span_years_and_grow(skewed: dict) -> None:
    ages = [age_seconds(m) / YEAR for m in skewed["members"]]
    assert 5 < max(ages) <= 6.01 and min(ages) < 0.01
    assert sum(a < 1 for a in ages) > 3 * sum(a >= 5 for a in ages)
    created = [m["created_at"] for m in skewed["members"]]
    assert len(set(created)) == len(created)
    assert [c["created_at"] for c in skewed["cards"]] == created
    start = resolve(skewed["programs"][0]["start_date"], NOW)
    assert all(resolve(c, NOW) > start for c in created)


def test_balances_stay_within_their_card_definitions_limit(skewed: dict) -> None:
    limits = {
        cd["id"]: limit["max"]
        for cd in skewed["card_definitions"]
        for limit in cd["earning_limits"]["global"]["limits"]
        if limit["type"] == "BALANCE_BASED"
    }
    assert limits
    assert all(c["balance"]["points"] <= limits.get(c["card_definition_id"], 10**12)
               for c in skewed["cards"])  # fmt: skip


def test_several_programs_one_large(several: dict) -> None:
    programs = {p["id"]: p for p in several["programs"]}
    assert len(programs) == 4 and len({p["name"] for p in programs.values()}) == 4
    sizes = Counter(m["program_id"] for m in several["members"])
    ordered = [sizes[p] for p in programs]  # the first program is the largest and oldest
    assert ordered == sorted(ordered, reverse=True) and ordered[-1] > 0
    assert ordered[0] > 0.5 * len(several["members"])
    members = {m["id"]: m for m in several["members"]}
    for card in several["cards"]:
        member = members[card["member_id"]]
        assert card["program_id"] == member["program_id"]
        assert resolve(member["created_at"], NOW) > resolve(
            programs[member["program_id"]]["start_date"], NOW
        )
    cards = {c["id"]: c for c in several["cards"]}
    for bucket in several["pending_buckets"]:
        assert bucket["program_id"] == cards[bucket["card_id"]]["program_id"]
    assert len({b["program_id"] for b in several["pending_buckets"]}) == 4
    for key, prefix in ID_PREFIXES.items():
        ids = [row["id"] for row in several[key]]
        assert len(set(ids)) == len(ids) and all(matches(prefix, i) for i in ids), key


def test_several_programs_deterministic(several: dict) -> None:
    again = generate_program(rewards=0, benefits=0, members=5_000, programs=4, seed=7)
    assert again == several
    assert generate_program(rewards=0, benefits=0, members=5_000, programs=4, seed=8) != several
    assert generate_program(rewards=0, benefits=0, members=5_000, programs=3, seed=7) != several


def test_every_program_gets_a_member_while_there_are_enough() -> None:
    program = generate_program(rewards=0, benefits=0, members=6, programs=6, seed=2)
    assert {m["program_id"] for m in program["members"]} == {p["id"] for p in program["programs"]}


def test_more_than_four_buckets_per_member_when_asked() -> None:
    program = generate_program(rewards=0, benefits=0, members=3, pending_buckets=40, seed=1)
    per_card = Counter(b["card_id"] for b in program["pending_buckets"])
    assert len(per_card) == 3 and sum(per_card.values()) == 40
