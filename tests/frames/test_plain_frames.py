"""The model-free frame path gives exactly the frames of the model path.

Rewards and reward costs are read from parsed JSON without building models; a page
holding any item outside the plain form falls back to the models. Both paths must
give the same frame (dtypes, NA, categories, row order, odd-value records and
warnings) on the demo program over HTTP and on pages with every type and odd value,
and the same error where the models refuse a page.
"""

from __future__ import annotations

import copy
import importlib
import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.client._core import decoder
from lyt_toolkit.client._plain_page import PlainPage, plain_page_decoder
from lyt_toolkit.errors import APIResponseValidationError, OddValueWarning
from lyt_toolkit.frames import schema
from lyt_toolkit.frames.schema import FrameBuilder
from lyt_toolkit.models import Page, Reward
from lyt_toolkit.pull.assemble import page_columns
from lyt_toolkit.pull.reward_pages import ROW_SOURCES, RowSource

from .odd_pages import PROGRAM
from .test_streamed_frames import assert_identical

FRAMES_MODULE = importlib.import_module("lyt_toolkit.pull.assemble")
KINDS = ("rewards", "reward_costs")


@pytest.fixture
def model_pages(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Counts the pages a pull reads from models (the fallback), by kind."""
    counted: list[str] = []
    sources = dict(ROW_SOURCES)
    for kind, source in ROW_SOURCES.items():

        def models(items: Any, kind: str = kind, source: RowSource = source) -> Any:
            counted.append(kind)
            return source.models(items)

        sources[kind] = RowSource(source.plain, models)
    monkeypatch.setattr(FRAMES_MODULE, "ROW_SOURCES", sources)
    yield counted


def test_demo_frames_equal_the_model_path_and_need_no_models(
    client: LoyaltyClient, model_pages: list[str]
) -> None:
    from lyt_toolkit.frames import reward_costs_frame, rewards_frame

    rewards = list(client.rewards.iter())
    assert_identical(client.rewards.frame(progress=False), rewards_frame(rewards))
    assert_identical(client.rewards.costs_frame(progress=False), reward_costs_frame(rewards))
    assert_identical(client.rewards.frame(progress=False, limit=3), rewards_frame(rewards))
    assert model_pages == []  # the demo's rewards are all plain: no page fell back


# -- pages with every type and odd value -------------------------------------------------

BASE: dict[str, Any] = next(r for r in PROGRAM["rewards"] if r["type"] == "MATERIAL")


def reward(**changes: Any) -> dict[str, Any]:
    """A generated MATERIAL reward with ``changes`` applied (None values are kept)."""
    item = copy.deepcopy(BASE)
    item.update(changes)
    return item


def without(*keys: str) -> dict[str, Any]:
    item = reward()
    for key in keys:
        item.pop(key, None)
    return item


def spending(**changes: Any) -> dict[str, Any]:
    entry = {"id": "lrspn_1", "points": 40, "card_definition_id": "lcdef_1", **changes}
    return reward(costs=[{"id": "lrcst_1", "spending": [entry]}])


def digital(**changes: Any) -> dict[str, Any]:
    return reward(type="DIGITAL", material=None, digital={"type": "DISCOUNT_COUPONS", **changes})


POINTS = {"points": 25, "card_definition_id": "lcdef_2"}

ODD_REWARDS: list[tuple[str, dict[str, Any]]] = [
    ("year 1", reward(created_at="0001-01-01T00:00:00Z")),
    ("offset", reward(created_at="9999-12-31T23:59:59+14:00")),
    ("not a date", reward(created_at="not a date")),
    ("unix time", reward(created_at=1_768_478_400)),
    ("nanoseconds", reward(start_date="2026-01-15T12:00:00.123456789Z")),
    ("date only", reward(end_date="2026-01-15")),
    ("no Z", reward(updated_at="2026-01-15T12:00:00")),
    ("30 February", reward(updated_at="2026-02-30T12:00:00Z")),
    ("new status", reward(status="RETIRED")),
    ("new type", reward(type="HYBRID")),
    ("numeric name", reward(name=12)),
    ("empty name", reward(name="")),
    ("bad id", reward(id="lrew_XYZ")),
    ("two ids in one", reward(id="lrew_ab\nlrew_cd")),
    ("two instants in one", reward(created_at="2026-01-15T12:00:00Z\n2026-01-15T12:00:00Z")),
    ("card id with a newline", spending(card_definition_id="lcdef_1\nlcdef_2")),
    ("new material type", reward(material={"type": "BUNDLE", "product": {"id": "p1"}})),
    ("material without type", reward(material={"product": {"id": "p1"}})),
    (
        "product and sku",
        reward(
            material={
                "type": "SKU",
                "product": {"id": "p1"},
                "sku": {"product_id": "p2", "id": "s2"},
            }
        ),
    ),
    ("no material", reward(material=None)),
    ("no refunds", without("refunds")),
    ("empty refunds", reward(refunds={})),
    ("new refund type", reward(refunds={"type": "PARTIAL"})),
    ("card points", digital(type="LOYALTY_CARD_POINTS", loyalty_card_points=POINTS)),
    ("float card points", digital(loyalty_card_points={**POINTS, "points": 12.0})),
    ("huge card points", digital(loyalty_card_points={**POINTS, "points": 2**70})),
    ("bool card points", digital(loyalty_card_points={**POINTS, "points": True})),
    ("coupons", digital(discount_coupons={"campaign_id": "camp_1"})),
    (
        "gift float",
        digital(type="GIFT_VOUCHERS", gift_vouchers={"campaign_id": "c", "balance": 2.5}),
    ),
    ("gift huge", digital(gift_vouchers={"campaign_id": "c", "balance": 2**70})),
    ("gift negative", digital(gift_vouchers={"campaign_id": "c", "balance": -1})),
    ("gift text", digital(gift_vouchers={"campaign_id": "c", "balance": "5"})),
    ("new digital type", digital(type="NFT")),
    ("digital without type", reward(type="DIGITAL", material=None, digital={})),
    ("text points", spending(points="12")),
    ("float points", spending(points=12.0)),
    ("huge points", spending(points=2**70)),
    ("spending without id", spending(id=None)),
    ("spending named", spending(name="gold")),
    ("null spending", reward(costs=[{"id": "lrcst_1", "spending": None}])),
    ("no spending", reward(costs=[{"id": "lrcst_1"}])),
    (
        "two costs, rules",
        reward(
            costs=[
                {"id": "a", "rules": {"logic": "1 and 2"}, "spending": []},
                {"id": "b", "rules": {"logic": None}},
            ]
        ),
    ),
    ("no costs", without("costs")),
    ("null costs", reward(costs=None)),
    ("deep metadata", reward(metadata={"deep": [[[[{"n": 2**80}]]]], "f": 1.5, "b": None})),
    ("null metadata", reward(metadata=None)),
    ("no metadata", without("metadata")),
    ("empty daily", reward(validity_hours={"type": "DAILY", "daily": []})),
    (
        "daily extra",
        reward(
            validity_hours={
                "type": "DAILY",
                "daily": [
                    {"days_of_week": [1], "start_time": "07:00", "end_time": "09:00", "tz": "UTC"}
                ],
            }
        ),
    ),
    (
        "daily text days",
        reward(
            validity_hours={
                "type": "DAILY",
                "daily": [{"days_of_week": ["1"], "start_time": "07:00", "end_time": "09:00"}],
            }
        ),
    ),
    (
        "daily no days",
        reward(
            validity_hours={
                "type": "DAILY",
                "daily": [{"start_time": "07:00", "end_time": "09:00"}],
            }
        ),
    ),
    ("no validity", without("validity_hours")),
    ("added later", reward(added_later={"x": 1})),
    ("purchase limits", reward(purchase_limits={"per_member": 2})),
    ("odd purchase limits", reward(purchase_limits=5)),
    ("wrong object", reward(object="benefit")),
    ("null object", reward(object=None)),
    ("no object", without("object")),
    ("not an object", 7),  # type: ignore[list-item]
]


def body(items: list[Any], cursor: Any = None) -> bytes:
    page: dict[str, Any] = {"object": "list", "data": items}
    if cursor is not None:
        page["cursor"] = cursor
    return json.dumps(page).encode()


def response(content: bytes) -> httpx.Response:
    request = httpx.Request("GET", "http://sandbox.test/v2/loyalties/rewards")
    return httpx.Response(200, content=content, request=request)


def built(kind: str, pages: list[Any], add: Callable[[FrameBuilder, str, Any], None]) -> Any:
    """The frame, odd-value warnings and error of building ``pages`` with ``add``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OddValueWarning)
        builder = FrameBuilder(schema(kind))
        try:
            for page in pages:
                add(builder, kind, page)
        except APIResponseValidationError as exc:
            return ("refused", str(exc))
        frame = builder.frame()
    return frame, sorted(str(w.message) for w in caught if w.category is OddValueWarning)


