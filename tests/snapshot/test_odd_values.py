"""Odd values in a pull: NA with a warning, never stopping the pull, an export or a history."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import read_snapshot
from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.snapshot import SnapshotHistory

from .conftest import StartSandbox
from .helpers import assert_same, demo_program, pull


@pytest.mark.parametrize(
    "moment",
    ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"],
    ids=["year 0 in UTC", "year 10000 in UTC"],
)
def test_an_instant_beyond_the_years_at_any_offset_is_an_odd_value(
    start_sandbox: StartSandbox, moment: str
) -> None:
    program = demo_program()
    odd = program["benefits"][0]
    odd["created_at"] = moment
    with start_sandbox(program) as sb, pytest.warns(OddValueWarning) as caught:
        snapshot = pull(sb)
    benefits = snapshot.benefits.set_index("id")
    assert pd.isna(benefits.loc[odd["id"], "created_at"])
    assert benefits.drop(odd["id"])["created_at"].notna().all()
    [warning] = [str(w.message) for w in caught if odd["id"] in str(w.message)]
    assert warning.startswith(f"benefits id {odd['id']}: field 'created_at'")
    assert snapshot.odd_values[["kind", "id", "field", "outcome"]].to_dict("records") == [
        {"kind": "benefits", "id": odd["id"], "field": "created_at", "outcome": "set to NA"}
    ]


def test_a_frames_odd_values_are_shared_by_what_is_derived_from_it_not_copied(
    start_sandbox: StartSandbox,
) -> None:
    program = demo_program()
    odd = program["rewards"][0]
    odd["end_date"] = "9999-12-31"
    with start_sandbox(program) as sb, pytest.warns(OddValueWarning, match=odd["id"]):
        rewards = pull(sb, kinds=["rewards"]).rewards
    met = rewards.attrs["odd_values"]
    [found] = met
    assert (found.kind, found.id, found.field) == ("rewards", odd["id"], "end_date")
    assert isinstance(met, tuple) and met == (found,) and repr(met) == repr((found,))
    derived = [rewards.copy(), rewards["id"], rewards.head(2), rewards[rewards["id"] == odd["id"]]]
    for frame in derived:  # pandas deep-copies attrs: the frozen records are shared instead
        assert frame.attrs["odd_values"] is met


def test_an_odd_value_never_stops_an_export_or_a_history(
    start_sandbox: StartSandbox, tmp_path: Path
) -> None:
    program = demo_program()
    odd = program["rewards"][0]
    odd["end_date"] = "9999-12-31"
    with start_sandbox(program) as sb, pytest.warns(OddValueWarning, match=odd["id"]):
        snapshot = pull(sb)
    assert snapshot.odd_values["field"].tolist() == ["end_date"]

    snapshot.to_parquet(tmp_path / "parquet")
    assert_same(read_snapshot(tmp_path / "parquet"), snapshot)
    snapshot.to_csv(tmp_path / "csv")
    assert_same(read_snapshot(tmp_path / "csv"), snapshot)
    history = SnapshotHistory(tmp_path / "history")
    history.append(snapshot)
    assert_same(history.load(snapshot.pulled_at), snapshot)
