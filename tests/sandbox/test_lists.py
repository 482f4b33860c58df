"""Lists: keyset pagination, filters per field kind, junctions, ordering, cursors, limits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import assert_bad_request, assert_error, v2_client, walk

REWARDS, BENEFITS = "/v2/loyalties/rewards", "/v2/loyalties/benefits"
CARD_DEFINITIONS = "/v2/loyalties/card-definitions"
NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)
Params = list[tuple[str, Any]]


@contextmanager
def big_sandbox() -> Iterator[httpx.Client]:
    """A sandbox of its own on a generated program, for long walks and inserts."""
    program = generate_program(
        rewards=230, benefits=230, card_definitions=3, tier_structures=2, members=3, seed=11
    )
    with Sandbox.start(data=program, now=NOW.isoformat(), seed=5) as sb, v2_client(sb) as c:
        yield c


@pytest.fixture(scope="module")
def big() -> Iterator[httpx.Client]:
    with big_sandbox() as client:
        yield client


# -- pagination -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [REWARDS, BENEFITS])
@pytest.mark.parametrize("order", [None, "name", "-name", "created_at"])
def test_walks_at_every_page_size_agree(big: httpx.Client, path: str, order: str | None) -> None:
    params: Params = [("order", order)] if order else []
    walks = {size: walk(big, path, [*params, ("limit", size)]) for size in (1, 7, 10, 100)}
    reference = [item["id"] for item in walks[100]]
    assert len(reference) == len(set(reference)) >= 200  # generated deleted benefits are hidden
    for size, items in walks.items():
        assert [item["id"] for item in items] == reference, size


def test_default_page_size_is_10(big: httpx.Client) -> None:
    body = big.get(REWARDS).json()
    assert len(body["data"]) == 10 and body["cursor"]["next"].startswith("lcrsrew_")


def create_benefit(client: httpx.Client, name: str) -> None:
    body = {
        "name": name,
        "type": "MATERIAL",
        "material": {"product": {"id": "prod_000b00000001"}},
    }
    response = client.post(BENEFITS, json=body)
    assert response.status_code == 200, response.text


def test_walk_while_benefits_are_created_newest_first() -> None:
    # A sandbox of its own: on the fixed clock, benefits another test created share the new
    # ones' created_at, so they would not be older than the cursor (whatever the test order).
    with big_sandbox() as big:
        walk_while_creating(big)


def walk_while_creating(big: httpx.Client) -> None:
    before = [b["id"] for b in walk(big, BENEFITS, [("limit", 100)])]
    inserted: list[str] = []

    def insert(_: int) -> None:
        for _ in range(2):
            inserted.append(f"Inserted while walking {len(inserted)}")
            create_benefit(big, inserted[-1])

    during = [b["id"] for b in walk(big, BENEFITS, [("limit", 7)], between=insert)]
    assert during == before  # new benefits are newer than the cursor: never seen, no shift
    after = walk(big, BENEFITS, [("limit", 100)])
    # On the fixed clock the new ones share one created_at, so only their set is known.
    assert sorted(b["name"] for b in after[: len(inserted)]) == sorted(inserted)
    assert [b["id"] for b in after[len(inserted) :]] == before


def test_walk_by_name_while_benefits_are_created(big: httpx.Client) -> None:
    before = [b["id"] for b in walk(big, BENEFITS, [("order", "name"), ("limit", 100)])]
    serial = iter(range(1000))

    def insert(_: int) -> None:
        n = next(serial)
        create_benefit(big, f"000 sorts first {n}")
        create_benefit(big, f"zzz sorts last {n:04d}")  # each after the last

    during = walk(big, BENEFITS, [("order", "name"), ("limit", 10)], between=insert)
    ids = [b["id"] for b in during]
    assert len(ids) == len(set(ids))  # no duplicates
    assert [i for i in ids if i in set(before)] == before  # no gaps, same relative order
    names = [b["name"] for b in during]
    assert not any(n.startswith("000 sorts first") for n in names)  # behind the cursor
    assert sum(n.startswith("zzz sorts last") for n in names) == next(serial)


# -- filters (demo data) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_lists(sandbox: Sandbox) -> dict[str, list[dict[str, Any]]]:
    with v2_client(sandbox) as client:
        return {
            path: walk(client, path, [("limit", 100)])
            for path in (REWARDS, BENEFITS, CARD_DEFINITIONS)
        }


def days_ago(n: int) -> datetime:
    return NOW - timedelta(days=n)


def created(item: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(item["created_at"].replace("Z", "+00:00"))


def low(item: dict[str, Any]) -> str:
    return item["name"].lower()


Predicate = Callable[[dict[str, Any]], bool]
FilterCase = tuple[str, str, str, list[str], Predicate]
"""(path, field, condition, values, predicate)"""


def opposites(
    path: str, field: str, conditions: tuple[str, str], values: list[str], predicate: Predicate
) -> list[FilterCase]:
    """The cases of two opposite conditions on the same ``values``: the first keeps the items
    ``predicate`` holds for, the second exactly the others."""
    keeps, drops = conditions
    return [
        (path, field, keeps, values, predicate),
        (path, field, drops, values, lambda item: not predicate(item)),
    ]


FILTER_CASES: list[FilterCase] = [
    # id fields
    *opposites(
        REWARDS,
        "id",
        ("$is", "$is_not"),
        ["lrew_c0ffee0003"],
        lambda r: r["id"] == "lrew_c0ffee0003",
    ),
    (
        BENEFITS,
        "id",
        "$in",
        ["lben_c0ffee0001", "lben_c0ffee0010", "lben_c0ffee0006"],
        lambda b: b["id"] in ("lben_c0ffee0001", "lben_c0ffee0010"),
    ),
    (
        BENEFITS,
        "id",
        "$not_in",
        ["lben_c0ffee0001", "lben_c0ffee0010"],
        lambda b: b["id"] not in ("lben_c0ffee0001", "lben_c0ffee0010"),
    ),
    # string fields
    *opposites(
        REWARDS, "name", ("$is", "$is_not"), ["Free Latte"], lambda r: r["name"] == "Free Latte"
    ),
    (REWARDS, "name", "$contains", ["GIFT"], lambda r: "gift" in low(r)),
    (REWARDS, "name", "$not_contain", ["gift"], lambda r: "gift" not in low(r)),
    (BENEFITS, "name", "$starts_with", ["free"], lambda b: low(b).startswith("free")),
    (BENEFITS, "name", "$ends_with", ["beans"], lambda b: low(b).endswith("beans")),
    *opposites(
        BENEFITS,
        "name",
        ("$in", "$not_in"),
        ["Free Espresso", "Tip Matching Beans"],
        lambda b: b["name"] in ("Free Espresso", "Tip Matching Beans"),
    ),
    *opposites(BENEFITS, "name", ("$has_value", "$is_unknown"), [""], lambda b: bool(b["name"])),
    # enum fields
    *opposites(REWARDS, "type", ("$is", "$is_not"), ["DIGITAL"], lambda r: r["type"] == "DIGITAL"),
    *opposites(
        BENEFITS,
        "type",
        ("$in", "$not_in"),
        ["POINTS", "DIGITAL"],
        lambda b: b["type"] in ("POINTS", "DIGITAL"),
    ),
    *opposites(BENEFITS, "status", ("$is", "$is_not"), ["DRAFT"], lambda b: b["status"] == "DRAFT"),
    # date fields
    (
        BENEFITS,
        "created_at",
        "$before",
        ["2025-08-01T00:00:00Z"],
        lambda b: created(b) < datetime(2025, 8, 1, tzinfo=UTC),
    ),
    (
        BENEFITS,
        "created_at",
        "$after",
        ["2025-08-01T00:00:00Z"],
        lambda b: created(b) > datetime(2025, 8, 1, tzinfo=UTC),
    ),
    (
        BENEFITS,
        "created_at",
        "$is",
        ["292"],
        lambda b: created(b).date() == days_ago(292).date(),
    ),
    (BENEFITS, "created_at", "$more_than", ["200"], lambda b: created(b) < days_ago(200)),
    (BENEFITS, "created_at", "$less_than", ["200"], lambda b: created(b) > days_ago(200)),
    *opposites(
        REWARDS,
        "created_at",
        ("$has_value", "$is_unknown"),
        [""],
        lambda r: r["created_at"] is not None,
    ),
    *opposites(
        CARD_DEFINITIONS,
        "updated_at",
        ("$is_unknown", "$has_value"),
        [""],
        lambda c: c["updated_at"] is None,
    ),
]


def filter_params(field: str, condition: str, values: list[str]) -> Params:
    return [(f"filters[{field}][conditions][{condition}]", v) for v in values]


@pytest.mark.parametrize(
    ("path", "field", "condition", "values", "predicate"),
    FILTER_CASES,
    ids=[f"{c[0].rsplit('/', 1)[1]}-{c[1]}-{c[2]}" for c in FILTER_CASES],
)
def test_filter_condition(
    api: httpx.Client,
    demo_lists: dict[str, list[dict[str, Any]]],
    path: str,
    field: str,
    condition: str,
    values: list[str],
    predicate: Predicate,
) -> None:
    everything = demo_lists[path]
    expected = [item["id"] for item in everything if predicate(item)]
    excluded = {item["id"] for item in everything if not predicate(item)}
    got = [item["id"] for item in walk(api, path, [*filter_params(field, condition, values)])]
    assert got == expected
    assert not excluded & set(got)
    assert expected or excluded  # each case says something
    # Absent-value checks only ever match nothing here; every other case matches something.
    assert bool(expected) == (condition != "$is_unknown" or path == CARD_DEFINITIONS)


def test_conditions_on_one_field_hold_together(
    api: httpx.Client, demo_lists: dict[str, list[dict[str, Any]]]
) -> None:
    params = [
        *filter_params("name", "$contains", ["bonus"]),
        *filter_params("name", "$not_contain", ["beans"]),
    ]
    got = {b["id"] for b in walk(api, BENEFITS, params)}
    expected = {
        b["id"] for b in demo_lists[BENEFITS] if "bonus" in low(b) and "beans" not in low(b)
    }
    assert got == expected and got


@pytest.mark.parametrize("junction", ["AND", "OR", None])
def test_junction_combines_fields(
    api: httpx.Client,
    demo_lists: dict[str, list[dict[str, Any]]],
    junction: str | None,
) -> None:
    params = [
        *filter_params("name", "$contains", ["bonus"]),
        *filter_params("status", "$is", ["DRAFT"]),
    ]
    if junction:
        params.append(("filters[junction]", junction))
    got = {b["id"] for b in walk(api, BENEFITS, params)}

    def bonus(b: dict[str, Any]) -> bool:
        return "bonus" in low(b)

    def draft(b: dict[str, Any]) -> bool:
        return b["status"] == "DRAFT"

    items = demo_lists[BENEFITS]
    both = {b["id"] for b in items if bonus(b) and draft(b)}
    either = {b["id"] for b in items if bonus(b) or draft(b)}
    assert both and either > both
    assert got == (either if junction == "OR" else both)


# -- ordering -------------------------------------------------------------------------


def sort_key(*fields: str) -> Callable[[dict[str, Any]], tuple]:
    def key(item: dict[str, Any]) -> tuple:
        return tuple(item[f].lower() if f == "name" else item[f] for f in fields)

    return key


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (["name"], lambda items: sorted(items, key=lambda b: (low(b), b["id"]))),
        (
            ["-name"],
            lambda items: sorted(items, key=lambda b: (low(b), b["id"]), reverse=True),
        ),
        (["created_at"], lambda items: sorted(items, key=lambda b: (b["created_at"], b["id"]))),
        (
            [],
            lambda items: sorted(items, key=lambda b: (b["created_at"], b["id"]), reverse=True),
        ),
        (["type", "name"], lambda items: sorted(items, key=lambda b: (b["type"], low(b), b["id"]))),
        (
            ["-type", "-name"],
            lambda items: sorted(items, key=lambda b: (b["type"], low(b), b["id"]), reverse=True),
        ),
        (
            ["type", "-created_at"],
            # mixed directions: type ascending, then newest first, ties by id descending
            lambda items: sorted(
                sorted(items, key=lambda b: (b["created_at"], b["id"]), reverse=True),
                key=lambda b: b["type"],
            ),
        ),
    ],
    ids=["name", "-name", "created_at", "default", "type,name", "-type,-name", "type,-created_at"],
)
def test_order(
    api: httpx.Client,
    demo_lists: dict[str, list[dict[str, Any]]],
    order: list[str],
    expected: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
) -> None:
    params = [("order", o) for o in order]
    got = [b["id"] for b in walk(api, BENEFITS, [*params, ("limit", 3)])]
    assert got == [b["id"] for b in expected(demo_lists[BENEFITS])]


@pytest.mark.parametrize(
    ("path", "orders", "named"),
    [
        (BENEFITS, ["name", "-name"], "name"),
        (REWARDS, ["-created_at", "created_at"], "created_at"),
        (REWARDS, ["type"], "type"),
        (BENEFITS, ["status"], "status"),
        (BENEFITS, ["name,-name"], "name"),
    ],
)
def test_bad_order_is_400(api: httpx.Client, path: str, orders: list[str], named: str) -> None:
    body = assert_bad_request(api.get(path, params=[("order", o) for o in orders]), "order")
    assert named in body["details"]


# -- limits ----------------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["0", "101", "abc", "-1", "1.5", ""])
def test_limit_out_of_range_is_400(api: httpx.Client, limit: str) -> None:
    assert_bad_request(api.get(REWARDS, params={"limit": limit}), "limit")


@pytest.mark.parametrize("limit", [1, 100])
def test_limit_bounds_are_allowed(api: httpx.Client, limit: int) -> None:
    body = api.get(BENEFITS, params={"limit": limit}).json()
    assert len(body["data"]) == limit if limit == 1 else len(body["data"]) <= 100


# -- bad filters -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "key", "value", "named"),
    [
        (REWARDS, "filters[status][conditions][$is]", "ACTIVE", "filters.status"),
        (REWARDS, "filters[type][conditions][$contains]", "MAT", "$contains"),
        (REWARDS, "filters[name][conditions][$before]", "2025-01-01", "$before"),
        (REWARDS, "filters[id][conditions][$contains]", "lrew_", "$contains"),
        (REWARDS, "filters[created_at][conditions][$contains]", "2025", "$contains"),
        (REWARDS, "filters[type][conditions][$is]", "PHYSICAL", "PHYSICAL"),
        (REWARDS, "filters[id][conditions][$is]", "lben_00ff", "filters.id"),
        (REWARDS, "filters[created_at][conditions][$before]", "yesterday", "created_at"),
        (REWARDS, "filters[created_at][conditions][$more_than]", "-3", "created_at"),
        (REWARDS, "filters[created_at][conditions][$is]", "99999999999", "created_at"),
        (REWARDS, "filters[created_at][conditions][$less_than]", "36501", "created_at"),
        (REWARDS, "filters[name]", "Free Latte", "filters.name"),
        (REWARDS, "filters[name][$is]", "Free Latte", "filters[name][$is]"),
        (BENEFITS, "filters[status][conditions][$is]", "DELETED", "DELETED"),
        (BENEFITS, "filters[junction]", "XOR", "junction"),
    ],
)
def test_bad_filters_are_400_naming_field_and_condition(
    api: httpx.Client, path: str, key: str, value: str, named: str
) -> None:
    assert_bad_request(api.get(path, params={key: value}), named)


def test_too_many_values_is_400(api: httpx.Client) -> None:
    values = [f"Name {n}" for n in range(11)]
    response = api.get(BENEFITS, params=filter_params("name", "$in", values))
    assert_bad_request(response, "filters.name.conditions.$in")


# -- cursors ------------------------------------------------------------------------------

POINTS_ONLY = filter_params("type", "$is", ["POINTS"])


def first_page(api: httpx.Client, params: Params) -> dict[str, Any]:
    body = api.get(BENEFITS, params=[*params, ("limit", 2)]).json()
    assert body["cursor"] is not None
    return body


def test_cursor_is_reusable_and_ignores_limit(api: httpx.Client) -> None:
    cursor = first_page(api, POINTS_ONLY)["cursor"]["next"]
    again = [*POINTS_ONLY, ("cursor", cursor), ("limit", 2)]
    one, two = api.get(BENEFITS, params=again).json(), api.get(BENEFITS, params=again).json()
    assert [b["id"] for b in one["data"]] == [b["id"] for b in two["data"]]
    wider = api.get(BENEFITS, params=[*POINTS_ONLY, ("cursor", cursor), ("limit", 5)]).json()
    assert [b["id"] for b in wider["data"]][:2] == [b["id"] for b in one["data"]]


@pytest.mark.parametrize(
    "other",
    [
        [],
        filter_params("type", "$is", ["MATERIAL"]),
        [*POINTS_ONLY, ("filters[junction]", "OR")],
        [*POINTS_ONLY, ("order", "name")],
        [*POINTS_ONLY, *filter_params("name", "$contains", ["a"])],
    ],
    ids=["no-filters", "other-filter", "other-junction", "other-order", "extra-filter"],
)
def test_cursor_with_other_query_is_400(api: httpx.Client, other: Params) -> None:
    cursor = first_page(api, POINTS_ONLY)["cursor"]["next"]
    assert_bad_request(api.get(BENEFITS, params=[*other, ("cursor", cursor)]), "cursor")


def test_unknown_or_foreign_cursor_is_400(api: httpx.Client) -> None:
    assert_bad_request(api.get(BENEFITS, params={"cursor": "lcrsben_0123abcd"}), "cursor")
    assert_bad_request(api.get(BENEFITS, params={"cursor": "lcrsben_XYZ"}), "cursor")
    reward_cursor = api.get(REWARDS, params={"limit": 1}).json()["cursor"]["next"]
    assert reward_cursor.startswith("lcrsrew_")
    assert_bad_request(api.get(BENEFITS, params={"cursor": reward_cursor}), "cursor")


def test_cursor_expires_at_its_expiry(api: httpx.Client, restore: Sandbox) -> None:
    page = first_page(api, POINTS_ONLY)
    expires_at = datetime.fromisoformat(page["cursor"]["expires_at"].replace("Z", "+00:00"))
    assert expires_at > NOW
    params = [*POINTS_ONLY, ("cursor", page["cursor"]["next"])]
    restore.set_clock((expires_at - timedelta(seconds=1)).isoformat())
    assert api.get(BENEFITS, params=params).status_code == 200
    restore.set_clock(expires_at.isoformat())
    body = assert_error(api.get(BENEFITS, params=params), 400)
    assert "expired" in body["details"]
