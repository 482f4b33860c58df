"""A pull against the call budget, over real HTTP: counted first, pulled within the count,
only the kinds asked for, one token, and what it used reported."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.fill import PullBudget
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

ClientFor = Callable[..., LoyaltyClient]

EXACT_KINDS = ["rewards", "benefits", "tier_structures", "programs", "members", "cards"]
"""Kinds whose pull the estimate counts exactly (no bucket lists, no card definitions)."""


def test_a_pull_on_a_budget_equal_to_its_estimate_gets_no_429(
    demo: Sandbox, make_client: ClientFor
) -> None:
    demo.set_plan("10000/hour")
    with make_client(demo) as client:
        estimate = ProgramSnapshot.estimate(client)
        assert estimate.spent == demo.plan()["used"] == client.quota.calls_used
        assert not estimate.exact and estimate.parts["token"] == 1
        demo.set_plan(f"{estimate.calls}/hour")  # a fresh window holding the estimate exactly
        snapshot = ProgramSnapshot.pull(client, progress=False)
    # A 429 would have raised: the window resets an hour away on the sandbox's fixed clock.
    assert snapshot.calls is not None
    assert snapshot.calls.used == demo.plan()["used"] <= estimate.calls
    assert snapshot.calls.remaining == estimate.calls - snapshot.calls.used
    # The bound: one card per listed card definition for each member.
    members = len(snapshot.members)
    assert estimate.parts["cards"] == members
    listed = int(snapshot.card_definitions["listed"].sum())
    assert estimate.parts["pending_buckets"] == members * listed
    assert len(snapshot.pending_buckets) > 0 and len(snapshot.cards) > 0


def test_an_exact_estimate_is_what_the_pull_sends(demo: Sandbox, make_client: ClientFor) -> None:
    demo.set_plan("10000/hour")
    with make_client(demo) as client:
        estimate = ProgramSnapshot.estimate(client, kinds=EXACT_KINDS)
        assert estimate.exact and "card_definitions" not in estimate.parts
        used = demo.plan()["used"]
        snapshot = ProgramSnapshot.pull(client, kinds=EXACT_KINDS, progress=False)
    assert snapshot.calls is not None
    # One token for the pull's client, and no other token request (the service's clock is
    # read from it).
    assert snapshot.calls.used == estimate.calls == demo.plan()["used"] - used
    assert str(snapshot.pulled_at) == "2026-01-15 12:00:00+00:00"


def test_reading_the_members_is_deprecated_and_makes_the_bucket_lists_exact(
    demo: Sandbox, make_client: ClientFor
) -> None:
    kinds = [*EXACT_KINDS, "pending_buckets"]
    with make_client(demo) as client:
        with pytest.warns(FutureWarning, match=r"estimate\(read_members=True\) is deprecated"):
            estimate = ProgramSnapshot.estimate(client, kinds=kinds, read_members=True)
        snapshot = ProgramSnapshot.pull(client, kinds=kinds, progress=False)
    assert estimate.exact
    # One bucket list per card holding pending points, none for the others.
    holding = int((snapshot.cards["balance_pending_points"] != 0).sum())
    assert 0 < holding < len(snapshot.cards)
    assert estimate.parts["pending_buckets"] == holding
    assert estimate.spent == 1 + sum(
        v for k, v in estimate.parts.items() if k not in ("token", "cards", "pending_buckets")
    ) + len(snapshot.members)
    assert snapshot.calls is not None and snapshot.calls.used == estimate.calls


def test_only_the_kinds_asked_are_pulled(demo: Sandbox, make_client: ClientFor) -> None:
    with make_client(demo) as client:
        estimate = ProgramSnapshot.estimate(client, kinds=["rewards"])
        snapshot = ProgramSnapshot.pull(client, kinds=["rewards"], progress=False)
    assert set(estimate.parts) == {"token", "rewards"}
    assert snapshot.calls is not None and snapshot.calls.used == estimate.calls
    assert len(snapshot.rewards) > 0
    for name in ("reward_costs", "benefits", "card_definitions", "programs", "members", "cards"):
        assert len(getattr(snapshot, name)) == 0, name


def test_an_unknown_kind_is_refused_naming_it(demo: Sandbox, make_client: ClientFor) -> None:
    with make_client(demo) as client, pytest.raises(ValueError, match="kinds: unknown"):
        ProgramSnapshot.estimate(client, kinds=["reward"])
    with pytest.raises(ValueError, match=r"\['members2'\]"):
        ProgramSnapshot.pull(client, kinds=["members2"], progress=False)


def test_no_kind_at_all_is_refused_before_any_call(demo: Sandbox, make_client: ClientFor) -> None:
    used = demo.plan()["used"]
    with make_client(demo) as client:
        nothing: tuple[list[str], tuple[str, ...], set[str]] = ([], (), set())
        for asked in nothing:
            with pytest.raises(ValueError, match="kinds: name at least one"):
                ProgramSnapshot.pull(client, kinds=asked, progress=False)
            with pytest.raises(ValueError, match="kinds: name at least one"):
                ProgramSnapshot.estimate(client, kinds=asked)
    assert demo.plan()["used"] == used


def test_kinds_as_text_is_one_frame_name_or_refused(demo: Sandbox, make_client: ClientFor) -> None:
    """``kinds="rewards"`` is that one kind, for the estimate and the pull alike; other text
    (several names, a name misspelt) is refused naming ``kinds`` and saying to list them,
    before any call."""
    demo.set_plan("10000/hour")
    with make_client(demo) as client:
        estimate = ProgramSnapshot.estimate(client, kinds="rewards")
        snapshot = ProgramSnapshot.pull(client, kinds="rewards", progress=False)
        assert estimate.kinds == snapshot.kinds == {"rewards"} and len(snapshot.rewards) > 0
        used = demo.plan()["used"]
        for text in ("rewards,benefits", "rewards benefits", "reward"):
            with pytest.raises(ValueError, match=r"^kinds: unknown '.*'; .* several as a list"):
                ProgramSnapshot.pull(client, kinds=text, progress=False)
            with pytest.raises(ValueError, match=r"^kinds: unknown '.*'; .* several as a list"):
                ProgramSnapshot.estimate(client, kinds=text)
    assert demo.plan()["used"] == used


def test_the_estimate_says_the_budget(demo: Sandbox, make_client: ClientFor) -> None:
    demo.set_plan("500/hour")
    with make_client(demo) as client:
        estimate = ProgramSnapshot.estimate(client, kinds=["programs"])
    assert estimate.remaining == 500 - demo.plan()["used"] and estimate.limit == 500
    assert estimate.fits
    assert str(estimate).startswith(f"calls needed: {estimate.calls} (estimate used 2); ")
    assert "remaining this window: " in str(estimate) and " of 500; resets at " in str(estimate)


def test_an_unknown_budget_reads_as_unknown(demo: Sandbox, make_client: ClientFor) -> None:
    with make_client(demo) as client:  # the demo's plan is unlimited: no limit headers
        estimate = ProgramSnapshot.estimate(client, kinds=["programs"])
    assert estimate.remaining is None and estimate.fits is None
    assert str(estimate).endswith(
        "budget unknown (no limit headers seen yet); whether it fits is unknown"
    )


def test_a_pull_budget_takes_its_kinds_as_a_pull_does(
    demo: Sandbox, make_client: ClientFor
) -> None:
    """One frame name as text is that frame, not its letters; an unknown one is refused
    naming ``kinds`` (``wanted_kinds``, as ``ProgramSnapshot.pull(kinds=)``)."""
    with make_client(demo) as client, client.quota.allowance(0.5) as allowance:
        assert PullBudget(allowance, client.quota, "rewards").kinds == {"rewards"}
        assert PullBudget(allowance, client.quota, ["rewards", "cards"]).kinds == {
            "rewards",
            "cards",
        }
        with pytest.raises(ValueError, match=r"^kinds: unknown 'reward';"):
            PullBudget(allowance, client.quota, "reward")
        with pytest.raises(ValueError, match=r"^kinds: unknown \['rewardz'\]"):
            PullBudget(allowance, client.quota, ["rewards", "rewardz"])


@pytest.mark.parametrize(
    ("kinds", "said"),
    [
        (
            None,
            r"at least (\d+); (\d+) with each bound counted, which bounds the pull neither way",
        ),
        (["programs", "members", "cards", "card_definitions"], r"at least (\d+)"),
        (
            ["rewards", "programs", "members", "cards", "pending_buckets"],
            r"at most (\d+), at least (\d+)",
        ),
    ],
)
def test_an_estimate_says_what_each_figure_is_and_the_pull_keeps_to_it(
    start_sandbox: StartSandbox,
    make_client: ClientFor,
    kinds: list[str] | None,
    said: str,
) -> None:
    """The bucket lists are an upper bound, the card definitions read by ID a lower one: the
    text calls the total ``at most`` only when no part is a lower bound, and says which bound
    each part is; the pull then sends at least the least (and at most the most, if any)."""
    program = generate_program(members=30, rewards=5, benefits=3, card_definitions=2, seed=1)
    with start_sandbox(program) as sb:
        sb.set_plan("10000/hour")
        with make_client(sb) as client:
            estimate = ProgramSnapshot.estimate(client, kinds=kinds)
        sb.set_plan("10000/hour")
        with make_client(sb) as client:
            ProgramSnapshot.pull(client, progress=False, kinds=kinds)
        used = sb.plan()["used"]
    text = str(estimate)
    found = re.match(rf"calls needed: {said} \(bounds: ([^)]*)\) \(estimate used", text)
    assert found, text
    for bound in found.group(found.re.groups).split(", "):
        named = re.fullmatch(r"(\w+) at (least|most) (\d+)", bound)
        assert named, bound
        part, which, calls = named.groups()
        assert int(calls) == estimate.parts[part]
        assert which == ("least" if part == "card_definitions_by_id" else "most")
    if said.startswith("at most"):
        most, least = (int(n) for n in found.groups()[:2])
        assert least <= used <= most == estimate.calls
    else:
        least = int(found.group(1))
        assert least == estimate.at_least <= used
        assert "at most" not in text.split(" (bounds: ")[0]
