"""A pull on a program of real size keeps to its share of the call budget, over real HTTP.

The program here has 1,500 members: reading each costs one call, far beyond the share of a
1,000-call window that a pull keeps to by default. The pull walks the lists, finds that,
and stops before reading a single member, leaving the rest of the window to the project.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pandas as pd
import pytest
from fixture_types import StartSandbox
from interrupting import Waits
from other_traffic import member_read, spend
from shared_tls import TLS

from lyt_toolkit import ProgramSnapshot, Sample
from lyt_toolkit._shares import share_of
from lyt_toolkit.client import AsyncLoyaltyClient, LoyaltyClient
from lyt_toolkit.economics import estimates
from lyt_toolkit.errors import PullBudgetError, WayForward
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.frames.sample import SampleDraw, estimate_total, member_points
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot.cost import pages
from lyt_toolkit.snapshot.defaults import DEFAULT_SHARE

from .helpers import LARGE_MEMBERS, LARGE_PROGRAM, list_calls

ClientFor = Callable[..., LoyaltyClient]

MEMBERS, PROGRAM = LARGE_MEMBERS, LARGE_PROGRAM
LIST_CALLS = list_calls(PROGRAM)


@pytest.fixture(scope="module")
def large(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """The 1,500-member program; each test puts in force the plan it needs (reads only)."""
    with start_sandbox(PROGRAM) as sb:
        yield sb


def _pulled_with_room(large: Sandbox, make_client: ClientFor, **kwargs: Any) -> ProgramSnapshot:
    """``large`` pulled (``kwargs`` to the pull) on a plan with room for every call."""
    large.set_plan("100000/hour")
    with make_client(large) as client:
        return ProgramSnapshot.pull(client, progress=False, **kwargs)


class Full(NamedTuple):
    """``large`` pulled whole through a caller's own httpx client."""

    snapshot: ProgramSnapshot
    counted: int
    """The calls the sandbox's window counted just after."""
    quota: int
    """The calls the pull's ``LoyaltyClient`` counted."""
    sent: list[str]
    """The path of each request the caller's httpx client sent."""


@pytest.fixture(scope="module")
def full(large: Sandbox, make_client: ClientFor) -> Full:
    """``large`` pulled whole on a plan with room for every call (pulled once: the program
    is only read), through a caller's httpx client that notes each request it sends."""
    large.set_plan("100000/hour")
    sent: list[str] = []
    hooks = {"request": [lambda r: sent.append(r.url.path)]}
    with (
        httpx.Client(event_hooks=hooks, verify=TLS) as http,
        make_client(large, http_client=http) as client,
    ):
        snapshot = ProgramSnapshot.pull(client, progress=False)
        quota = client.quota.calls_used
    return Full(snapshot, large.plan()["used"], quota, sent)


def _value(way: WayForward) -> Any:
    """The value of the pull's keyword argument that ``way`` offers."""
    assert way.argument is not None, way
    return way.argument[1]


def _assert_sampled_from_full(
    sampled: ProgramSnapshot, full: ProgramSnapshot, sample: Sample
) -> int:
    """``sampled`` (a sampled pull) equals ``full.sampled(sample)`` frame by frame and in its
    sample units; returns the calls it sent beyond the lists and the sampled members: one per
    card holding pending points, one per card definition read by ID."""
    expected = full.sampled(sample)
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(sampled, name), getattr(expected, name), obj=name)
    assert sampled.sample is not None and expected.sample is not None
    pd.testing.assert_frame_equal(sampled.sample.units, expected.sample.units)
    holding = int((sampled.cards["balance_pending_points"] != 0).sum())
    by_id = int((~sampled.card_definitions["listed"]).sum())
    return holding + by_id


