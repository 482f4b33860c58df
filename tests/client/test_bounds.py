"""Numbers the interface cannot carry are refused locally, naming the field, before any request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import RequestValidationError

from .helpers import APP_TOKEN
from .misbehaving import MisbehavingServer


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    with MisbehavingServer.running() as running:
        yield running


@pytest.fixture
def client(server: MisbehavingServer) -> Iterator[LoyaltyClient]:
    settings: dict[str, Any] = {
        "app_id": "bounds-app",
        "app_token": APP_TOKEN,
        "timeout": 5,
        "env_file": None,
    }
    with LoyaltyClient(base_url=server.base_url, **settings) as c:
        yield c


def test_a_body_integer_beyond_64_bits_is_refused(
    server: MisbehavingServer, client: LoyaltyClient
) -> None:
    points = {"value": 2**63, "card_definition_id": "lcdef_c0ffee0001"}
    with pytest.raises(RequestValidationError) as info:
        client.benefits.create({"name": "Huge", "type": "POINTS", "points": points})
    assert info.value.field == "points.value"
    assert server.hits["/v2/loyalties/benefits"] == 0


def test_a_non_finite_body_number_is_refused(
    server: MisbehavingServer, client: LoyaltyClient
) -> None:
    with pytest.raises(RequestValidationError, match="finite") as info:
        client.request("POST", "/v1/anything", json={"order": {"amount": float("inf")}})
    assert info.value.field == "order.amount"
    assert server.hits["/v1/anything"] == 0


def test_a_non_ascii_digit_in_a_day_count_filter_is_refused(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError) as info:
        client.rewards.list(filters={"created_at": {"$is": "²"}})
    assert info.value.field == "filters.created_at.$is"


def test_a_filter_integer_beyond_64_bits_is_refused(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError, match="64-bit") as info:
        client.rewards.list(filters={"created_at": {"$more_than": 2**64}})
    assert info.value.field == "filters.created_at.$more_than"


def test_a_non_finite_filter_value_is_refused(client: LoyaltyClient) -> None:
    with pytest.raises(RequestValidationError, match="finite") as info:
        client.rewards.list(filters={"name": {"$is": float("nan")}})
    assert info.value.field == "filters.name.$is"
