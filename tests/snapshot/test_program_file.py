"""``ProgramSnapshot.to_program``: real IDs, statuses, settings and times, and placeholders."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox

PULLED = "2026-02-03T04:05:06Z"


@pytest.fixture(scope="module")
def snapshot(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> ProgramSnapshot:
    with (
        start_sandbox(now=PULLED) as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
    ):
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def program(snapshot: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = snapshot.to_program(tmp_path_factory.mktemp("program") / "program.json")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _wire(value: pd.Timestamp) -> str | None:
    return None if pd.isna(value) else value.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


SECTIONS = (
    "card_definitions",
    "tier_structures",
    "rewards",
    "benefits",
    "programs",
    "members",
    "pending_buckets",
)


@pytest.mark.parametrize("kind", SECTIONS)
def test_ids_statuses_and_times_are_the_snapshots(
    snapshot: ProgramSnapshot, program: dict[str, Any], kind: str
) -> None:
    frame, records = getattr(snapshot, kind), program[kind]
    assert len(frame) > 0
    assert [r["id"] for r in records] == frame["id"].tolist()
    assert [r["status"] for r in records] == frame["status"].astype(str).tolist()
    assert [r["created_at"] for r in records] == [_wire(t) for t in frame["created_at"]]
    assert [r.get("updated_at") for r in records] == [_wire(t) for t in frame["updated_at"]]


def test_cards_keep_codes_balances_and_members(
    snapshot: ProgramSnapshot, program: dict[str, Any]
) -> None:
    cards = pd.DataFrame(program["cards"])
    assert cards["id"].tolist() == snapshot.cards["id"].tolist()
    assert cards["member_id"].tolist() == snapshot.cards["member_id"].tolist()
    assert cards["code"].tolist() == snapshot.cards["code"].tolist()
    balances = [c["balance"]["points"] for c in program["cards"]]
    assert balances == snapshot.cards["balance_points"].tolist()


def test_the_clock_is_the_pull_time_and_every_time_is_absolute(
    snapshot: ProgramSnapshot, program: dict[str, Any]
) -> None:
    assert program["format"] == "lyt-program/1"
    assert program["now"] == "2026-02-03T04:05:06.000Z" == _wire(snapshot.pulled_at)
    text = json.dumps(program)
    assert '"now' not in text.replace('"now": ', "")  # no relative expression anywhere


def test_settings_the_frames_hold_are_written(program: dict[str, Any]) -> None:
    beans = next(c for c in program["card_definitions"] if c["id"] == "lcdef_c0ffee0002")
    assert beans["balance_settings"] == {"allow_negative": True}
    assert beans["earning_limits"]["global"] == {"type": "NO_LIMIT"}
    raffle = next(r for r in program["rewards"] if r["id"] == "lrew_c0ffee001e")
    assert [c.get("rules") for c in raffle["costs"]] == [{"logic": "1"}]


def test_what_the_interface_cannot_list_becomes_marked_placeholders(
    snapshot: ProgramSnapshot, program: dict[str, Any]
) -> None:
    both = pd.concat([snapshot.rewards, snapshot.benefits])
    expected = {
        "products": set(both["material_product_id"].dropna()),
        "skus": set(both["material_sku_id"].dropna()),
        "campaigns": set(both["digital_campaign_id"].dropna()),
        "customers": set(snapshot.members["customer_id"]),
    }
    for section, ids in expected.items():
        records = program[section]
        assert ids and {r["id"] for r in records} == ids, section
        assert all(r["placeholder"] is True for r in records), section
    sku_products = dict(zip(both["material_sku_id"], both["material_product_id"], strict=True))
    assert {r["id"]: r["product_id"] for r in program["skus"]} == {
        s: sku_products[s] for s in expected["skus"]
    }
    campaign_types = dict(zip(both["digital_campaign_id"], both["digital_type"], strict=True))
    assert {r["id"]: r["type"] for r in program["campaigns"]} == {
        c: campaign_types[c] for c in expected["campaigns"]
    }


def test_card_definitions_found_missing_stay_missing(
    snapshot: ProgramSnapshot, program: dict[str, Any]
) -> None:
    dangling = snapshot.benefits.loc[
        snapshot.benefits["card_definition_found"] == False,  # noqa: E712 (NA-aware)
        "card_definition_id",
    ]
    assert set(dangling) == {"lcdef_deadbeef0000"}
    assert program["deliberately_missing"] == ["lcdef_deadbeef0000"]


def test_a_card_held_by_two_members_cannot_be_written(
    snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    cards = snapshot.cards
    shared = cards.iloc[[0]].assign(member_id="lmbr_5ha7ed000001", member_role="MEMBER")
    with_shared = ProgramSnapshot.from_frames(
        {**snapshot.frames(), "cards": pd.concat([cards, shared], ignore_index=True)}
    )
    card = cards["id"].iloc[0]
    with pytest.raises(ValueError, match=f"card {card} is held by members .*lmbr_5ha7ed000001"):
        with_shared.to_program(tmp_path / "program.json")
    assert not (tmp_path / "program.json").exists()


def test_an_empty_snapshot_starts_an_empty_sandbox(tmp_path: Path) -> None:
    empty = ProgramSnapshot.from_frames({}, pulled_at="2026-05-06T07:08:09Z")
    program = json.loads(empty.to_program(tmp_path / "program.json").read_text())
    assert "deliberately_missing" not in program
    assert all(v == [] for v in program.values() if isinstance(v, list))
    with Sandbox.start(snapshot=empty) as sb:
        assert sb.now() == "2026-05-06T07:08:09.000Z"
        rewards = httpx.get(
            f"{sb.base_url}/v2/loyalties/rewards", headers=sb.v2_headers(), verify=TLS
        )
        assert rewards.json()["data"] == []