def test_a_pull_beyond_its_share_stops_before_reading_a_member(
    large: Sandbox, make_client: ClientFor
) -> None:
    large.set_plan("1000/hour")
    with make_client(large) as client:
        assert client.quota.remaining is None  # unknown until the first answer: read then
        with pytest.raises(PullBudgetError) as caught:
            ProgramSnapshot.pull(client, progress=False)
        used = client.quota.calls_used
    error = caught.value
    window = large.plan()
    assert error.stage == "member reads"
    assert error.sent == used == window["used"] == LIST_CALLS  # lists only, no member read
    assert window["remaining"] == 1000 - LIST_CALLS  # the rest is the project's
    assert error.share == 0.5 and error.window_left is not None
    assert error.remaining == math.floor(0.5 * error.window_left) - LIST_CALLS
    assert error.needed >= MEMBERS
    assert error.limit == 1000 and error.resets_at is not None
    text = str(error)
    assert "pull stopped before its member reads" in text and "Ways forward:" in text
    hows = [way.how for way in error.ways]
    assert any(how.startswith("kinds=") for how in hows)
    assert any(how.startswith("sample=") for how in hows)
    lists_only = next(w for w in error.ways if w.how.startswith("kinds="))
    assert lists_only.calls == LIST_CALLS + 1  # and the one card definition read by ID
    assert "cards" not in lists_only.how
    paced = next(w for w in error.ways if w.argument and w.argument[0] == "checkpoint")
    assert paced.calls is not None and paced.calls >= LIST_CALLS + MEMBERS


def test_the_way_forward_it_names_fits(large: Sandbox, make_client: ClientFor) -> None:
    large.set_plan("1000/hour")
    with make_client(large) as client, pytest.raises(PullBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False)
    lists_only = next(w for w in caught.value.ways if w.how.startswith("kinds="))
    assert lists_only.argument is not None and lists_only.argument[0] == "kinds"
    kinds = lists_only.argument[1]
    large.set_plan("1000/hour")
    with make_client(large) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False, kinds=kinds)
    assert snapshot.calls is not None and snapshot.calls.used == lists_only.calls
    assert len(snapshot.members) == MEMBERS and len(snapshot.cards) == 0


def test_a_share_too_small_for_the_lists_stops_during_them(
    large: Sandbox, make_client: ClientFor
) -> None:
    large.set_plan("30/hour")
    with make_client(large) as client, pytest.raises(PullBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False)
    assert caught.value.stage == "lists"
    assert caught.value.sent == large.plan()["used"] == 15  # half of 30, not one more
    assert large.plan()["remaining"] == 15
    # What the rest costs is not known: no way claims the window holds it, nor how many
    # windows the paced pull takes; 16 calls is a floor, not an estimate.
    (paced,) = caught.value.ways
    assert paced.argument == ("checkpoint", "pull-checkpoint")
    assert paced.at_least and paced.calls == 16
    assert "window" not in paced.what.replace("windows as it takes", "")
    assert "not known until its lists are walked" in paced.what


def test_the_whole_window_is_used_only_when_asked(large: Sandbox, make_client: ClientFor) -> None:
    large.set_plan("30/hour")
    with make_client(large) as client, pytest.raises(PullBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False, budget_share=1.0)
    # The lists fit in the whole window; the member reads do not, and none is sent.
    assert caught.value.stage == "member reads"
    assert large.plan()["used"] == LIST_CALLS and caught.value.remaining == 30 - LIST_CALLS


@pytest.mark.parametrize("share", [0, -0.5, 1.5, math.nan, math.inf, "half", True])
def test_a_budget_share_out_of_range_is_refused_naming_it(
    large: Sandbox, make_client: ClientFor, share: Any
) -> None:
    large.set_plan("1000/hour")
    with make_client(large) as client, pytest.raises(ValueError, match="budget_share"):
        ProgramSnapshot.pull(client, progress=False, budget_share=share)
    assert large.plan()["used"] == 0


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("concurrency", 2.5, ValueError),
        ("concurrency", math.nan, ValueError),
        ("concurrency", 0, ValueError),
        ("concurrency", True, ValueError),
        ("checkpoint", "", ValueError),
        ("checkpoint", "  ", ValueError),
        ("checkpoint", 5, TypeError),
    ],
)
@pytest.mark.parametrize("read", ["pull", "refresh"])
def test_a_bad_concurrency_or_checkpoint_is_refused_naming_it_before_anything_is_sent(
    large: Sandbox,
    make_client: ClientFor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    read: str,
    option: str,
    value: Any,
    error: type[Exception],
) -> None:
    monkeypatch.chdir(tmp_path)  # an empty checkpoint path would have written here
    large.set_plan("1000/hour")
    old = ProgramSnapshot.from_frames({})
    with make_client(large) as client, pytest.raises(error, match=f"^{option}: "):
        if read == "pull":
            ProgramSnapshot.pull(client, progress=False, **{option: value})
        else:
            old.refresh(client, progress=False, **{option: value})
    assert large.plan()["used"] == 0
    assert not list(tmp_path.iterdir())


