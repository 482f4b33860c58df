"""Reward pages decoded in native code give exactly the frames of the model path.

``RewardPages`` decodes a batch of pages with pyarrow and types the columns from Arrow;
a batch it refuses is decoded page by page, and a page it refuses alone is read the
model-free way (and from models where that refuses too). Whichever way each page went,
the frames equal those built from validated models (dtypes, NA, categories, row order,
odd-value records and warnings), or the same error is raised, and the pages outside the
native form are the only ones counted as read the slower way.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.client._plain_page import plain_page_decoder
from lyt_toolkit.errors import APIResponseValidationError, OddValueWarning
from lyt_toolkit.frames import reward_costs_frame, rewards_frame, schema
from lyt_toolkit.frames.schema import FrameBuilder
from lyt_toolkit.models import Reward
from lyt_toolkit.pull.assemble import NATIVE_BATCH, RewardPages
from lyt_toolkit.pull.reward_arrow import decode_reward_pages, typed_columns

from .test_plain_frames import (
    GENERATED,
    KINDS,
    ODD_REWARDS,
    READ_WITHOUT_MODELS,
    assert_same_outcome,
    by_models,
    response,
    spending,
    usual,
)
from .test_streamed_frames import assert_identical


def natively(kind: str, pages: list[bytes]) -> tuple[Any, RewardPages | None]:
    """The frame and odd-value warnings (or the error) of reading ``pages`` as a pull
    does, and the reader (to see how each page went)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OddValueWarning)
        builder = FrameBuilder(schema(kind))
        reader = RewardPages(builder, None) if kind == "rewards" else RewardPages(None, builder)
        try:
            for content in pages:
                reader.add(plain_page_decoder(Reward)(response(content)))
                if reader.full:
                    reader.flush()
            reader.close()
        except APIResponseValidationError as exc:
            return ("refused", str(exc)), None
        frame = reader.frame(kind)
    return (frame, sorted(str(w.message) for w in caught if w.category is OddValueWarning)), reader


def assert_native_equals_models(kind: str, pages: list[bytes]) -> RewardPages | None:
    """The native read of ``pages`` gives the model path's frame and warnings, or error."""
    from .test_plain_frames import assert_alike, built

    found, reader = natively(kind, pages)
    return None if assert_alike(found, built(kind, pages, by_models)) else reader


def paged(items: list[Any], size: int) -> list[bytes]:
    """``items`` in pages of ``size`` in the service's layout, each naming the next."""
    starts = range(0, len(items), size)
    return [
        usual(items[i : i + size], {"next": f"c{i}"} if i + size < len(items) else None)
        for i in starts
    ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", [1, 7, 100])
def test_generated_pages_are_read_natively_and_equal_the_model_path(kind: str, size: int) -> None:
    pages = paged(GENERATED, size)
    reader = assert_native_equals_models(kind, pages)
    assert reader is not None
    assert (reader.native_pages, reader.fallback_pages) == (len(pages), 0)


NATIVE = READ_WITHOUT_MODELS - {
    "new material type",
    "new refund type",
    "new digital type",
    "huge card points",
    "huge points",
    "year 1",
}
"""Odd rewards the native decoder takes: those the model-free path takes but for the odd
values it records (a new category, an integer beyond 64 bits, a date nanoseconds cannot
hold); every other one sends its page the slower way."""


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("name", "item"), ODD_REWARDS, ids=[n for n, _ in ODD_REWARDS])
def test_an_odd_reward_gives_the_model_paths_frame_or_error(
    kind: str, name: str, item: Any
) -> None:
    odd_page = usual([GENERATED[5], item, GENERATED[6]], {"next": "c2"})
    pages = [usual(GENERATED[:5], {"next": "c1"}), odd_page, usual(GENERATED[7:9], None)]
    reader = assert_native_equals_models(kind, pages)
    if reader is None:  # the models refuse it: so does the native read, alike
        assert name not in NATIVE
        return
    expected = (3, 0) if name in NATIVE else (2, 1)  # only the odd page went the slower way
    assert (reader.native_pages, reader.fallback_pages) == expected
    assert_same_outcome(kind, pages)  # and the model-free path agrees too


def test_a_batch_holding_one_odd_page_reads_the_others_natively() -> None:
    pages = paged(GENERATED, 3)[: NATIVE_BATCH + 3]
    odd = usual([GENERATED[0], dict(ODD_REWARDS[0][1])], {"next": "odd"})
    pages[4] = odd
    reader = assert_native_equals_models("rewards", pages)
    assert reader is not None
    assert (reader.native_pages, reader.fallback_pages) == (len(pages) - 1, 1)


@pytest.mark.parametrize("kind", KINDS)
def test_a_page_whose_object_is_null_or_absent_reads_as_on_the_model_path(kind: str) -> None:
    first = usual(GENERATED[:2], {"next": "c1"})
    items = json.dumps(GENERATED[2:4]).encode()
    for envelope in (b', "object": null', b', "object": "list", "object": null', b""):
        # the cursor last, so the page is read lazily, from its bytes, like the usual layout
        last = b'{"data": ' + items + envelope + b', "cursor": null}'
        assert_native_equals_models(kind, [first, last])


