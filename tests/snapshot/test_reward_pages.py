"""A snapshot reads rewards without models and gives exactly the frames of the model path.

``ProgramSnapshot.pull`` builds the rewards and reward_costs frames from the page bytes
in native code (the client's ``RewardPages``, falling back page by page to parsed JSON,
then to models) and reads the card definitions the rewards point at from those columns.
Pulled that way or from models, on the demo program and on a generated one, every frame
of the snapshot is the same, and so are the referenced card definitions (those the list
does not return are then fetched by ID).
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest

from lyt_toolkit import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.client._plain_page import PlainPage
from lyt_toolkit.frames.rewards import REWARD_COSTS, REWARDS, reward_cost_rows, reward_rows
from lyt_toolkit.frames.schema import FrameBuilder
from lyt_toolkit.pull.assemble import RewardPages
from lyt_toolkit.pull.json_values import NotPlain
from lyt_toolkit.pull.reward_pages import ROW_SOURCES, RowSource
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot.references import referenced_card_definitions

from .helpers import assert_same_frames, pull

PULL = importlib.import_module("lyt_toolkit.fill.pull")
FRAMES = importlib.import_module("lyt_toolkit.pull.assemble")
ARROW = importlib.import_module("lyt_toolkit.pull.reward_arrow")


class ModelRewardFrames(RewardPages):
    """The reward frames and references as the pull read them before: from models."""

    def __init__(self) -> None:
        super().__init__(FrameBuilder(REWARDS), FrameBuilder(REWARD_COSTS))

    def add(self, page: Any) -> int:
        models = page.models().data if isinstance(page, PlainPage) else page.data
        assert self.rewards is not None and self.costs is not None
        self.rewards.add(reward_rows(models))
        self.costs.add(reward_cost_rows(models))
        self.referenced |= referenced_card_definitions(models, (), (), (), ())
        return len(models)


def native_frames() -> RewardPages:
    return RewardPages(FrameBuilder(REWARDS), FrameBuilder(REWARD_COSTS))


@pytest.fixture
def model_pages(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The reward pages the pull read from models (its last fallback), by size."""
    counted: list[int] = []

    def counting(items: Any) -> Any:
        counted.append(len(items))
        return reward_rows(items)

    sources = {**ROW_SOURCES, "rewards": RowSource(ROW_SOURCES["rewards"].plain, counting)}
    monkeypatch.setattr(FRAMES, "ROW_SOURCES", sources)
    return counted


@pytest.fixture
def slower_pages(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The reward pages the pull read the model-free way (the native path refused them)."""
    counted: list[int] = []
    source = FRAMES.ROW_SOURCES["rewards"]

    def counting(items: Any) -> Any:
        counted.append(len(items))
        return source.plain(items)

    monkeypatch.setitem(FRAMES.ROW_SOURCES, "rewards", RowSource(counting, source.models))
    return counted


def test_a_snapshot_equals_one_pulled_from_models(
    each_program: Sandbox,
    model_pages: list[int],
    slower_pages: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fast = pull(each_program)
    assert model_pages == []  # every reward page was read without models
    assert slower_pages == []  # ... and in native code
    assert len(fast.rewards) > 0 and len(fast.reward_costs) > 0
    with monkeypatch.context() as patched:
        patched.setattr(PULL, "_reward_pages", ModelRewardFrames)
        from_models = pull(each_program)
    assert_same_frames(fast, from_models)
    found = fast.reward_costs["card_definition_found"]
    assert found.notna().any()


def test_kinds_of_rewards_alone_equal_the_model_path(
    each_program: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = ["rewards", "card_definitions"]
    fast = pull(each_program, kinds=kinds)
    with monkeypatch.context() as patched:
        patched.setattr(PULL, "_reward_pages", ModelRewardFrames)
        from_models = pull(each_program, kinds=kinds)
    assert_same_frames(fast, from_models, kinds)
    assert fast.reward_costs.empty


def reward_pages(sb: Sandbox, frames: Any) -> Any:
    """``frames`` fed every model-free reward page of ``sb``, as the pull feeds them."""

    async def read() -> Any:
        kwargs = sb.credentials.as_client_kwargs()
        async with AsyncLoyaltyClient(base_url=sb.base_url, env_file=None, **kwargs) as c:
            async for page in c.rewards.plain_pages(limit=37):
                assert isinstance(page, PlainPage)
                frames.add(page)
                if frames.full:
                    frames.flush()
        frames.close()
        return frames

    return asyncio.run(read())


def test_referenced_definitions_read_from_rows_equal_those_of_models(each_program: Sandbox) -> None:
    with LoyaltyClient(
        base_url=each_program.base_url, env_file=None, **each_program.credentials.as_client_kwargs()
    ) as client:
        models = list(client.rewards.iter(limit=100))
    expected = referenced_card_definitions(models, (), (), (), ())
    assert reward_pages(each_program, native_frames()).referenced == expected
    assert reward_pages(each_program, ModelRewardFrames()).referenced == expected
    spending = [s for m in models for cost in m.costs for s in cost.spending or []]
    assert spending and expected  # the program has references for the pull to read


def test_pages_the_native_path_refuses_are_read_the_model_free_way(
    demo: Sandbox, slower_pages: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(ARROW, "decode_reward_pages", lambda bodies, cursors, **wanted: None)
        slower = pull(demo)
    assert slower_pages and sum(slower_pages) == len(slower.rewards)
    assert_same_frames(slower, pull(demo))


def test_a_page_that_is_not_plain_is_read_from_models(
    demo: Sandbox, model_pages: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def not_plain(items: Any) -> Any:
        raise NotPlain

    with monkeypatch.context() as patched:
        patched.setattr(ARROW, "decode_reward_pages", lambda bodies, cursors, **wanted: None)
        for kind in ("rewards", "reward_costs"):
            models = FRAMES.ROW_SOURCES[kind].models
            patched.setitem(FRAMES.ROW_SOURCES, kind, RowSource(not_plain, models))
        fallen_back = pull(demo)
    assert model_pages and sum(model_pages) == len(fallen_back.rewards)
    assert_same_frames(fallen_back, pull(demo))