def test_a_full_pull_sends_the_fewest_calls_the_interface_allows(full: Full) -> None:
    snapshot, counted = full.snapshot, full.counted
    holding = sum(1 for c in PROGRAM["cards"] if c["balance"]["pending_points"])
    assert 0 < holding < MEMBERS
    by_id = int((~snapshot.card_definitions["listed"]).sum())  # referenced, not listed
    assert snapshot.calls is not None
    minimum = LIST_CALLS + MEMBERS + holding + by_id
    assert snapshot.calls.used == minimum == counted
    # Nothing pending is lost by skipping the cards that hold no pending points.
    pending = {b["id"] for b in PROGRAM["pending_buckets"] if b["status"] == "PENDING"}
    assert set(snapshot.pending_buckets["id"]) == pending


def test_the_pull_sends_through_the_callers_client(full: Full) -> None:
    """Every call of the full pull (its token, lists, member reads and bucket lists) goes
    through the caller's httpx client: the ``full`` pull is made through one."""
    snapshot, sent = full.snapshot, full.sent
    assert snapshot.calls is not None
    assert len(sent) == full.quota == snapshot.calls.used == full.counted > MEMBERS
    assert sum(path.endswith("/members") for path in sent) == pages(MEMBERS, 100)
    assert sum("/members/" in path and path.count("/") == 6 for path in sent) == MEMBERS


def test_an_async_client_counts_its_pull(large: Sandbox) -> None:
    large.set_plan("1000/hour")

    async def pull() -> tuple[int, PullBudgetError]:
        async with AsyncLoyaltyClient(
            base_url=large.base_url, env_file=None, **large.credentials.as_client_kwargs()
        ) as client:
            with pytest.raises(PullBudgetError) as caught:
                await ProgramSnapshot.apull(client, progress=False)
            return client.quota.calls_used, caught.value

    used, error = asyncio.run(pull())
    assert used == error.sent == LIST_CALLS == large.plan()["used"]


def test_an_estimate_reads_no_member_one_by_one(large: Sandbox, make_client: ClientFor) -> None:
    large.set_plan("1000/hour")
    with make_client(large) as client:
        estimate = ProgramSnapshot.estimate(client)
    assert estimate.complete and estimate.spent == LIST_CALLS == large.plan()["used"]
    assert estimate.parts["cards"] == MEMBERS  # counted from the lists, not read
    assert estimate.bounds == {"pending_buckets", "card_definitions_by_id"}
    assert estimate.at_least == 1 + (LIST_CALLS - 1) + 1 + MEMBERS  # one definition by ID
    assert estimate.fits is False
    assert "it does not fit in a pull's share (0.5)" in str(estimate)
    # Every figure with thousands separators, as the projected ones (earlier "at least 1524").
    assert estimate.at_least >= 1000 and estimate.remaining is not None
    text = str(estimate)
    assert f"calls needed: at least {estimate.at_least:,}; {estimate.calls:,} with each" in text
    assert f"pending_buckets at most {estimate.parts['pending_buckets']:,})" in text
    assert f"; remaining this window: {estimate.remaining:,} of 1,000; resets at " in text


def test_the_estimate_and_the_refusal_say_the_same_least(
    large: Sandbox, make_client: ClientFor
) -> None:
    """The estimate's least, the refused pull's whole-pull figure and the lists-only way's
    figure are the calls the sandbox counts: the card definition read by ID included."""
    large.set_plan("1000/hour")
    with make_client(large) as client:
        estimate = ProgramSnapshot.estimate(client)
    large.set_plan("1000/hour")
    with make_client(large) as client, pytest.raises(PullBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False)
    ways = {w.argument[0]: w for w in caught.value.ways if w.argument}
    assert estimate.at_least == ways["checkpoint"].calls
    large.set_plan("1000/hour")
    with make_client(large) as client:
        ProgramSnapshot.pull(client, progress=False, kinds=_value(ways["kinds"]))
    lists_only = large.plan()["used"]
    assert ways["kinds"].calls == lists_only
    assert estimate.at_least == lists_only + MEMBERS


