"""Promotion tier analysis over HTTP: ``what_if`` frames, ``frame()``, and the warning for
amounts that look like major units."""

from __future__ import annotations

import asyncio
import warnings

import pandas as pd
import pytest

from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.client.resources.promotion_tiers import WHAT_IF_COLUMNS, MinorUnitsWarning
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_kwargs

CUSTOMER = {"source_id": "what-if-test"}
ORDERS = [
    {"amount": 20000, "items": [{"product_id": "prod_0b1e55ed0006", "quantity": 2}]},
    {"items": [{"product_id": "prod_0b1e55ed0006", "quantity": 1}]},
    {"amount": 500},
]


def _tier_ids(client: LoyaltyClient) -> list[str]:
    return [tier.id for tier in client.promotion_tiers.iter()]


def test_what_if_has_one_row_per_order_as_validate_answers(client: LoyaltyClient) -> None:
    seen_valid = seen_invalid = False
    for tier_id in _tier_ids(client):
        frame = client.promotion_tiers.what_if(tier_id, customer=CUSTOMER, orders=ORDERS)
        assert list(frame.columns) == list(WHAT_IF_COLUMNS)
        assert frame.index.name == "order" and list(frame.index) == [0, 1, 2]
        assert str(frame["valid"].dtype) == "boolean"
        assert str(frame["discount_amount"].dtype) == "Int64"
        for number, order in enumerate(ORDERS):
            one = client.promotion_tiers.validate(tier_id, customer=CUSTOMER, order=order)
            row = frame.loc[number]
            assert bool(row["valid"]) is one.valid
            if one.valid:
                seen_valid = True
                assert row["discount_amount"] == one.discount_amount
                assert row["applied_discount_amount"] == one.applied_discount_amount
                assert pd.isna(row["reason"])
                assert one.order is not None and row["amount"] == one.order.amount
            else:
                seen_invalid = True
                assert row["reason"] == one.reason and one.reason
                assert pd.isna(row["discount_amount"])
                assert pd.isna(row["applied_discount_amount"])
    assert seen_valid and seen_invalid


def test_an_amount_that_looks_like_major_units_warns_naming_the_field(
    client: LoyaltyClient,
) -> None:
    tier_id = _tier_ids(client)[0]
    with pytest.warns(MinorUnitsWarning, match=r"order\.amount=10 .*0\.10"):
        client.promotion_tiers.what_if(tier_id, customer=CUSTOMER, orders=[{"amount": 10}])
    item = {"items": [{"product_id": "prod_0b1e55ed0006", "quantity": 1, "price": 5}]}
    with pytest.warns(MinorUnitsWarning, match=r"order\.items\.0\.price=5"):
        client.promotion_tiers.validate(tier_id, customer=CUSTOMER, order=item)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MinorUnitsWarning)
        client.promotion_tiers.what_if(tier_id, customer=CUSTOMER, orders=[{"amount": 1000}])


def test_what_if_refuses_orders_that_are_not_a_list(client: LoyaltyClient) -> None:
    from lyt_toolkit.errors import RequestValidationError

    tier_id = _tier_ids(client)[0]
    with pytest.raises(RequestValidationError) as refused:
        client.promotion_tiers.what_if(tier_id, orders={"amount": 1000})  # type: ignore[arg-type]  # not a list
    assert refused.value.field == "orders"
    with pytest.raises(RequestValidationError, match=r"orders\[1\]"):
        client.promotion_tiers.what_if(tier_id, orders=[{"amount": 1000}, {"amount": "lots"}])


def test_frame_has_one_typed_row_per_tier(client: LoyaltyClient) -> None:
    frame = client.promotion_tiers.frame()
    tiers = list(client.promotion_tiers.iter())
    assert list(frame["id"]) == [t.id for t in tiers]
    assert str(frame["active"].dtype) == "boolean"
    assert str(frame["start_date"].dtype).startswith("datetime64") and "UTC" in str(
        frame["start_date"].dtype
    )
    assert set(frame["discount_type"].dropna()) <= {"AMOUNT", "PERCENT", "FIXED", "UNIT"}
    assert frame["discount_type"].notna().any()
    assert list(frame["campaign_id"]) == [t.campaign_id or t.campaign.id for t in tiers]  # type: ignore[union-attr]


def test_the_async_twins_answer_as_the_sync_ones(client: LoyaltyClient, fresh: Sandbox) -> None:
    tier_id = _tier_ids(client)[0]
    expected = client.promotion_tiers.what_if(tier_id, customer=CUSTOMER, orders=ORDERS)
    expected_tiers = client.promotion_tiers.frame()

    async def run() -> tuple[pd.DataFrame, pd.DataFrame]:
        async with AsyncLoyaltyClient(**client_kwargs(fresh)) as aclient:
            frame = await aclient.promotion_tiers.what_if(tier_id, customer=CUSTOMER, orders=ORDERS)
            return frame, await aclient.promotion_tiers.frame()

    frame, tiers = asyncio.run(run())
    pd.testing.assert_frame_equal(frame, expected)
    pd.testing.assert_frame_equal(tiers, expected_tiers)
