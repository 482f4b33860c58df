"""The parts of a plan run that need no service: payloads, the credential scrubber, dtypes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import SecretStr

from lyt_toolkit.actions import ItemResult, Outcome, PlanItem
from lyt_toolkit.actions._scrub import credential_scrubber
from lyt_toolkit.actions.results import results_frame


def _client(app_token: str, management_token: str | None = None) -> SimpleNamespace:
    secret = SecretStr(management_token) if management_token else None
    config = SimpleNamespace(app_token=SecretStr(app_token), management_token=secret)
    return SimpleNamespace(config=config)


def test_valid_item_sends_its_payload() -> None:
    assert PlanItem(target="a", summary="s", payload=("p", 1)).to_send == ("p", 1)


def test_item_without_payload_refuses_to_send() -> None:
    with pytest.raises(ValueError, match="nothing to send"):
        _ = PlanItem[str](target="a", summary="s", error="bad").to_send


def test_scrubber_masks_every_credential() -> None:
    scrub = credential_scrubber(_client("app-secret-1", "mgmt-secret-2"))
    assert scrub("app-secret-1 then mgmt-secret-2") == "*** then ***"


def test_scrubber_leaves_values_too_short_to_be_credentials() -> None:
    assert credential_scrubber(_client("abc"))("abc def") == "abc def"


def test_scrubber_without_a_config_changes_nothing() -> None:
    assert credential_scrubber(None)("text") == "text"


def test_results_keep_nullable_dtypes() -> None:
    items = [PlanItem(target="a", summary="s", payload="a", row=1)]
    frame = results_frame(items, [ItemResult(Outcome.FAILED, status=None)])
    assert str(frame["status"].dtype) == "Int64"