def test_an_estimate_whose_lists_do_not_fit_says_so(large: Sandbox, make_client: ClientFor) -> None:
    large.set_plan("30/hour")
    with make_client(large) as client:
        estimate = ProgramSnapshot.estimate(client)
    assert not estimate.complete and estimate.fits is False
    assert estimate.spent == large.plan()["used"] == 15
    assert "the lists alone do not fit" in str(estimate)
    assert estimate.others == 0 and "other traffic" not in str(estimate)


def test_an_estimate_whose_share_other_traffic_shrinks_names_their_calls(
    large: Sandbox, make_client: ClientFor
) -> None:
    """Half of 60 holds the lists (22 calls) when the estimate starts; another client of the
    project spends 30 once it lists members, and half of the 30 the window then holds for
    it is 15: the lists no longer fit, and the estimate says why."""
    large.set_plan("60/hour")
    listed: list[str] = []

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if request.url.path.endswith("/members"):
            listed.append(request.url.path)
            if len(listed) == 1:
                spend(other, 30)

    with (
        make_client(large) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(large, http_client=http) as client,
    ):
        estimate = ProgramSnapshot.estimate(client)
    assert not estimate.complete and estimate.fits is False
    assert estimate.spent == 15 == large.plan()["used"] - 30
    assert (estimate.allowed, estimate.others) == (15, 30)
    assert (
        "the lists alone do not fit in the share (0.5) of the budget the estimate keeps to, "
        "15 calls (other traffic spent at least 30 calls of the window meanwhile); "
    ) in str(estimate)


def test_a_sampled_pull_reads_only_the_sample_and_equals_the_full_pull_sampled(
    large: Sandbox, make_client: ClientFor, full: Full
) -> None:
    large.set_plan("1000/hour")  # the full pull would not fit; a sample of 200 does
    with make_client(large) as client:
        sampled = ProgramSnapshot.pull(client, progress=False, sample=Sample(200, seed=5))
    design = sampled.sample
    assert design is not None and design.population == MEMBERS
    assert 200 <= design.size < 200 + 2 * len(design.strata)  # at least two a stratum
    beyond = _assert_sampled_from_full(sampled, full.snapshot, Sample(200, seed=5))
    assert sampled.calls is not None
    assert sampled.calls.used == LIST_CALLS + design.size + beyond
    assert sampled.calls.used == large.plan()["used"] < 500
    assert sampled.cards["weight"].sum() == pytest.approx(MEMBERS)


