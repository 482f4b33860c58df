"""Economics over a history of snapshots and the redemption rate estimated from it, by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.economics import (
    ECONOMICS_SCHEMAS,
    economics_over_time,
    estimate_redemption_rate,
)
from lyt_toolkit.snapshot import SnapshotHistory

from .owed_program import (
    BEANS,
    GIFT_CARD,
    STARS,
    card_of,
    cards_of,
    hand_values,
    owed_program,
    pending_of,
)

LATER = "2026-02-14T12:00:00Z"


def later_program() -> dict[str, Any]:
    """The owed program 30 days on: a bucket activated, points spent and earned, a new card."""
    program = owed_program()
    cards = {c["id"]: c for c in program["cards"]}
    cards["lcrd_b0e0000001"]["balance"] = {"points": 420, "pending_points": 0}  # +120 - 200
    cards["lcrd_b0e0000002"]["balance"]["points"] = 1500  # +300 earned
    cards["lcrd_b0e0000003"]["balance"]["points"] = 2900  # -100 spent
    program["cards"].append(card_of(5, 3, BEANS, 50, 0))  # a new card: +50 earned
    first = program["pending_buckets"][0]
    first.update(status="ACTIVATED", date="now-27d")
    return program


@pytest.fixture(scope="module")
def pulls(
    start_sandbox: Callable[..., Any], make_client: Callable[..., Any]
) -> list[tuple[dict[str, Any], ProgramSnapshot]]:
    """Each program with its snapshot, pulled over HTTP from a sandbox at its clock."""
    out = []
    for program, now in ((owed_program(), None), (later_program(), LATER)):
        clock = {} if now is None else {"now": now}
        with start_sandbox(program, **clock) as sb, make_client(sb) as client:
            out.append((program, ProgramSnapshot.pull(client, progress=False)))
    return out


@pytest.fixture(scope="module")
def history(pulls: list[tuple[Any, ProgramSnapshot]], tmp_path_factory: Any) -> SnapshotHistory:
    stored = SnapshotHistory(tmp_path_factory.mktemp("history"))
    for _, snap in pulls:
        stored.append(snap)
    return stored


def test_points_members_and_liability_per_snapshot_by_hand(
    pulls: list[tuple[dict[str, Any], ProgramSnapshot]], history: SnapshotHistory
) -> None:
    medians = hand_values().set_index("card_definition_id")["median"]
    expected = []
    for program, snap in pulls:
        for definition in (BEANS, STARS):
            cards = cards_of(program, definition)
            outstanding = sum(c["balance"]["points"] for c in cards)
            pending = sum(b["points"]["total"] for b in pending_of(program, definition))
            expected.append(
                (
                    snap.pulled_at,
                    definition,
                    len({c["member_id"] for c in cards}),
                    len(cards),
                    outstanding,
                    pending,
                    (outstanding + pending) * medians[definition] * 0.5,
                )
            )
    over_time = economics_over_time(history, hand_values(), redemption_rate=0.5)
    columns = ["pulled_at", "card_definition_id", "members", "cards"]
    columns += ["outstanding_points", "pending_points", "liability_median"]
    got = [tuple(r) for r in over_time[columns].itertuples(index=False)]
    assert got == expected  # exact: every product here is a whole or half number
    assert set(over_time["card_definition_name"]) == {"Beans", "Stars"}  # Spare holds nothing
    from_snapshots = economics_over_time([s for _, s in pulls], hand_values(), 0.5)
    pd.testing.assert_frame_equal(from_snapshots, over_time)


def test_redemption_rate_from_balance_moves_by_hand(history: SnapshotHistory) -> None:
    before, after = owed_program(), later_program()
    balances = {c["id"]: c["balance"]["points"] for c in before["cards"]}
    activated = {"lcrd_b0e0000001": 120}  # bucket 1 went from PENDING to ACTIVATED
    issued = sum(activated.values())
    redeemed = 0
    for card in after["cards"]:
        net = card["balance"]["points"] - balances.get(card["id"], 0) - activated.get(card["id"], 0)
        issued += max(net, 0)
        redeemed += max(-net, 0)
    assert (issued, redeemed) == (470, 300)  # 120 + 300 + 50 issued; 200 + 100 redeemed
    rate, method = estimate_redemption_rate(history)
    assert rate == pytest.approx(redeemed / issued)
    assert "300 points left card balances; 470 were issued" in method
    assert "2 snapshots from 2026-01-15 12:00 to 2026-02-14 12:00 UTC" in method


def test_redemption_rate_counts_a_canceled_bucket_neither_issued_nor_redeemed(
    pulls: list[tuple[Any, ProgramSnapshot]],
) -> None:
    """The service lists PENDING buckets only: a bucket activated and one canceled both leave
    the list. The card's lifetime count of canceled pending points tells them apart: the
    canceled one's points never reached the balance, so they are not issued, and the balance
    not rising by them is not a redemption."""
    first = pulls[0][1]
    frames = first.frames()
    cards = frames["cards"].copy()
    cards["lifetime_pending_canceled"] = pd.array([0] * len(cards), dtype="Int64")
    before = ProgramSnapshot.from_frames({**frames, "cards": cards}, pulled_at=first.pulled_at)
    later = cards.copy()
    activated = later["id"] == "lcrd_b0e0000001"  # bucket 1 (120) activated: to the balance
    later.loc[activated, ["balance_points", "balance_pending_points"]] = [620, 0]
    canceled = later["id"] == "lcrd_b0e0000002"  # bucket 3 (40) canceled, bucket 2 kept
    later.loc[canceled, ["balance_pending_points", "lifetime_pending_canceled"]] = [80, 40]
    buckets = frames["pending_buckets"]
    left = buckets[~buckets["id"].isin(["lcppb_b0e0000001", "lcppb_b0e0000003"])]
    after = ProgramSnapshot.from_frames(
        {**frames, "cards": later, "pending_buckets": left.reset_index(drop=True)},
        pulled_at=LATER,
    )
    rate, method = estimate_redemption_rate([before, after])
    assert rate == 0.0
    assert "0 points left card balances; 120 were issued (120 by pending buckets" in method


def test_redemption_rate_needs_two_snapshots_with_points_issued(
    pulls: list[tuple[Any, ProgramSnapshot]],
) -> None:
    first = pulls[0][1]
    with pytest.raises(ValueError, match="at least 2 snapshots, got 1"):
        estimate_redemption_rate([first])
    same = ProgramSnapshot.from_frames(first.frames(), pulled_at=LATER)
    with pytest.raises(ValueError, match="no points were issued"):
        estimate_redemption_rate([first, same])


def test_empty_history_gives_the_declared_dtypes(tmp_path: Path) -> None:
    over_time = economics_over_time(SnapshotHistory(tmp_path), hand_values())
    assert over_time.empty
    assert dict(over_time.dtypes) == ECONOMICS_SCHEMAS["economics_over_time"].dtypes


def test_values_default_to_the_latest_snapshots_point_values(history: SnapshotHistory) -> None:
    spending = GIFT_CARD["costs"][0]["spending"][0]["points"]
    per_point = GIFT_CARD["digital"]["gift_vouchers"]["balance"] / spending  # 200 / 400
    over_time = economics_over_time(history)
    beans = over_time[over_time["card_definition_id"] == BEANS]
    owed = (beans["outstanding_points"] + beans["pending_points"]).astype("Float64")
    assert list(beans["liability_median"]) == list(owed * per_point)
    assert over_time.loc[over_time["card_definition_id"] == STARS, "liability_median"].isna().all()
