"""An estimate reading a random sample of members projects the pull's bucket lists, over real
HTTP: its 95 % interval holds the real pull's over many draws, its reads are counted, and a
bad sample size is refused naming it before any call."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.frames.sample import Sample, SampleDraw
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

ClientFor = Callable[..., LoyaltyClient]

SEEDS = 200
"""Draws of the sample whose intervals are checked against the real pull."""

READ = 40
"""Members read of the program's 400."""


def _skewed_program() -> dict[str, Any]:
    """400 members, one card each, a few of them holding pending points; one member in 12
    holds three more cards, each holding pending points in a bucket (one bucket list each):
    a few members hold most of the bucket lists."""
    program = generate_program(members=400, rewards=5, benefits=3, card_definitions=4, seed=5)
    definitions = [d["id"] for d in program["card_definitions"]]
    bucket = program["pending_buckets"][0]
    for n, card in enumerate(list(program["cards"])):
        if n % 12:
            continue
        others = [d for d in definitions if d != card["card_definition_id"]][:3]
        for k, definition in enumerate(others):
            more = copy.deepcopy(card)
            more["id"] = f"lcrd_9{n:07x}{k:08x}"
            more["code"] = f"SYN-X{n:05d}{k}"
            more["card_definition_id"] = definition
            more["balance"] = {"points": 100, "pending_points": 50}
            held = copy.deepcopy(bucket)
            held.update(id=f"lcppb_9{n:07x}{k:08x}", card_id=more["id"], points={"total": 50})
            held.update(card_definition_id=definition, member_id=card["member_id"])
            program["cards"].append(more)
            program["pending_buckets"].append(held)
    return program


def test_the_interval_of_a_read_sample_holds_the_real_pulls_bucket_lists(
    start_sandbox: StartSandbox, make_client: ClientFor
) -> None:
    """Earlier the estimate had no ``read_sample``; its bucket lists were a bound nine times
    or more the pull's. Now over ``SEEDS`` draws of ``READ`` members the 95 % interval holds
    the real pull's bucket lists in 90 of 100 draws at least; the estimate's reads are in
    ``spent``, as the sandbox counted them."""
    with start_sandbox(_skewed_program()) as sb:
        sb.set_plan("10000/hour")
        with make_client(sb) as client:
            estimate = ProgramSnapshot.estimate(client, read_sample=READ)
        counted = sb.plan()["used"]
        with make_client(sb) as client:
            unread = ProgramSnapshot.estimate(client)
            pulled = ProgramSnapshot.pull(client, progress=False)
    assert estimate.spent == counted
    assert estimate.spent == unread.spent + READ  # the lists, and one read per member drawn
    assert unread.projected is None and unread.expected is None
    assert estimate.parts == unread.parts and estimate.at_least == unread.at_least
    assert pulled.calls is not None and estimate.interval is not None
    lists = pulled.calls.used - estimate.at_least  # the real pull's bucket lists
    cards = pulled.cards
    holders = cards.loc[cards["balance_pending_points"] != 0, "member_id"].astype(str).tolist()
    assert lists == len(holders)
    assert estimate.parts["pending_buckets"] >= 4 * len(pulled.members) > 4 * lists
    text = str(estimate)
    assert text.startswith("calls needed: about "), text
    assert f", from {READ} members read); at least {estimate.at_least}; " in text

    # Imported here: a module that earlier lacked them fails as the estimate above does.
    from lyt_toolkit.fill.projection import PendingRate, drawn_members, projected_lists

    held = 0
    # drawn_members' draw, the members list sorted and cut once (checked on seed 0)
    strata = SampleDraw(pulled.members, Sample(READ, 0, by=(), allocation="proportional"))
    for seed in range(SEEDS):  # the pull's members and cards stand for those the estimate reads
        drawn = set(strata.reseeded(seed).first.units["member_id"].astype(str))
        assert len(drawn) == READ
        rate = PendingRate.of(READ, [m for m in holders if m in drawn])
        draw = projected_lists(rate, len(pulled.members))
        assert draw.low <= draw.expected <= draw.high
        if seed == 0:  # the estimate's own draw
            assert drawn == drawn_members(pulled.members, READ, seed)
            assert estimate.projected == draw
            assert estimate.interval == (
                estimate.at_least + draw.low,
                estimate.at_least + draw.high,
            )
        held += draw.low <= lists <= draw.high
    assert held >= 0.9 * SEEDS, f"{held} of {SEEDS} intervals held {lists} bucket lists"


@pytest.mark.parametrize(
    ("size", "error", "message"),
    [
        (0, ValueError, "read_sample: 0 members; read 1 at least, or give None"),
        (-5, ValueError, "read_sample: -5 members; read 1 at least, or give None"),
        (2.5, TypeError, "read_sample: expected a whole number of members or None, not float"),
        (True, TypeError, "read_sample: expected a whole number of members or None, not bool"),
        ("10", TypeError, "read_sample: expected a whole number of members or None, not str"),
    ],
)
def test_a_bad_read_sample_is_refused_naming_it_before_any_call(
    demo: Sandbox, make_client: ClientFor, size: object, error: type[Exception], message: str
) -> None:
    """Earlier ``read_sample`` was no parameter at all (a TypeError naming an unexpected
    keyword); now a bad one is refused naming it, and nothing is sent."""
    demo.set_plan("100/hour")
    with make_client(demo) as client, pytest.raises(error) as raised:
        ProgramSnapshot.estimate(client, read_sample=size)  # type: ignore[arg-type]
    assert demo.plan()["used"] == 0
    assert str(raised.value) == message


def test_a_read_sample_with_every_member_read_is_refused_before_any_call(
    demo: Sandbox, make_client: ClientFor
) -> None:
    """``read_members=True`` (deprecated) reads every member: a sample beside it is refused
    naming ``read_sample``, nothing sent (earlier ``read_sample`` was no parameter)."""
    demo.set_plan("100/hour")
    with make_client(demo) as client, pytest.raises(ValueError) as raised:
        ProgramSnapshot.estimate(client, read_sample=10, read_members=True)
    assert demo.plan()["used"] == 0
    assert str(raised.value) == (
        "read_sample: give read_sample or read_members (deprecated), not both"
    )


def test_a_read_sample_beyond_the_share_is_read_as_far_as_it_fits(
    start_sandbox: StartSandbox, make_client: ClientFor
) -> None:
    """The lists walked, the estimate reads only the members its share has left calls for,
    and says how many it read; it never spends beyond its share (earlier ``read_sample`` was
    no parameter)."""
    program = generate_program(members=300, rewards=5, benefits=3, card_definitions=2, seed=2)
    with start_sandbox(program) as sb:
        sb.set_plan("10000/hour")
        with make_client(sb) as client:
            lists = ProgramSnapshot.estimate(client).spent  # the token and the lists
        sb.set_plan(f"{2 * (lists + 30)}/hour")  # a fresh window: half of it holds 30 reads
        with make_client(sb) as client:
            estimate = ProgramSnapshot.estimate(client, read_sample=100)
        assert sb.plan()["used"] == estimate.spent
    assert estimate.complete and estimate.projected is not None
    assert estimate.projected.members == 30 == estimate.spent - lists
    assert ", from 30 members read); " in str(estimate)
