"""The synthetic program generator: deterministic, sized as asked, well formed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import lyt_toolkit.models as models
from lyt_toolkit.models.ids import matches
from lyt_toolkit.sandbox.timeexpr import resolve, resolve_tree
from lyt_toolkit.synthetic import generate_program, write_program

from .helpers import ID_PREFIXES

NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
SIZES = {
    "rewards": 300,
    "benefits": 250,
    "card_definitions": 7,
    "tier_structures": 5,
    "members": 40,
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