def test_an_adaptive_sampled_pull_reads_its_pilot_then_the_rest_and_equals_the_full_pull_sampled(
    large: Sandbox, make_client: ClientFor, full: Full
) -> None:
    sample = Sample(600, seed=2, by=("status", "joined"), bands=4)  # a pilot of 30 a stratum
    draw = SampleDraw(full.snapshot.members, sample)
    assert draw.adaptive and draw.first.size == 240
    large.set_plan("3000/hour")
    with make_client(large) as client:
        sampled = ProgramSnapshot.pull(client, progress=False, sample=sample)
    design = sampled.sample
    assert design is not None and design.size == 600
    assert set(draw.first.units["member_id"]) <= set(design.units["member_id"])
    assert not design.strata["sampled"].equals(draw.first.strata["sampled"] * 600 // 240)
    beyond = _assert_sampled_from_full(sampled, full.snapshot, sample)
    assert sampled.calls is not None
    assert sampled.calls.used == LIST_CALLS + 600 + beyond == large.plan()["used"]


def test_an_adaptive_sampled_pull_that_cannot_read_the_whole_sample_reads_no_pilot(
    large: Sandbox, make_client: ClientFor
) -> None:
    large.set_plan("1000/hour")  # half the window: 500 calls, not enough for 600 members
    with make_client(large) as client, pytest.raises(PullBudgetError) as refused:
        ProgramSnapshot.pull(
            client, progress=False, sample=Sample(600, by=("status", "joined"), bands=4)
        )
    assert refused.value.stage == "member reads" and refused.value.needed >= 600
    assert large.plan()["used"] == LIST_CALLS
    paced = next(w for w in refused.value.ways if w.argument == ("checkpoint", "pull-checkpoint"))
    assert paced.what.startswith("this pull of 600 members, paced")  # not "the whole pull"


def test_a_smaller_sample_offered_keeps_the_design_asked_for_and_fits(
    large: Sandbox, make_client: ClientFor
) -> None:
    asked = Sample(600, seed=4, by=("status", "joined"), bands=4, allocation="proportional")
    large.set_plan("1000/hour")
    with make_client(large) as client, pytest.raises(PullBudgetError) as refused:
        ProgramSnapshot.pull(client, progress=False, sample=asked)
    way = next(w for w in refused.value.ways if w.argument and w.argument[0] == "sample")
    smaller = replace(asked, n=_value(way))
    assert way.how == f"sample={smaller!r}"  # its seed, strata, bands and allocation
    large.set_plan("1000/hour")
    with make_client(large) as client:
        taken = ProgramSnapshot.pull(client, progress=False, sample=smaller)
    assert taken.sample is not None and taken.sample.drawn_by == smaller
    assert large.plan()["used"] <= way.calls


@pytest.mark.parametrize("plan", ["1000/hour", "2000/hour"])
def test_a_smaller_sample_offered_fits_in_the_same_window_after_the_refused_pull(
    large: Sandbox, make_client: ClientFor, plan: str
) -> None:
    """The way is taken at once, in the window the refused pull spent its lists in: the
    share then is of what that pull left."""
    large.set_plan(plan)
    with make_client(large) as client:
        with pytest.raises(PullBudgetError) as refused:
            ProgramSnapshot.pull(client, progress=False)
        way = next(w for w in refused.value.ways if w.argument and w.argument[0] == "sample")
        window = large.plan()
        assert way.calls <= share_of(window["limit"] - window["used"], DEFAULT_SHARE)
        ProgramSnapshot.pull(client, progress=False, sample=_value(way))
    assert large.plan()["used"] - window["used"] <= way.calls


def test_a_sample_needs_the_member_reads(large: Sandbox, make_client: ClientFor) -> None:
    with make_client(large) as client:
        with pytest.raises(ValueError, match="sample: the kinds asked read no member"):
            ProgramSnapshot.pull(client, progress=False, kinds=["members"], sample=100)
        with pytest.raises(ValueError, match="sample: give a member count"):
            ProgramSnapshot.pull(client, progress=False, sample=0.1)  # type: ignore[arg-type]
        used = large.plan()["used"]
        for size in (0, -1):  # named as given (not as Sample's n), before any call
            with pytest.raises(ValueError, match=rf"^sample: .* from 1, got {size}$"):
                ProgramSnapshot.pull(client, progress=False, sample=size)
        assert large.plan()["used"] == used


def test_a_sample_of_the_cards_alone_buys_more_members_for_the_same_calls(
    large: Sandbox, make_client: ClientFor
) -> None:
    kinds = ["programs", "members", "cards"]
    snapshot = _pulled_with_room(large, make_client, kinds=kinds, sample=600)
    design = snapshot.sample
    assert design is not None and design.size == 600
    assert snapshot.calls is not None
    members_pages = pages(LARGE_MEMBERS, 100)
    assert snapshot.calls.used == 2 + members_pages + 600  # token, programs, members, reads
    assert snapshot.rewards.empty and snapshot.pending_buckets.empty
    figures = estimates(snapshot)
    whole = figures[figures["card_definition_id"].isna() & figures["month"].isna()]
    row = whole[whole["figure"] == "outstanding_points"].iloc[0]
    total = estimate_total(design, member_points(snapshot.cards))
    assert [row["estimate"], row["ci_low"], row["ci_high"]] == pytest.approx(
        [total.value, total.low, total.high]
    )


def test_the_whole_window_is_not_offered_when_what_it_has_left_cannot_hold_the_pull(
    start_sandbox: StartSandbox, make_client: ClientFor
) -> None:
    """On 20 calls an hour the demo's lists take 8 of the pull's 10 and its member reads and
    card definitions need 9 more: 17 at least, within the 20 the window had, but the refused
    pull has spent 8 of them and taking the whole window sends the lists again, so 12 cannot
    hold it: the way is not offered (followed, it was refused again, 8 more calls spent)."""
    with start_sandbox() as sb:
        sb.set_plan("20/hour")
        with make_client(sb) as client, pytest.raises(PullBudgetError) as caught:
            ProgramSnapshot.pull(client, progress=False)
        refusal = caught.value
        assert (refusal.window_left, refusal.sent) == (20, 8)
        assert refusal.sent + refusal.needed == 17
        assert all(w.argument != ("budget_share", 1.0) for w in refusal.ways), refusal.ways
        assert "budget_share=1.0" not in str(refusal)


@pytest.fixture(scope="module")
def shared_demo(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """The demo program (26 calls: 8 for the lists, 7 member reads, 9 bucket lists and 2
    card definitions by ID), read by the pull and another client of the project."""
    with start_sandbox() as sb:
        yield sb


def _pulled_while_others_spend(
    sb: Sandbox, make_client: ClientFor, others: int, waits: Waits | None = None, **options: Any
) -> ProgramSnapshot:
    """``sb`` pulled one member read at a time on 60 calls an hour (``options`` to the
    pull), another client of the project spending ``others`` calls once the first member
    read is sent; the pull's waits taken at once by ``waits`` when given."""
    sb.set_plan("60/hour")
    reads: list[str] = []

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if waits is not None:
            waits.catch_up()
        if member_read(request):
            reads.append(request.url.path)
            if len(reads) == 1:
                spend(other, others)

    with (
        make_client(sb) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(sb, http_client=http) as client,
    ):
        if waits is not None:
            client.quota._clock = client._transport.tokens.clock = waits
        return ProgramSnapshot.pull(client, progress=False, concurrency=1, **options)


def test_a_pull_whose_share_other_traffic_shrinks_stops_during_a_stage_and_says_why(
    shared_demo: Sandbox, make_client: ClientFor
) -> None:
    """Half of 60 holds the whole pull (26) when it starts; after its first member read
    another client spends 34, and half of what the window then holds for the pull
    (60 - 34 = 26) is 13: it stops after 5 member reads, leaving 13 of the window."""
    with pytest.raises(PullBudgetError) as caught:
        _pulled_while_others_spend(shared_demo, make_client, 34)
    refusal = caught.value
    assert shared_demo.plan()["used"] == 34 + 13 == 34 + refusal.sent
    assert (refusal.stage, refusal.during, refusal.remaining) == ("member reads", True, 0)
    assert (refusal.window_left, refusal.others) == (60, 34)
    assert refusal.needed == 8 + 7 + 2 - 13  # the rest planned: 2 reads, 2 definitions
    text = str(refusal)
    assert text.startswith(
        "pull stopped during its member reads: the rest needs at least 4 calls and the pull's "
        "share (0.5) of the call budget has 0 left (the window had 60 of 60 left when the pull "
        "started, at least 34 of them since spent by other traffic; it resets at "
    )
    assert (  # 5 members read: too few to project the bucket lists from, and it says so
        "the pull sent 13 calls and nothing more; no figure for the calls it needs in all: only"
        " 5 members were read before it stopped, and a 95 % interval of its bucket lists is"
        " projected from 30 at least\nWays forward:"
    ) in text
    ways = {way.argument[0]: way for way in refusal.ways if way.argument}
    assert ways["kinds"].calls == 8 + 2  # the lists and the definitions read by ID
    assert ways["checkpoint"].calls == 17 and ways["checkpoint"].at_least
    assert "budget_share" not in ways  # 13 left in the window: the whole pull needs 17+


def test_a_paced_pull_waits_for_the_next_window_when_other_traffic_spends(
    shared_demo: Sandbox, make_client: ClientFor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpointed pull keeps to half of what the window holds for it as other traffic
    spends: after the other client's 34, half of 60 - 34 is 13, so once it has sent 13 the
    pull waits for the next window, leaving the project the other 13, and completes there,
    its frames those of an unpaced pull."""
    from lyt_toolkit.client import _transport

    waits, start = Waits(shared_demo), shared_demo.now()
    monkeypatch.setattr(_transport, "pause", lambda seconds, stops: waits.sleep(seconds))
    try:
        paced = _pulled_while_others_spend(
            shared_demo, make_client, 34, waits, checkpoint=tmp_path / "pull-checkpoint"
        )
        shared_demo.set_plan("100000/hour")
        with make_client(shared_demo) as client:
            unpaced = ProgramSnapshot.pull(client, progress=False)
    finally:
        shared_demo.set_clock(start)
    assert waits.left == [13]  # the first window when the pull waited: (1 - 0.5) of 26
    assert waits.now - 1_000 == pytest.approx(3_600)  # its reset, an hour on
    assert paced.calls is not None
    assert paced.calls.windows == (13, 13 + 1)  # the rest, and a token renewed an hour on
    assert paced.calls.used == 26 + 1
    for name in FRAME_NAMES:
        pd.testing.assert_frame_equal(getattr(paced, name), getattr(unpaced, name), obj=name)


def test_a_refusal_with_other_ways_keeps_everything_else() -> None:
    from datetime import UTC, datetime

    from lyt_toolkit.errors import WayForward

    resets = datetime(2026, 1, 15, 13, tzinfo=UTC)
    way = WayForward("pull a sample", 300, "sample=300", argument=("sample", 300))
    refused = PullBudgetError(
        "member reads",
        needed=2_000,
        remaining=400,
        share=0.5,
        window_left=900,
        sent=7,
        ways=(way,),
        limit=1_000,
        resets_at=resets,
        others=80,
        during=True,
        earlier=30,
    )
    other = WayForward("pull paced", 2_000, "checkpoint='pull/'", at_least=True)
    again = refused.with_ways((other,))
    assert again.ways == (other,) and refused.ways == (way,)
    kept: tuple[str, ...] = (
        "stage", "needed", "remaining", "share", "window_left", "sent", "limit", "resets_at"
    )  # fmt: skip
    kept += ("others", "during", "earlier")
    assert [getattr(again, n) for n in kept] == [getattr(refused, n) for n in kept]
    assert str(again) == str(refused).replace(str(way), str(other))


def test_a_paced_way_counts_whole_windows_after_the_part_of_this_one_left(
    large: Sandbox, make_client: ClientFor
) -> None:
    """Half the window spent, the pull's share of it is half a whole window's: the windows
    after it hold its whole share each, so the paced way needs about half the windows its
    calls divided by this window's share would say."""
    large.set_plan("200/hour")
    with make_client(large) as other, make_client(large) as client:
        while other.quota.calls_used < 100:
            other.programs.list(limit=1)
        with pytest.raises(PullBudgetError) as caught:
            ProgramSnapshot.pull(client, progress=False)
    refusal = caught.value
    assert refusal.window_left == 100 and refusal.stage == "member reads"
    paced = next(w for w in refusal.ways if w.argument == ("checkpoint", "pull-checkpoint"))
    assert paced.calls is not None and paced.calls > MEMBERS
    windows = 1 + math.ceil((paced.calls - 50) / 100)  # 50 in this one, then 100 a window
    assert windows < math.ceil(paced.calls / 50)
    assert f"paced over at least {windows} windows at this share" in paced.what


def test_a_refusal_of_a_run_resumed_in_its_window_counts_its_earlier_runs_calls() -> None:
    """The share (0.5 of the 120 the window held when the pull's first run there started) is
    60: 59 sent by the earlier runs, 1 by this one."""
    refused = PullBudgetError(
        "member reads",
        needed=100,
        remaining=0,
        share=0.5,
        window_left=120,
        sent=1,
        limit=120,
        during=True,
        earlier=59,
    )
    assert "(the window had 120 of 120 left when the pull's first run in this window started;" in (
        str(refused)
    )
    assert str(refused).endswith(
        "the pull sent 1 call (its earlier runs 59 calls of this window) and nothing more"
    )


def test_a_pull_stopped_before_its_bucket_lists_offers_the_lists_at_what_they_cost(
    start_sandbox: StartSandbox, make_client: ClientFor
) -> None:
    """On 40 calls an hour the demo's pull (a share of 20) walks its lists (8 calls), reads
    its 7 members, then stops before its 9 bucket lists and 2 card definitions by ID. The
    lists-only way it offers is the lists' 8 calls and the 2 card definitions, what that
    pull sends, not the 15 the refused pull had sent (its member reads were counted as
    lists)."""
    with start_sandbox() as sb:
        sb.set_plan("40/hour")
        with make_client(sb) as client, pytest.raises(PullBudgetError) as caught:
            ProgramSnapshot.pull(client, progress=False)
        refusal = caught.value
        assert (refusal.stage, refusal.sent) == ("bucket lists", 15)
        (lists,) = [w for w in refusal.ways if w.argument and w.argument[0] == "kinds"]
        assert f"{lists.calls} calls (kinds=" in str(refusal)
        sb.set_plan("40/hour")
        with make_client(sb) as client:
            ProgramSnapshot.pull(client, progress=False, kinds=_value(lists))
        assert lists.calls == sb.plan()["used"] == 10


def test_a_smaller_sample_offered_counts_the_members_its_draw_reads(
    large: Sandbox, make_client: ClientFor
) -> None:
    """A draw gives each stratum of two or more members two: on this program a sample of 2,
    3 or 4 reads 4 members. On 76 calls an hour the refusal offered ``sample=2`` at 27
    calls, counting 2 reads, and taken it read 4 and was refused before its bucket lists;
    a sample is now offered only where the reads its draw takes fit (84 calls an hour)."""
    offered = {}
    for plan in ("76/hour", "84/hour"):
        large.set_plan(plan)
        with make_client(large) as client:
            with pytest.raises(PullBudgetError) as refused:
                ProgramSnapshot.pull(client, progress=False)
            ways = [w for w in refused.value.ways if w.argument and w.argument[0] == "sample"]
            before = large.plan()["used"]
            for way in ways:
                taken = ProgramSnapshot.pull(client, progress=False, sample=_value(way))
                assert large.plan()["used"] - before <= way.calls
                assert taken.sample is not None
                offered[plan] = (_value(way), taken.sample.size)
    assert offered == {"84/hour": (4, 4)}


@pytest.mark.parametrize(
    ("plan", "sample"),
    [("3200/hour", None), ("2100/hour", 1000)],
    ids=["whole pull", "sample of 1000"],
)
def test_a_pull_whose_bucket_lists_will_not_fit_stops_before_spending_its_member_reads(
    large: Sandbox, make_client: ClientFor, full: Full, plan: str, sample: int | None
) -> None:
    """A fifth of the cards hold pending points. On 3,200 calls an hour the pull's share
    (1,600) holds its lists (22 calls) and its 1,500 member reads, not the 300 bucket lists
    after them; on 2,100, a sample of 1,000 the same way. The pull used to send every member
    read first (1,522 calls, 1,022 for the sample) and then stop with nothing; it now
    projects the bucket lists from its first reads and stops there, and the smaller sample
    it offers, taken at once in the same window, fits in what it said. The refusal says what
    the pull needs in all, projected from those reads with a 95 % interval (earlier it had
    no such figure); the whole pull's interval holds the calls the whole pull sent."""
    large.set_plan(plan)
    with make_client(large) as client:
        with pytest.raises(PullBudgetError) as caught:
            ProgramSnapshot.pull(client, progress=False, sample=sample)
        refusal = caught.value
        asked = MEMBERS if sample is None else sample
        assert (refusal.stage, refusal.during) == ("member reads", True), str(refusal)
        assert refusal.sent == large.plan()["used"] < LIST_CALLS + asked // 4
        assert refusal.projected is not None and refusal.projected[0] < asked // 4
        assert "its bucket lists projected from the" in str(refusal)
        assert refusal.sent + refusal.needed <= LIST_CALLS + 1 + asked * 6 // 5  # within reach
        assert refusal.expected is not None and refusal.interval is not None
        low, high = refusal.interval
        assert refusal.sent + refusal.needed <= high and low <= refusal.expected <= high
        if sample is None:
            assert low <= full.quota <= high, (refusal.interval, full.quota)
        first = str(refusal).splitlines()[0]
        said = re.search(
            r"; in all it needs about ([\d,]+) calls \(95 % ([\d,]+) to ([\d,]+)\)", first
        )
        assert said, first
        about, below, above = (int(n.replace(",", "")) for n in said.groups())
        assert below <= low and high <= above and below <= about <= above
        assert first.endswith("), projected from the members read"), first
        way = next(w for w in refusal.ways if w.argument and w.argument[0] == "sample")
        before = large.plan()["used"]
        taken = ProgramSnapshot.pull(client, progress=False, sample=_value(way))
    assert taken.sample is not None and taken.sample.size == _value(way)
    assert large.plan()["used"] - before <= way.calls


def test_a_pull_read_in_parts_keeps_its_members_in_list_order(full: Full) -> None:
    """The member reads go in parts drawn at random (to project the bucket lists); their
    cards come back in the order of the members list all the same."""
    snapshot = full.snapshot
    order = {member: i for i, member in enumerate(snapshot.members["id"])}
    positions = [order[m] for m in snapshot.cards["member_id"]]
    assert positions == sorted(positions) and len(set(positions)) == MEMBERS