def by_models(builder: FrameBuilder, kind: str, content: bytes) -> None:
    page = decoder(Page[Reward])(response(content))
    builder.add(ROW_SOURCES[kind].models(page.data))


def plain(builder: FrameBuilder, kind: str, content: bytes) -> None:
    builder.add_columns(page_columns(kind, plain_page_decoder(Reward)(response(content))))


def assert_alike(found: tuple[Any, Any], expected: tuple[Any, Any]) -> bool:
    """The same frame and warnings, or the same error; True for an error."""
    if isinstance(expected[0], str):
        assert found == expected
        return True
    assert_identical(found[0], expected[0])
    assert found[1] == expected[1]
    return False


def assert_same_outcome(kind: str, pages: list[bytes]) -> bool:
    """Both paths give the same frame and warnings, or the same error; True for an error."""
    return assert_alike(built(kind, pages, plain), built(kind, pages, by_models))


GENERATED = PROGRAM["rewards"]


@pytest.mark.parametrize("kind", KINDS)
def test_generated_pages_equal_the_model_path_without_models(
    kind: str, model_pages: list[str]
) -> None:
    pages = [body(GENERATED[i : i + 7], {"next": f"c{i}"}) for i in range(0, len(GENERATED), 7)]
    assert_same_outcome(kind, pages)
    assert model_pages == []


