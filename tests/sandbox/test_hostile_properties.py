"""Property tests over real HTTP: whatever the input, never a 5xx, and a 4xx names a field.

Hypothesis draws list queries (filters, order, cursor, limit), numbers and timestamps
in bodies, and metadata of any depth; every answer must be below 500, and every 4xx
must be the spec's error object whose ``details`` name the field at fault. Runs are
bounded (a fixed number of examples, derandomised) and share one sandbox.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shared_tls import TLS

from lyt_toolkit.models.numbers import number_problem
from lyt_toolkit.sandbox import Sandbox

from .tally import TALLY

BOUNDED = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
LISTS = ["/v2/loyalties/benefits", "/v2/loyalties/rewards", "/v2/loyalties/card-definitions"]
VALIDATE = "/v1/promotions/tiers/promo_NwTier0006/validation"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=11) as sb:
        headers = sb.v2_headers("loyalties api promotions")
        with httpx.Client(base_url=sb.base_url, headers=headers, timeout=10, verify=TLS) as http:
            yield http


def check(response: httpx.Response, *fields: str) -> None:
    """Below 500; a 4xx is the error object and its details name one of ``fields``."""
    TALLY.add("hypothesis", response.status_code)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        body = response.json()
        assert body["code"] == response.status_code and body["key"] and body["request_id"]
        assert any(field in body.get("details", "") for field in fields), (fields, body)


# -- list queries ----------------------------------------------------------------------

hostile_text = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=12
) | st.sampled_from(
    ["²", "\u0661\u0660", "0", "-1", "1e3", "1_0", " 5", "9" * 30, "now", "2026-01-01"]
)
fields = st.sampled_from(["created_at", "updated_at", "name", "status", "type", "id", "metadata"])
conditions = st.sampled_from(
    ["$is", "$is_not", "$in", "$not_in", "$contains", "$starts_with", "$before", "$after",
     "$more_than", "$less_than", "$is_unknown", "$has_value", "$gt", "is"]
)  # fmt: skip
filters = st.lists(
    st.tuples(fields, conditions, hostile_text).map(
        lambda t: (f"filters[{t[0]}][conditions][{t[1]}]", t[2])
    ),
    max_size=3,
)
others = st.lists(
    st.tuples(
        st.sampled_from(["limit", "order", "cursor", "filters[junction]"]),
        hostile_text | st.sampled_from(["-created_at", "name,-id", "lcrsben_00ff", "OR"]),
    ),
    max_size=3,
)


@BOUNDED
@given(path=st.sampled_from(LISTS), params=filters, extra=others)
@example(path=LISTS[0], params=[("filters[created_at][conditions][$is]", "²")], extra=[])
def test_list_queries_never_5xx(
    client: httpx.Client, path: str, params: list[tuple[str, str]], extra: list[tuple[str, str]]
) -> None:
    response = client.get(path, params=tuple(params + extra))
    check(response, "filters", "limit", "order", "cursor", "junction")


# -- numbers and timestamps in bodies ----------------------------------------------------

number_tokens = (
    st.integers().map(str)
    | st.integers(min_value=2**62, max_value=2**70).map(lambda n: str(n * (-1) ** (n % 2)))
    | st.floats(allow_nan=False, allow_infinity=False).map(repr)
    | st.sampled_from(["Infinity", "-Infinity", "NaN", "2e308", "-1e400", "1e-400", "-0"])
)


def out_of_bounds(token: str) -> bool:
    """Whether the JSON number ``token`` is one the interface cannot carry."""
    return number_problem(json.loads(token, parse_constant=lambda c: float(c))) is not None


@BOUNDED
@given(token=number_tokens)
def test_order_amounts_never_5xx(client: httpx.Client, token: str) -> None:
    body = '{"order": {"amount": %s, "metadata": {"n": %s}}}' % (token, token)  # noqa: UP031
    response = client.post(VALIDATE, content=body.encode(), headers=JSON)
    check(response, "order.")
    assert response.status_code == 400 or not out_of_bounds(token), response.text


@BOUNDED
@given(token=number_tokens)
def test_benefit_points_never_5xx(client: httpx.Client, token: str) -> None:
    body = json.dumps(
        {
            "name": f"Hostile {token}"[:60],
            "type": "POINTS",
            "points": {"value": "TOKEN", "card_definition_id": "lcdef_c0ffee0001"},
        }
    ).replace('"TOKEN"', token)
    response = client.post("/v2/loyalties/benefits", content=body.encode(), headers=JSON)
    check(response, "points")
    assert response.status_code == 400 or not out_of_bounds(token), response.text


offsets = st.integers(min_value=-23 * 60, max_value=23 * 60).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
timestamps = (
    st.datetimes(timezones=st.just(UTC) | offsets).map(datetime.isoformat)
    | st.sampled_from(["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-14:00", "2026-02-30"])
    | hostile_text
)


@BOUNDED
@given(moment=timestamps)
def test_order_timestamps_never_5xx(client: httpx.Client, moment: str) -> None:
    response = client.post(VALIDATE, json={"order": {"amount": 100, "created_at": moment}})
    check(response, "order.created_at")


@BOUNDED
@given(moment=timestamps, condition=st.sampled_from(["$before", "$after"]))
def test_date_filters_never_5xx(client: httpx.Client, moment: str, condition: str) -> None:
    response = client.get(
        LISTS[0], params={f"filters[created_at][conditions][{condition}]": moment}
    )
    check(response, "filters.created_at")


# -- metadata of any shape and depth ----------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=20,
)


def nested(depth: int, leaf: Any) -> Any:
    for level in range(depth):
        leaf = {"k": leaf} if level % 2 else [leaf]
    return leaf


@BOUNDED
@given(depth=st.integers(min_value=0, max_value=400), leaf=json_values)
def test_metadata_of_any_depth_never_5xx(client: httpx.Client, depth: int, leaf: Any) -> None:
    body = json.dumps({"metadata": {"m": nested(depth, leaf)}, "order": {"amount": 100}})
    check(client.post(VALIDATE, content=body.encode(), headers=JSON), "metadata")
