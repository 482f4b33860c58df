"""The top-level lists, declared once: every frame comes from one of them or the member tree,
and a pull of some kinds walks exactly the lists those kinds need."""

from __future__ import annotations

import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.models import Page
from lyt_toolkit.pull import PROGRAM_LISTS, TREE, PlainPage
from lyt_toolkit.pull.program_lists import program_lists


def test_each_frame_is_fed_by_one_list_or_one_tree_level() -> None:
    fed = [kind for listed in PROGRAM_LISTS for kind in listed.feeds] + list(TREE)
    assert sorted(fed) == sorted(FRAME_NAMES)


@pytest.mark.parametrize(
    ("kinds", "parts"),
    [
        (["reward_costs"], ["rewards"]),
        (["benefits", "members"], ["benefits"]),
        (["tier_structures", "card_definitions"], ["card_definitions", "tier_structures"]),
        (["programs"], []),
    ],
)
def test_a_pull_walks_the_lists_its_kinds_need(
    client: LoyaltyClient, kinds: list[str], parts: list[str]
) -> None:
    assert [listed.part for listed in program_lists(kinds)] == parts
    estimate = ProgramSnapshot.estimate(client, kinds=kinds)
    lists = {part for part in estimate.parts if part in {p.part for p in PROGRAM_LISTS}}
    assert lists == set(parts)
    snapshot = ProgramSnapshot.pull(client, kinds=kinds, progress=False)
    assert estimate.exact  # none of these kinds reads the members' cards
    assert snapshot.calls is not None
    assert snapshot.calls.used == estimate.calls  # the pull sends what its estimate counted


def test_a_list_reads_model_free_pages_only_where_declared(client: LoyaltyClient) -> None:
    plain = {listed.part for listed in PROGRAM_LISTS if listed.plain}
    assert plain == {"rewards"}
    rewards = next(listed for listed in PROGRAM_LISTS if listed.part == "rewards")
    assert isinstance(next(iter(rewards.pages(client))), PlainPage)
    assert isinstance(next(iter(rewards.pages(client, models=True))), Page)