READ_WITHOUT_MODELS = {
    "product and sku",
    "no material",
    "new material type",
    "new refund type",
    "card points",
    "huge card points",
    "new digital type",
    "coupons",
    "gift float",
    "gift huge",
    "huge points",
    "spending without id",
    "spending named",
    "null spending",
    "no spending",
    "two costs, rules",
    "deep metadata",
    "no metadata",
    "no object",
    "empty daily",
    "added later",
    "purchase limits",
    "empty name",
    "year 1",
}
"""Odd rewards still in the plain form: their pages need no models."""


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "item"), ODD_REWARDS, ids=[n for n, _ in ODD_REWARDS])
def test_an_odd_reward_gives_the_model_paths_frame_or_error(
    kind: str, name: str, item: Any, model_pages: list[str]
) -> None:
    pages = [body(GENERATED[:5]), body([GENERATED[5], item, GENERATED[6]]), body(GENERATED[7:9])]
    refused = assert_same_outcome(kind, pages)
    if name in READ_WITHOUT_MODELS:
        assert not refused
        assert model_pages == []
    elif not refused:
        assert model_pages == [kind]  # the odd item's page, and only that page, fell back


ODD_ENVELOPES = [
    ("no cursor", b'{"object": "list", "data": []}'),
    ("null next", body(GENERATED[:2], {"next": None})),
    ("expiring cursor", body(GENERATED[:2], {"next": "c", "expires_at": "2026-01-15T12:30:00Z"})),
    ("odd expiry", body(GENERATED[:2], {"next": "c", "expires_at": "tomorrow"})),
    ("numeric cursor", body(GENERATED[:2], {"next": 5})),
    ("extra key", b'{"object": "list", "data": [], "total": 3}'),
    ("data not a list", b'{"object": "list", "data": {}}'),
    ("not JSON", b"<html>oops</html>"),
    ("a list", b"[]"),
]


