"""A pull refused for its member reads, from Python, over real HTTP: it names the estimate
that tells its cost first, spelled as Python calls it, and, stopped partway through its
member reads, quotes the calls it needs in all, projected from the members read, with no
call more.

A 120-member program: a pull reads its first 100 members, projects the rest from them, then
reads the other 20.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fixture_types import StartSandbox
from other_traffic import member_read, spend
from shared_tls import TLS

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import PullBudgetError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

ClientFor = Callable[..., LoyaltyClient]

PROGRAM = generate_program(members=120, rewards=5, benefits=3, card_definitions=2, seed=4)

ESTIMATE_READS = (
    "(walks the lists again and reads 100 members drawn at random, one call each: the calls"
    " expected, with a 95 % interval; nothing is pulled)"
)


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """``PROGRAM`` served (only read: each test puts its plan in force)."""
    with start_sandbox(PROGRAM) as sb:
        yield sb


def test_a_refusal_for_the_member_reads_names_the_estimate_as_python_spells_it(
    program: Sandbox, make_client: ClientFor
) -> None:
    """Refused before its member reads (``kinds`` and ``budget_share`` its own), the pull's
    text ends with the estimate that counts it first, the same ``kinds`` and share; run as
    spelled, it reads 100 members. Earlier the text named no estimate (the CLI alone added
    ``lyt export --estimate --read-sample 100``)."""
    kinds = ["members", "cards", "pending_buckets"]
    program.set_plan("300/hour")  # 0.4 of it: the lists and 100 reads, not 120 reads
    with make_client(program) as client, pytest.raises(PullBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False, kinds=kinds, budget_share=0.4)
    refusal = caught.value
    assert refusal.stage == "member reads" and not refusal.during
    call = (
        "ProgramSnapshot.estimate(client, kinds=['cards', 'members', 'pending_buckets'],"
        " budget_share=0.4, read_sample=100)"
    )
    line = f"To know the cost first: {call} {ESTIMATE_READS}"
    assert str(refusal).endswith(f"\n{line}"), str(refusal)
    assert refusal.cost_first == line
    assert "lyt export" not in str(refusal).replace("lyt export --checkpoint DIR", "")
    program.set_plan("300/hour")  # the same window again
    with make_client(program) as client:
        estimate = eval(call, {"ProgramSnapshot": ProgramSnapshot, "client": client})
    assert estimate.projected is not None and estimate.projected.members == 100
    assert estimate.kinds == frozenset(kinds) and estimate.share == 0.4


def test_a_pull_stopped_partway_through_its_member_reads_quotes_the_calls_it_needs_in_all(
    program: Sandbox, make_client: ClientFor
) -> None:
    """Half of 400 holds the whole pull when it starts; once its 110th member read is sent
    another client of the project spends 170 of the window, and half of what is left for the
    pull is less than it has sent: it stops during the second part of its reads. Earlier the
    refusal quoted the calls needed in all only when it stopped between two parts; it now
    projects them from the first part's 100 members, with no call more, and the whole pull
    sends a count within the interval quoted."""
    program.set_plan("400/hour")
    reads: list[str] = []

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if member_read(request):
            reads.append(request.url.path)
            if len(reads) == 110:
                spend(other, 170)

    with (
        make_client(program) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(program, http_client=http) as client,
        pytest.raises(PullBudgetError) as caught,
    ):
        ProgramSnapshot.pull(client, progress=False, concurrency=1)
    refusal = caught.value
    assert (refusal.stage, refusal.during, refusal.others) == ("member reads", True, 170)
    assert 100 < len(reads) < 120  # stopped partway through the second part
    assert program.plan()["used"] == 170 + refusal.sent  # no call to get the figure
    assert refusal.expected is not None and refusal.interval is not None
    low, high = refusal.interval
    assert refusal.sent < low <= refusal.expected <= high
    first = str(refusal).splitlines()[0]  # figures under 1,000: three significant, exact
    assert first.endswith(
        f"; in all it needs about {refusal.expected} calls (95 % {low} to {high}), projected"
        " from the members read"
    ), first
    program.set_plan("100000/hour")
    with make_client(program) as client:
        ProgramSnapshot.pull(client, progress=False)
    assert low <= program.plan()["used"] <= high  # the pull's calls, in the interval quoted


def _stopped_after(
    program: Sandbox, make_client: ClientFor, reads: int, spent: int
) -> tuple[PullBudgetError, list[str]]:
    """A pull stopped during the first part of its member reads: once its ``reads``-th
    member read is sent (one at a time), another client of the project spends ``spent`` of
    the 400-call window, and half of what is left for the pull is less than it has sent.
    The refusal, and the members read (by path) in the order sent."""
    program.set_plan("400/hour")
    sent: list[str] = []

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if member_read(request):
            sent.append(request.url.path)
            if len(sent) == reads:
                spend(other, spent)

    with (
        make_client(program) as other,
        httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
        make_client(program, http_client=http) as client,
        pytest.raises(PullBudgetError) as caught,
    ):
        ProgramSnapshot.pull(client, progress=False, concurrency=1)
    refusal = caught.value
    assert (refusal.stage, refusal.during, refusal.others) == ("member reads", True, spent)
    assert len(sent) == reads  # the next one refused unsent
    assert program.plan()["used"] == spent + refusal.sent  # no call to get the figure
    return refusal, sent


def test_a_pull_stopped_in_its_first_part_of_reads_quotes_the_calls_from_the_members_read(
    program: Sandbox, make_client: ClientFor
) -> None:
    """Stopped after 50 member reads, all in the first part of 100 (whose answers were seen
    only when it ended), the refusal projects the calls needed in all from those 50 (30 at
    least are needed), with no call more, and the whole pull sends a count within the
    interval quoted. The 50 were drawn at random from the members listed and read in the
    order drawn, not the first listed: a prefix of the listing would stand for one program,
    the earliest to join. Earlier it quoted no figure, and the part was read in listing
    order."""
    refusal, sent = _stopped_after(program, make_client, reads=50, spent=300)
    assert refusal.expected is not None and refusal.interval is not None
    assert refusal.not_projected is None
    low, high = refusal.interval
    assert refusal.sent < low <= refusal.expected <= high
    first = str(refusal).splitlines()[0]
    assert first.endswith(
        f"; in all it needs about {refusal.expected} calls (95 % {low} to {high}), projected"
        " from the members read"
    ), first
    program.set_plan("100000/hour")
    with make_client(program) as client:
        whole = ProgramSnapshot.pull(client, progress=False)
    assert low <= program.plan()["used"] <= high  # the pull's calls, in the interval quoted
    listed = [f"/members/{m}" for m in whole.members["id"]]  # in the order listed
    at = [
        next(i for i, path in enumerate(listed) if sent_path.endswith(path)) for sent_path in sent
    ]
    assert at != sorted(at), "the members were read in the order listed"


def test_a_pull_stopped_after_fewer_than_30_reads_says_why_it_quotes_no_figure(
    program: Sandbox, make_client: ClientFor
) -> None:
    """Stopped after 10 member reads, too few to project the bucket lists from, the refusal
    quotes no figure and says why. Earlier it said nothing of it."""
    refusal, _ = _stopped_after(program, make_client, reads=10, spent=370)
    assert (refusal.expected, refusal.interval) == (None, None)
    why = (
        "only 10 members were read before it stopped, and a 95 % interval of its bucket lists"
        " is projected from 30 at least"
    )
    assert refusal.not_projected == why
    first = str(refusal).splitlines()[0]
    assert first.endswith(f"; no figure for the calls it needs in all: {why}"), first
