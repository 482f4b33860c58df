"""The member tree's walk, declared once: the requests of each level, in order, and no more."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.pull.member_tree import TREE, Lists, Reads, Request, member_tree, walk_tree


def program(pid: str) -> Any:
    return SimpleNamespace(id=pid)


def card(cid: str) -> Any:
    """A card holding pending points unless its ID ends in ``_0``."""
    pending = 0 if cid.endswith("_0") else 25
    return SimpleNamespace(id=cid, balance=SimpleNamespace(pending_points=pending))


def member(pid: str, mid: str, *cards: str) -> Any:
    held = [SimpleNamespace(card=card(c)) for c in cards]
    return SimpleNamespace(id=mid, program_id=pid, cards=[*held, SimpleNamespace(card=None)])


def steps(depth: int, program_id: str | None = None, *, pending_only: bool = True) -> list[Any]:
    """The requests the walk asks for, level by level, answered with a small tree."""
    walk = member_tree(depth, program_id, pending_only=pending_only)
    asked: list[Any] = []
    answers = {
        "programs": [[program("lpro_1"), program("lpro_2")]],
        "members": [[member("lpro_1", "lmem_a")], [member("lpro_2", "lmem_b")]],
        "cards": [
            member("lpro_1", "lmem_a", "lcrd_1", "lcrd_0", "lcrd_2"),
            member("lpro_2", "lmem_b"),
        ],
        "pending_buckets": [["b1"], ["b2", "b3"]],
    }
    try:
        step = next(walk)
        while True:
            asked.append(step)
            part = step.requests[0].part
            answer = answers[part]
            if isinstance(step, Reads) and part == "programs":
                answer = [program(program_id or "")]
            step = walk.send(answer)
    except StopIteration as done:
        asked.append(done.value)
    return asked


def test_the_walk_asks_for_each_level_in_the_trees_order() -> None:
    *asked, tree = steps(len(TREE))
    assert [type(s) for s in asked] == [Lists, Lists, Reads, Lists]
    assert [s.requests[0].part for s in asked] == list(TREE)
    assert asked[1].requests == [
        Request("members", "members", ("lpro_1",)),
        Request("members", "members", ("lpro_2",)),
    ]
    assert asked[2].requests[1] == Request("cards", "members", ("lpro_2", "lmem_b"))
    assert [r.ids for r in asked[3].requests] == [
        ("lpro_1", "lmem_a", "lcrd_1"),
        ("lpro_1", "lmem_a", "lcrd_2"),
    ]  # a card slot without a card, or a card holding no pending points, asks for nothing
    assert tree.pending_buckets == ["b1", "b2", "b3"]


def test_every_card_is_listed_unless_pending_only() -> None:
    *asked, _ = steps(len(TREE), pending_only=False)
    assert [r.ids[-1] for r in asked[3].requests] == ["lcrd_1", "lcrd_0", "lcrd_2"]


@pytest.mark.parametrize("depth", range(len(TREE) + 1))
def test_the_walk_goes_no_deeper_than_asked(depth: int) -> None:
    *asked, _ = steps(depth)
    assert [s.requests[0].part for s in asked] == list(TREE[:depth])


def test_only_the_members_picked_are_read() -> None:
    walk = member_tree(3, read=lambda members: [m for m in members if m.id == "lmem_b"])
    next(walk)
    step = walk.send([[program("lpro_1"), program("lpro_2")]])
    step = walk.send([[member("lpro_1", "lmem_a")], [member("lpro_2", "lmem_b")]])
    assert step.requests == [Request("cards", "members", ("lpro_2", "lmem_b"))]


def test_one_program_is_read_not_listed() -> None:
    *asked, tree = steps(2, "lpro_9")
    assert isinstance(asked[0], Reads)
    assert asked[0].requests == [Request("programs", "programs", ("lpro_9",))]
    assert [p.id for p in tree.programs] == ["lpro_9"]


def test_a_walk_with_a_client_finds_what_the_lists_hold(client: LoyaltyClient) -> None:
    tree = walk_tree(member_tree(len(TREE)), client)
    assert [p.id for p in tree.programs] == [p.id for p in client.programs.iter()]
    listed = [m.id for p in tree.programs for m in client.members.iter(p.id)]
    assert [m.id for m in tree.members] == listed
    assert [m.id for m in tree.cards] == listed
    expected = [
        b.id
        for m in tree.cards
        for c in m.cards
        if c.card is not None
        for b in client.pending_buckets.iter(m.program_id, m.id, c.card.id)
    ]
    assert [b.id for b in tree.pending_buckets] == expected and expected