@pytest.mark.parametrize(("name", "content"), ODD_ENVELOPES, ids=[n for n, _ in ODD_ENVELOPES])
def test_an_odd_envelope_gives_the_model_paths_page_or_error(name: str, content: bytes) -> None:
    def outcome(decode: Callable[[httpx.Response], Any]) -> Any:
        try:
            page = decode(response(content))
        except Exception as exc:
            return ("raised", type(exc), str(exc))
        if isinstance(page, PlainPage):
            page = page.models()
        return ("decoded", page.next_cursor, page.data)

    assert outcome(plain_page_decoder(Reward)) == outcome(decoder(Page[Reward]))


def test_the_plain_page_reads_the_cursor_before_validating() -> None:
    odd = [GENERATED[0], reward(status="RETIRED")]
    page = plain_page_decoder(Reward)(response(body(odd, {"next": "c9"})))
    assert page.next_cursor == "c9"
    assert page.data == odd  # parsed, not validated: the odd item is still a dict
    with pytest.raises(APIResponseValidationError, match="status"):
        page.models()
    with pytest.raises(APIResponseValidationError, match="status"):
        page_columns("rewards", page)


def usual(items: list[Any], cursor: Any) -> bytes:
    """A page in the layout the service and the sandbox answer with: items first."""
    return json.dumps({"data": items, "cursor": cursor, "object": "list"}).encode()


def test_a_page_in_the_usual_layout_is_parsed_only_when_its_items_are_read() -> None:
    cursor = {"next": "c3", "expires_at": "2026-01-15T12:30:00.000Z"}
    page = plain_page_decoder(Reward)(response(usual(GENERATED[:3], cursor)))
    assert (page.next_cursor, page.empty) == ("c3", False)
    assert "data" not in vars(page)  # the cursor came from the bytes; nothing parsed yet
    assert page.data == GENERATED[:3]
    for last in (usual([], {"next": None}), usual([], None), usual(GENERATED[:1], None)):
        page = plain_page_decoder(Reward)(response(last))
        assert page.next_cursor is None and "data" not in vars(page)
        assert page.empty == (not page.data)


def _items_first(content: bytes) -> bytes:
    envelope = json.loads(content)
    return json.dumps({"data": envelope.pop("data", None), **envelope}).encode()


USUAL_ENVELOPES = [
    (name, _items_first(content))
    for name, content in ODD_ENVELOPES
    if content.startswith(b"{") and b"oops" not in content
]
"""The JSON object envelopes above, items first as in the usual layout (some read lazily)."""


@pytest.mark.parametrize(("name", "content"), USUAL_ENVELOPES, ids=[n for n, _ in USUAL_ENVELOPES])
def test_an_odd_envelope_in_the_usual_layout_gives_the_model_paths_page_or_error(
    name: str, content: bytes
) -> None:
    test_an_odd_envelope_gives_the_model_paths_page_or_error(name, content)


def test_a_page_that_only_ends_like_one_raises_the_validating_error_when_read() -> None:
    content = b'{"data": [{"id": oops}], "cursor": {"next": "c1"}, "object": "list"}'
    page = plain_page_decoder(Reward)(response(content))
    assert page.next_cursor == "c1"  # read from the end, so the next page can be asked for
    with pytest.raises(APIResponseValidationError) as found:
        page.data  # noqa: B018
    with pytest.raises(APIResponseValidationError) as expected:
        decoder(Page[Reward])(response(content))
    assert str(found.value) == str(expected.value)


def test_a_cursor_at_the_end_that_is_not_the_pages_own_is_refused() -> None:
    content = b'{"data": [], "cursor": {"next": "c1"}, "cursor": {"next": "c2"}, "object": "list"}'
    page = plain_page_decoder(Reward)(response(content))
    assert page.next_cursor == "c2"  # what a parser keeps of a repeated key, too
    assert page.data == []
