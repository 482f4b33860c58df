"""Odd values flag their rows: ``attrs["odd_values"]``, ``snapshot.odd_values``, the audit."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit.audit import run
from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.fill.pull import _Puller
from lyt_toolkit.frames import benefits_frame
from lyt_toolkit.frames.benefits import BENEFITS
from lyt_toolkit.frames.schema import OddValue
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.snapshot.references import mark_card_definitions

from .test_odd_values import ROWS, benefit, points_benefit, row

RULE = "odd-value-in-answer"


def odd_benefits() -> pd.DataFrame:
    with pytest.warns(OddValueWarning):
        return benefits_frame([points_benefit(10, "lben_9009d"), points_benefit(2**64)])


def test_build_records_each_odd_value_in_attrs() -> None:
    with pytest.warns(OddValueWarning):
        frame = ROWS.build([row(count=2**70), row(id="t2", status="RETIRED"), row(id="t3")])
    assert frame.attrs["odd_values"] == (
        OddValue("things", "t1", "count", str(2**70), "set to NA"),
        OddValue("things", "t2", "status", "RETIRED", "kept as a new category"),
    )


def test_clean_build_records_nothing() -> None:
    assert ROWS.build([row()]).attrs["odd_values"] == ()


def test_records_are_not_capped_like_the_warnings() -> None:
    with pytest.warns(OddValueWarning):
        frame = ROWS.build([row(id=f"t{i}", count=2**70) for i in range(30)])
    assert len(frame.attrs["odd_values"]) == 30


def test_the_snapshot_gathers_odd_values_from_its_frames() -> None:
    snapshot = ProgramSnapshot.from_frames({"benefits": odd_benefits()})
    odd = snapshot.odd_values
    assert odd.to_dict("records") == [
        {
            "kind": "benefits",
            "id": "lben_0dd1",
            "field": "points_value",
            "value": str(2**64),
            "outcome": "set to NA",
        }
    ]
    assert list(odd.columns) == ["kind", "id", "field", "value", "outcome"]
    assert (odd.dtypes == "string").all()


def test_the_snapshot_keeps_them_when_frame_attrs_are_lost() -> None:
    snapshot = ProgramSnapshot.from_frames({"benefits": odd_benefits()})
    snapshot.benefits = snapshot.benefits.copy()
    snapshot.benefits.attrs.clear()
    assert len(snapshot.odd_values) == 1


def test_a_clean_snapshot_has_zero_odd_rows_with_declared_dtypes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        snapshot = ProgramSnapshot.from_frames({"benefits": benefits_frame([benefit()])})
    odd = snapshot.odd_values
    assert odd.empty
    assert list(odd.columns) == ["kind", "id", "field", "value", "outcome"]
    assert (odd.dtypes == "string").all()
    assert run(snapshot, [RULE]).empty


def test_the_audit_flags_the_row_naming_field_and_value() -> None:
    findings = run(ProgramSnapshot.from_frames({"benefits": odd_benefits()}), [RULE])
    assert len(findings) == 1
    found = findings.iloc[0]
    assert found["severity"] == "warning"
    assert found["resource_type"] == "benefit"
    assert found["resource_id"] == "lben_0dd1"
    assert "points_value" in found["message"] and str(2**64) in found["message"]


def test_the_audit_gives_one_finding_per_flagged_row() -> None:
    odd = [
        OddValue("benefits", "lben_1", "points_value", "1e99", "set to NA"),
        OddValue("benefits", "lben_1", "status", "RETIRED", "kept as a new category"),
        OddValue("rewards", "lrew_2", "status", "GONE", "kept as a new category"),
    ]
    findings = run(ProgramSnapshot.from_frames({}, odd_values=odd), [RULE])
    assert findings["resource_id"].tolist() == ["lben_1", "lrew_2"]
    assert "status" in findings["message"].iloc[0] and "RETIRED" in findings["message"].iloc[0]


class _OddTokenClient:
    """Just enough of an async client for ``_service_start``: a token with odd times."""

    def __init__(self, expires_at: Any, expires_in: Any) -> None:
        self.issued = expires_at - expires_in

    def token_issued_at(self) -> Any:
        return self.issued


@pytest.mark.parametrize("expires_at", [10**30, 2**70])
def test_an_odd_token_time_falls_back_to_this_machines_clock(expires_at: int) -> None:
    puller = _Puller(_OddTokenClient(expires_at, 3600), False, 1)  # type: ignore[arg-type]
    before = pd.Timestamp.now(tz="UTC")
    with pytest.warns(OddValueWarning, match="token"):
        now = puller._service_start()
    assert before <= now <= pd.Timestamp.now(tz="UTC")


def test_a_normal_token_time_is_the_services_clock() -> None:
    puller = _Puller(_OddTokenClient(1_768_478_400 + 3600, 3600), False, 1)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        now = puller._service_start()
    assert now == pd.Timestamp("2026-01-15T12:00:00Z")


def test_the_pulls_reference_marking_keeps_the_record() -> None:
    marked = mark_card_definitions(odd_benefits(), BENEFITS, {"lcdef_1": "ACTIVE"})
    assert [o.field for o in marked.attrs["odd_values"]] == ["points_value"]
