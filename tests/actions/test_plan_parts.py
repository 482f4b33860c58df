"""The parts of a plan run that need no service: payloads and dtypes."""

from __future__ import annotations

import pytest

from lyt_toolkit.actions import ItemResult, Outcome, PlanItem
from lyt_toolkit.actions.results import results_frame


def test_valid_item_sends_its_payload() -> None:
    assert PlanItem(target="a", summary="s", payload=("p", 1)).to_send == ("p", 1)


def test_item_without_payload_refuses_to_send() -> None:
    with pytest.raises(ValueError, match="nothing to send"):
        _ = PlanItem[str](target="a", summary="s", error="bad").to_send


def test_results_keep_nullable_dtypes() -> None:
    items = [PlanItem(target="a", summary="s", payload="a", row=1)]
    frame = results_frame(items, [ItemResult(Outcome.FAILED, status=None)])
    assert str(frame["status"].dtype) == "Int64"