def test_a_cursor_that_is_not_the_pages_own_is_refused_as_on_the_other_paths() -> None:
    content = b'{"data": [], "cursor": {"next": "c1"}, "cursor": {"next": "c2"}, "object": "list"}'
    found, _ = natively("rewards", [usual(GENERATED[:2], {"next": "c0"}), content])
    assert found[1] == []  # no rows, no warnings, no error: what the other paths give
    assert len(found[0]) == 2


def test_the_demo_program_is_read_natively(client: LoyaltyClient) -> None:
    rewards = list(client.rewards.iter())
    assert_identical(client.rewards.frame(progress=False), rewards_frame(rewards))
    assert_identical(client.rewards.costs_frame(progress=False), reward_costs_frame(rewards))
    for size in (1, 3, 100):
        pages = paged([r.model_dump(mode="json", by_alias=True) for r in rewards], size)
        reader = natively("rewards", pages)[1]
        assert reader is not None and reader.fallback_pages == 0


def test_pages_read_the_slower_way_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    odd = usual([GENERATED[0], dict(ODD_REWARDS[0][1])], {"next": "c1"})
    with caplog.at_level("INFO", logger="lyt_toolkit.pull"):
        natively("rewards", [odd, usual(GENERATED[1:3], None)])
    assert [r.getMessage() for r in caplog.records] == [
        "reward pages: 1 decoded natively, 1 the slower way (a value outside the native form)"
    ]
    caplog.clear()
    with caplog.at_level("INFO", logger="lyt_toolkit.pull"):
        natively("rewards", paged(GENERATED[:9], 3))
    assert caplog.records == []  # nothing to say when every page was read natively


def test_a_native_frame_holds_nothing_in_arrows_default_pool() -> None:
    """The decoded columns live in the pool that gives memory back (``reward_arrow``'s),
    never in Arrow's default one, which keeps what it once held mapped (a pulled rewards
    frame held its text in copies made there)."""
    pool = pa.default_memory_pool()
    before = pool.bytes_allocated()
    found, reader = natively("rewards", paged(GENERATED * 40, 100))
    assert reader is not None and reader.fallback_pages == 0
    held = pool.bytes_allocated() - before
    assert held < int(found[0].memory_usage(deep=True).sum()) // 100


def cursors_of(pages: list[bytes]) -> list[str | None]:
    """Each page's next cursor, as a pull reads it from the page's end."""
    return [plain_page_decoder(Reward)(response(content)).next_cursor for content in pages]


@pytest.mark.parametrize(
    ("kind", "typed", "skipped"),
    [("rewards", "rewards", "costs"), ("reward_costs", "costs", "rewards")],
)
def test_a_pull_of_one_frame_types_only_its_columns(kind: str, typed: str, skipped: str) -> None:
    """A pull of one frame leaves the other frame's columns untyped (the cost of one of
    the two), and types its own exactly as a read of both does."""
    pages = paged(GENERATED, 7)[:NATIVE_BATCH]
    both = decode_reward_pages(pages, cursors_of(pages))
    one = decode_reward_pages(
        pages, cursors_of(pages), rewards=kind == "rewards", costs=kind == "reward_costs"
    )
    assert both is not None and one is not None
    assert getattr(one, skipped) is None
    pd.testing.assert_frame_equal(
        pd.DataFrame(typed_columns(schema(kind), [getattr(one, typed)])),
        pd.DataFrame(typed_columns(schema(kind), [getattr(both, typed)])),
    )
    assert one.count == both.count == sum(len(json.loads(p)["data"]) for p in pages)


@pytest.mark.parametrize("kind", KINDS)
def test_a_pull_of_one_frame_refuses_the_pages_a_pull_of_both_refuses(kind: str) -> None:
    """Costs are checked in whole when their columns are not typed (and rewards too): the
    same pages go the slower way, so the frames are those of the other paths."""
    odd = usual([GENERATED[0], spending(card_definition_id="lcdef_1\nlcdef_2")], None)
    assert decode_reward_pages([odd], [None]) is None
    one = {"rewards": kind == "rewards", "costs": kind == "reward_costs"}
    assert decode_reward_pages([odd], [None], **one) is None
    assert decode_reward_pages([usual(GENERATED[:2], None)], [None], **one) is not None


@pytest.mark.parametrize("kind", KINDS)
def test_batches_are_typed_together(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches are decoded as pages arrive and typed together, ``TYPED_TOGETHER`` rewards at
    a time: the per-column cost of typing (pandas and Arrow calls) is paid once for them,
    not once a batch."""
    from lyt_toolkit.pull import assemble, reward_arrow

    typed: list[str] = []
    typing = reward_arrow._typed_column

    def counted(column: Any, values: Any) -> Any:
        typed.append(column.name)
        return typing(column, values)

    monkeypatch.setattr(reward_arrow, "_typed_column", counted)
    pages = paged(GENERATED, 2)
    assert len(pages) == 3 * NATIVE_BATCH  # 3 batches of 40 rewards
    reader = assert_native_equals_models(kind, pages)
    assert reader is not None and reader.native_pages == len(pages)
    assert sorted(typed) == sorted(schema(kind).names)  # once
    typed.clear()
    monkeypatch.setattr(assemble, "TYPED_TOGETHER", 50)
    assert assert_native_equals_models(kind, pages) is not None
    assert sorted(typed) == sorted(schema(kind).names * 2)  # batches 1-2, then 3
