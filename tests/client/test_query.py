"""List queries: encoded as the service expects, and mistakes caught before sending."""

from __future__ import annotations

import numpy as np
import pytest

from lyt_toolkit.client import ListQuery, LoyaltyClient
from lyt_toolkit.errors import RequestValidationError
from lyt_toolkit.models.listing import BENEFITS, PENDING_BUCKETS, REWARDS


def test_encoding_of_filters_order_and_cursor() -> None:
    query = ListQuery.build(
        BENEFITS,
        limit=20,
        order=["name", "-created_at"],
        filters={
            "name": {"$contains": "gold"},
            "id": {"conditions": {"$in": ["lben_01", "lben_02"]}},
        },
        junction="or",
    )
    assert query.params() == [
        ("limit", "20"),
        ("order", "name"),
        ("order", "-created_at"),
        ("filters[name][conditions][$contains]", "gold"),
        ("filters[id][conditions][$in]", "lben_01"),
        ("filters[id][conditions][$in]", "lben_02"),
        ("filters[junction]", "OR"),
    ]
    nxt = query.with_cursor("lcrsben_abc123")
    assert nxt.params()[:-1] == query.params() and nxt.params()[-1] == ("cursor", "lcrsben_abc123")


def test_junction_inside_filters_and_presence_checks() -> None:
    query = ListQuery.build(
        REWARDS, filters={"junction": "AND", "created_at": {"$has_value": True}}
    )
    assert query.params() == [
        ("filters[created_at][conditions][$has_value]", ""),
        ("filters[junction]", "AND"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"filters": {"colour": {"$is": "red"}}}, "filters.colour", "cannot be filtered"),
        ({"filters": {"name": {"$before": "x"}}}, "filters.name.$before", "not allowed"),
        ({"filters": {"name": {"$is": ["a", "b"]}}}, "filters.name.$is", "takes 1"),
        ({"filters": {"type": {"$is": "SILVER"}}}, "filters.type.$is", "not one of"),
        ({"filters": {"id": {"$is": "lben_XYZ"}}}, "filters.id.$is", "does not match"),
        ({"filters": {"created_at": {"$after": "yesterday"}}}, "filters.created_at.$after", "ISO"),
        (
            {"filters": {"created_at": {"$more_than": "-3"}}},
            "filters.created_at.$more_than",
            "days",
        ),
        ({"filters": {"name": {}}}, "filters.name", "at least one"),
        ({"filters": {"name": "gold"}}, "filters.name", "dict"),
        ({"order": "price"}, "order", "not allowed"),
        ({"order": ["name", "-name"]}, "order", "more than once"),
        ({"limit": 101}, "limit", "1 to 100"),
        ({"junction": "XOR"}, "junction", "AND or OR"),
        ({"cursor": "lcrsrew_abc"}, "cursor", "lcrsben_"),
    ],
)
def test_local_checks_name_field_and_condition(kwargs: dict, field: str, words: str) -> None:
    with pytest.raises(RequestValidationError) as info:
        ListQuery.build(BENEFITS, **kwargs)
    assert info.value.field == field
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"order": 5}, "order", "field name or a list"),
        ({"order": ["name", 5]}, "order", "field name or a list"),
        ({"order": b"name"}, "order", "field name or a list"),
        ({"filters": "x"}, "filters", "dict"),
        ({"filters": [("name", {"$is": "x"})]}, "filters", "dict"),
        ({"cursor": 5}, "cursor", "lcrsrew_"),
        ({"limit": 5.0}, "limit", "1 to 100"),
        ({"limit": np.True_}, "limit", "1 to 100"),
        ({"limit": np.int64(101)}, "limit", "1 to 100"),
    ],
)
def test_a_query_value_of_the_wrong_type_is_named(kwargs: dict, field: str, words: str) -> None:
    with pytest.raises(RequestValidationError) as info:
        ListQuery.build(REWARDS, **kwargs)
    assert info.value.field == field
    assert words in str(info.value)


def test_a_numpy_integer_limit_is_an_integer(client: LoyaltyClient) -> None:
    query = ListQuery.build(REWARDS, limit=np.int64(2))  # type: ignore[arg-type]
    assert query.limit == 2 and type(query.limit) is int
    assert len(client.rewards.list(limit=np.int64(2)).data) == 2  # type: ignore[arg-type]
    with pytest.raises(RequestValidationError) as info:
        client.rewards.list(order=5)  # type: ignore[arg-type]
    assert info.value.field == "order"


def test_lists_without_filters_refuse_them() -> None:
    with pytest.raises(RequestValidationError, match="no filters"):
        ListQuery.build(PENDING_BUCKETS, filters={"date": {"$is": "1"}})
    assert ListQuery.build(PENDING_BUCKETS, order="-date").params() == [("order", "-date")]


def test_checks_can_be_skipped() -> None:
    query = ListQuery.build(REWARDS, filters={"name": {"$before": "x"}}, check=False)
    assert query.params() == [("filters[name][conditions][$before]", "x")]
