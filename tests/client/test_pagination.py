"""Cursor iteration: the same items as one big page, with the query kept across pages."""

from __future__ import annotations

from typing import Any

import pytest

from lyt_toolkit.client import LoyaltyClient

from .helpers import Recorder


@pytest.mark.parametrize("limit", [1, 3, 10])
def test_iteration_equals_a_single_big_page(client: LoyaltyClient, limit: int) -> None:
    big = [r.id for r in client.rewards.list(limit=100).data]
    assert [r.id for r in client.rewards.iter(limit=limit)] == big
    pages = list(client.rewards.pages(limit=limit))
    assert sum(len(p.data) for p in pages) == len(big)


def test_filters_and_order_travel_with_the_cursor(client: LoyaltyClient) -> None:
    query: dict[str, Any] = {
        "filters": {"type": {"$in": ["POINTS", "DIGITAL"]}, "name": {"$contains": "o"}},
        "junction": "AND",
        "order": ["type", "-name"],
    }
    big = client.benefits.list(limit=100, **query).data
    assert big and all(b.type in ("POINTS", "DIGITAL") and "o" in b.name.lower() for b in big)
    walked = list(client.benefits.iter(limit=2, **query))
    assert [b.id for b in walked] == [b.id for b in big]


def test_or_junction(client: LoyaltyClient) -> None:
    either = client.rewards.list(
        limit=100,
        filters={"id": {"$is": "lrew_c0ffee0001"}, "name": {"$contains": "latte"}},
        junction="OR",
    ).data
    names = {r.name for r in either}
    assert "Free Espresso Shot" in names and "Free Latte" in names


def test_full_conditions_form_is_accepted(client: LoyaltyClient) -> None:
    short = client.rewards.list(limit=100, filters={"name": {"$starts_with": "free"}}).data
    full = client.rewards.list(
        limit=100, filters={"name": {"conditions": {"$starts_with": "free"}}}
    ).data
    assert [r.id for r in short] == [r.id for r in full] and short


def test_id_in_list_is_sent_as_repeated_keys(client: LoyaltyClient, recorder: Recorder) -> None:
    ids = ["lrew_c0ffee0001", "lrew_c0ffee0002", "lrew_c0ffee0003"]
    found = client.rewards.list(limit=100, filters={"id": {"$in": ids}}).data
    assert sorted(r.id for r in found) == ids


def test_presence_conditions(client: LoyaltyClient) -> None:
    with_updates = client.rewards.list(limit=100, filters={"created_at": {"$has_value": True}})
    assert len(with_updates.data) == len(client.rewards.list(limit=100).data)


def test_iter_is_lazy(client: LoyaltyClient, recorder: Recorder) -> None:
    items = client.rewards.iter(limit=2)
    first = next(iter(items))
    assert first.id
    assert recorder.count("GET", "/v2/loyalties/rewards") == 1
