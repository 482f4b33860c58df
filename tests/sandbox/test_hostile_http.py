"""Hostile requests, one case each: a 4xx error object naming the field, never a 500.

And when a 500 does happen, the keep-alive connection it happened on still works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.services import promotions

from .helpers import assert_bad_request, assert_error, walk
from .rawhttp import RawConnection, send_bytes

BENEFITS = "/v2/loyalties/benefits"
TIERS = "/v1/promotions/tiers"
VALIDATE = f"{TIERS}/promo_NwTier0001/validation"
JSON = {"Content-Type": "application/json"}


def points_benefit(value: str) -> bytes:
    """A benefit body whose ``points.value`` is ``value`` written as is (any JSON token)."""
    body = {
        "name": "Hostile",
        "type": "POINTS",
        "points": {"value": "VALUE", "card_definition_id": "lcdef_c0ffee0001"},
    }
    return json.dumps(body).replace('"VALUE"', value).encode()


def test_non_ascii_digit_in_a_date_filter_is_400(api: httpx.Client) -> None:
    response = api.get(BENEFITS, params={"filters[created_at][conditions][$is]": "²"})
    assert_bad_request(response, "filters.created_at.conditions.$is")


def test_metadata_nested_256_levels_is_400(api: httpx.Client) -> None:
    deep: dict = {}
    node = deep
    for _ in range(256):
        node["a"] = {}
        node = node["a"]
    response = api.post(VALIDATE, json={"metadata": deep, "order": {"amount": 100}})
    assert_bad_request(response, "metadata.a.a", "nested deeper")


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_timestamp_beyond_the_years_is_400(api: httpx.Client, moment: str) -> None:
    response = api.post(VALIDATE, json={"order": {"amount": 100, "created_at": moment}})
    assert_bad_request(response, "order.created_at")


@pytest.mark.parametrize("value", [str(2**63), str(-(2**63) - 1)])
def test_integer_beyond_64_bits_is_400(api: httpx.Client, restore: Sandbox, value: str) -> None:
    response = api.post(BENEFITS, content=points_benefit(value), headers=JSON)
    assert_bad_request(response, "points.value", "64-bit")


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "2e308"])
def test_non_finite_number_is_400(api: httpx.Client, restore: Sandbox, value: str) -> None:
    response = api.post(BENEFITS, content=points_benefit(value), headers=JSON)
    assert_bad_request(response, "points.value", "not finite")


def test_largest_64_bit_integer_is_not_refused_as_a_bound(
    api: httpx.Client, restore: Sandbox
) -> None:
    response = api.post(BENEFITS, content=points_benefit(str(2**63 - 1)), headers=JSON)
    assert "64-bit" not in response.text and response.status_code < 500


def test_non_finite_number_in_metadata_is_400(api: httpx.Client) -> None:
    body = b'{"order": {"amount": 100, "metadata": {"weight": 1e400}}}'
    assert_bad_request(api.post(VALIDATE, content=body, headers=JSON), "order.metadata.weight")


@pytest.fixture
def failing_list(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The tiers list fails with an unexpected exception (a sandbox bug, not the caller's)."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(promotions, "list_promotion_tiers", broken)
    yield


def test_a_500_keeps_the_connection_usable(
    sandbox: Sandbox, key_headers: dict[str, str], failing_list: None
) -> None:
    with RawConnection(sandbox.base_url) as conn:
        failed = conn.request("GET", TIERS, key_headers)
        assert failed.status == 500 and failed.json()["key"] == "internal_error"
        assert "simulated bug" not in failed.body.decode()
        body = b'{"order": {"amount": 100}}'
        after = conn.request("POST", VALIDATE, {**key_headers, **JSON}, body)
        assert after.status == 200 and after.json()["object"] == "promotion_tier"


def test_body_shorter_than_its_content_length_is_408(key_headers: dict[str, str]) -> None:
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=7, body_timeout=0.5) as sb:
        head = "".join(f"{k}: {v}\r\n" for k, v in key_headers.items())
        request = (
            f"POST {VALIDATE} HTTP/1.1\r\nHost: sandbox\r\n{head}"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}"
        ).encode()
        answer = send_bytes(sb.base_url, request, timeout=10)
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"code":408' in rest and b"body" in rest


def test_one_megabyte_url_is_414(sandbox: Sandbox, key_headers: dict[str, str]) -> None:
    with RawConnection(sandbox.base_url) as conn:
        response = conn.request("GET", f"{TIERS}?x={'a' * 1_000_000}", key_headers)
    assert response.status == 414
    body = response.json()
    assert body["code"] == 414 and "url" in body["details"]


def test_declared_body_over_the_limit_is_413(sandbox: Sandbox, key_headers: dict[str, str]) -> None:
    with RawConnection(sandbox.base_url) as conn:
        response = conn.request("POST", VALIDATE, {**key_headers, **JSON}, b"[" * 1_100_000)
    assert response.status == 413 and response.json()["code"] == 413


def test_trailing_slash_is_404_without_a_redirect(api: httpx.Client) -> None:
    response = api.get(f"{BENEFITS}/", headers={"Host": "evil.example"}, follow_redirects=False)
    body = assert_error(response, 404)
    assert "location" not in response.headers and "evil.example" not in body.get("details", "")


def test_body_that_is_not_utf8_is_400_naming_the_body(api: httpx.Client) -> None:
    response = api.post(VALIDATE, content=b'\xff\xfe{"order": {}}', headers=JSON)
    assert_bad_request(response, "body:")


LONE = "\ud800"  # json.dumps writes it as the escape "\ud800": no UTF-8 can carry it
MUG = {"name": "Lone mug", "type": "MATERIAL", "material": {"product": {"id": LONE}}}
COUPONS = {"name": "Lone coupons", "type": "DIGITAL", "digital": {"discount_coupons": {}}}


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        (
            VALIDATE,
            {"customer": {"source_id": LONE}, "order": {"amount": 100}},
            "customer.source_id",
        ),
        (VALIDATE, {"customer": {"id": LONE}, "order": {"amount": 100}}, "customer.id"),
        (VALIDATE, {"order": {"id": LONE, "amount": 100}}, "order.id"),
        (
            VALIDATE,
            {"order": {"items": [{"product_id": "\udfff", "quantity": 1}]}},
            "order.items[0].product_id",
        ),
        (VALIDATE, {"order": {"amount": 100}, "metadata": {LONE: 1}}, "metadata.\\ud800"),
        (BENEFITS, MUG, "material.product.id"),
        (
            BENEFITS,
            {**COUPONS, "digital": {"discount_coupons": {"campaign_id": LONE}}},
            "digital.discount_coupons.campaign_id",
        ),
        ("/_sandbox/clock/set", {"now": LONE}, "now"),
    ],
    ids=[
        "source-id",
        "customer-id",
        "order-id",
        "product-id",
        "metadata-key",
        "product",
        "campaign",
        "clock",
    ],
)
def test_lone_surrogate_in_a_string_is_400_naming_the_field(
    api: httpx.Client, restore: Sandbox, path: str, body: dict, named: str
) -> None:
    before = (walk(api, BENEFITS, [("limit", 100)]), restore.now())
    raw = json.dumps(body).encode()
    assert b"\\ud800" in raw or b"\\udfff" in raw
    response = api.post(path, content=raw, headers=JSON)
    details = assert_bad_request(response, f"{named}: ", "lone surrogate")["details"]
    assert details.startswith(named)
    assert (walk(api, BENEFITS, [("limit", 100)]), restore.now()) == before


def test_escaped_surrogate_pair_is_text(api: httpx.Client, restore: Sandbox) -> None:
    body: dict[str, object] = {"name": "Mug \ud83c\udf75", "type": "MATERIAL"}
    body["material"] = {"product": {"id": "prod_0b1e55ed0002"}}
    response = api.post(BENEFITS, content=json.dumps(body).encode(), headers=JSON)
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "Mug \U0001f375"
