"""Frames built as pages arrive equal the frames built from every model at once."""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pandas as pd
import pytest
from pydantic import ValidationError

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient, ProgramSnapshot
from lyt_toolkit._progress import ProgressBar
from lyt_toolkit.client._core import adapter, parsed
from lyt_toolkit.errors import OddValueWarning
from lyt_toolkit.frames import BUILDERS, schema
from lyt_toolkit.frames.schema import FrameBuilder, Row, SchemaMismatchError
from lyt_toolkit.models import Benefit, Page
from lyt_toolkit.pull.assemble import apull_frame
from lyt_toolkit.sandbox import Sandbox

from .odd_pages import ODD_BENEFITS, benefit, page
from .test_odd_values import ROWS, row

FRAMES_MODULE = importlib.import_module("lyt_toolkit.pull.assemble")
SCHEMA_MODULE = importlib.import_module("lyt_toolkit.frames.schema")  # the package's
# ``schema`` attribute is the lookup function, not this module

ODD_ROWS: list[Row] = [
    row(id="t0"),
    row(id="t1", count=2**70),
    row(id="t2", status="RETIRED", at=dt.datetime(2026, 1, 15, 12, tzinfo=dt.UTC)),
    row(id="t3", count=None, status=None),
    row(id="t4", status="ARCHIVED"),
    row(id="t5", at=dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
    row(id="t6", status="RETIRED", count=-(2**64)),
    row(id="t7", count=7, at=dt.datetime(2030, 6, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
]
"""Odd values, new categories and NA spread so that they land in different batches."""


def built(rows: Sequence[Row], batch: int | None) -> tuple[pd.DataFrame, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OddValueWarning)
        builder = FrameBuilder(ROWS, batch=batch)
        builder.add(rows[:3])
        builder.add(rows[3:])
        frame = builder.frame()
    return frame, sorted(str(w.message) for w in caught if w.category is OddValueWarning)


def assert_identical(streamed: pd.DataFrame, whole: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(streamed, whole, check_exact=True)
    assert streamed.attrs == whole.attrs
    for name in whole.columns:
        if isinstance(whole[name].dtype, pd.CategoricalDtype):
            assert list(streamed[name].cat.categories) == list(whole[name].cat.categories)


@pytest.mark.parametrize("batch", [1, 2, 3, 5])
def test_batches_give_the_frame_attrs_and_warnings_of_one_build(batch: int) -> None:
    whole, whole_warnings = built(ODD_ROWS, batch=len(ODD_ROWS))
    streamed, streamed_warnings = built(ODD_ROWS, batch=batch)
    assert_identical(streamed, whole)
    assert streamed_warnings == whole_warnings
    assert list(whole["status"].cat.categories)[-2:] == ["RETIRED", "ARCHIVED"]
    assert len(whole.attrs["odd_values"]) == 6


@pytest.mark.parametrize("batch", [1, 3, 100])
def test_columns_and_rows_mixed_give_the_frame_of_the_rows(batch: int) -> None:
    whole, whole_warnings = built(ODD_ROWS, batch=len(ODD_ROWS))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", OddValueWarning)
        builder = FrameBuilder(ROWS, batch=batch)
        builder.add(ODD_ROWS[:2])
        builder.add_columns(ROWS.columns_of(ODD_ROWS[2:5]))
        builder.add(ODD_ROWS[5:6])
        builder.add_columns(ROWS.columns_of(ODD_ROWS[6:]))
        builder.add_columns(ROWS.columns_of([]))
        mixed = builder.frame()
    assert_identical(mixed, whole)
    assert sorted(str(w.message) for w in caught) == whole_warnings


def test_columns_that_differ_from_the_schema_are_named() -> None:
    builder = FrameBuilder(ROWS)
    columns = ROWS.columns_of(ODD_ROWS[:2])
    odd = {**columns, "extra": [1, 2]}
    del odd["status"]
    with pytest.raises(SchemaMismatchError, match=r"lacks columns \['status'\].*adds.*'extra'"):
        builder.add_columns(odd)
    with pytest.raises(ValueError, match=r"unequal length.*'count': 1"):
        builder.add_columns({**columns, "count": [1]})
    assert builder.frame().empty  # nothing of a refused page was taken


def test_an_empty_builder_gives_the_empty_frame() -> None:
    assert_identical(FrameBuilder(ROWS, batch=2).frame(), ROWS.empty())


def test_warnings_stay_capped_across_batches() -> None:
    rows = [row(id=f"t{i}", count=2**70) for i in range(30)]
    _, messages = built(rows, batch=4)
    assert len(messages) == 21  # 20 named, then one count
    assert any("10 more odd values" in m for m in messages)


KINDS: dict[str, tuple[str, str]] = {
    "rewards": ("rewards", "rewards"),
    "reward_costs": ("rewards", "reward_costs"),
    "benefits": ("benefits", "benefits"),
    "card_definitions": ("card_definitions", "card_definitions"),
    "tier_structures": ("tier_structures", "tier_structures"),
    "programs": ("programs", "programs"),
}


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames built 7 rows at a time: several batches per page and per pull."""
    monkeypatch.setattr(SCHEMA_MODULE, "BATCH", 7)


@pytest.mark.usefixtures("small_batches")
def test_pulled_frames_equal_frames_of_every_model(
    each_program: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(each_program) as client:
        for kind, (group, _) in KINDS.items():
            resource = getattr(client, group)
            models = list(resource.iter(limit=100))
            whole = BUILDERS[kind](models)
            streamed = resource.frame(kind=kind, limit=50, progress=False)
            assert len(streamed) == len(whole) > 0, kind
            assert_identical(streamed, whole)
            assert streamed.dtypes.to_dict() == schema(kind).dtypes


@pytest.mark.usefixtures("small_batches")
def test_a_snapshot_builds_the_reward_frames_of_every_model(
    generated: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    with make_client(generated) as client:
        models = list(client.rewards.iter(limit=100))
        snapshot = ProgramSnapshot.pull(client, progress=False)
    assert_identical(snapshot.rewards, BUILDERS["rewards"](models))
    checked = ["card_definition_name", "card_definition_found", "card_definition_status"]
    costs = BUILDERS["reward_costs"](models).drop(columns=checked)
    assert len(costs) >= len(models) > 0
    assert_identical(snapshot.reward_costs.drop(columns=checked), costs)
    assert snapshot.reward_costs["card_definition_found"].notna().all()


@pytest.mark.usefixtures("small_batches")
def test_async_pulled_frames_equal_frames_of_every_model(
    each_program: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:

    async def pull(config: Any) -> dict[str, pd.DataFrame]:
        async with AsyncLoyaltyClient(config=config) as ac:
            return {
                kind: await getattr(ac, group).frame(kind=kind, limit=50, progress=False)
                for kind, (group, _) in KINDS.items()
            }

    with make_client(each_program) as client:
        pulled = asyncio.run(pull(client.config))
        for kind, (group, _) in KINDS.items():
            whole = BUILDERS[kind](list(getattr(client, group).iter(limit=100)))
            assert len(pulled[kind]) == len(whole) > 0, kind
            assert_identical(pulled[kind], whole)


def test_a_failing_async_pull_raises_and_leaves_no_builder_running(
    generated: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    async def pages() -> AsyncIterator[Any]:
        async with AsyncLoyaltyClient(config=config) as ac:
            async for page in ac.rewards.pages(limit=50):
                yield page
        raise RuntimeError("the connection broke")

    with make_client(generated) as client:
        config = client.config
    before = _client_threads()
    with pytest.raises(RuntimeError, match="the connection broke"):
        asyncio.run(apull_frame(pages(), "rewards", progress=False))
    assert _client_threads() <= before


def _client_threads() -> int:
    """Live threads but the in-process sandbox's request workers, which its pool starts on
    demand (in some test orders, during this test) and keeps."""
    return sum(t.name != "AnyIO worker thread" for t in threading.enumerate())


def test_a_pull_counts_rows_and_pages(
    generated: Sandbox, make_client: Callable[..., LoyaltyClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    bars: list[ProgressBar] = []

    class Recorded(ProgressBar):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(FRAMES_MODULE, "ProgressBar", Recorded)
    with make_client(generated) as client:
        frame = client.rewards.frame(limit=50, progress=False)
    [bar] = bars
    assert bar.done == len(frame) == 230
    assert bar.pages == 5  # four pages of 50 and the last one of 30


@pytest.mark.parametrize("odd", ODD_BENEFITS, ids=range(len(ODD_BENEFITS)))
def test_two_step_decoding_keeps_odd_values_warnings_and_records(odd: dict[str, Any]) -> None:
    content = page(benefit(id="lben_900d"), odd)
    try:
        expected = adapter(Page[Benefit]).validate_json(content)
    except ValidationError:
        return  # refused alike: see test_decode.py
    frames = []
    for models in (expected, parsed(content, Page[Benefit])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", OddValueWarning)
            frame = BUILDERS["benefits"](models.data)
        frames.append((frame, [str(w.message) for w in caught]))
    (whole, whole_warnings), (two_step, two_step_warnings) = frames
    assert_identical(two_step, whole)
    assert two_step_warnings == whole_warnings
