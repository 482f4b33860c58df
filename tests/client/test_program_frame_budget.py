"""The program-wide ``pending_buckets.frame`` keeps to half of the window, as a pull does.

It reads every member of the program one by one: on a program of real size that is more
than a window holds, and a spent window refuses every integration of the project until it
resets. It walks the member list, counts the reads, and stops before them when they do not
fit in half of what the window had left, naming the paced pull that reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import httpx
import pytest
from other_traffic import member_read, spend
from shared_tls import TLS

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError, PullBudgetError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

MEMBERS = 600
PROGRAM = generate_program(members=MEMBERS, rewards=1, benefits=1, seed=5)


@pytest.fixture(scope="module")
def large(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    """The 600-member program; each test puts in force the plan it needs (reads only)."""
    with start_sandbox(PROGRAM) as sb:
        yield sb


def test_the_program_wide_bucket_frame_stops_before_reads_beyond_half_the_window(
    large: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    program_id = PROGRAM["programs"][0]["id"]
    large.set_plan("400/hour")  # the member list fits in half of it, the 600 reads do not
    with make_client(large) as client, pytest.raises(BudgetExceededError) as caught:
        client.pending_buckets.frame(program_id, progress=False)
    window = large.plan()
    assert window["used"] <= 200 and window["remaining"] >= 200  # the rest is the project's
    assert window["used"] < 20  # the token, the program and its member list: no member read
    refusal = caught.value
    assert refusal.needed >= MEMBERS and refusal.share == 0.5
    text = str(refusal)
    assert "pending_buckets" in text and "member reads" in text
    assert "ProgramSnapshot.pull(client, kinds=['pending_buckets'], checkpoint=" in text


def test_a_program_wide_bucket_frame_in_the_window_reads_the_cards_holding_pending_points(
    large: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Within the window the frame reads every member and holds every PENDING bucket. A
    card whose balance shows no pending points has no PENDING bucket, and the service lists
    PENDING buckets only: the frame, as a pull, lists none for it (one call saved per such
    card)."""
    program_id = PROGRAM["programs"][0]["id"]
    large.set_plan("100000/hour")
    with make_client(large) as client:
        frame = client.pending_buckets.frame(program_id, progress=False)
        sent = client.quota.calls_used
    # Counted from the program file the sandbox serves (the truth, not another pull).
    holding = sum(1 for card in PROGRAM["cards"] if card["balance"]["pending_points"])
    assert 0 < holding < MEMBERS
    # the token, the program, its member list (6 pages), a read a member, a list a holding card
    assert sent == 1 + 1 + 6 + MEMBERS + holding
    assert len(frame) == sum(1 for b in PROGRAM["pending_buckets"] if b["status"] == "PENDING")


def test_a_program_wide_bucket_frame_whose_share_other_traffic_shrinks_stops_as_a_pull(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """The demo's first program costs 15 calls (the token, the program, its member list, 5
    member reads, 7 bucket lists): half of 40 holds it. Another client of the project spends
    26 once the first member read is sent: half of the 14 the window then holds for the
    frame is 7, spent after the fourth member read. The frame stops there as a pull does."""
    reads: list[str] = []

    def other_traffic_meanwhile(request: httpx.Request) -> None:
        if member_read(request):
            reads.append(request.url.path)
            if len(reads) == 1:
                spend(other, 26)

    with start_sandbox() as sb:
        sb.set_plan("40/hour")
        with (
            make_client(sb) as other,
            httpx.Client(event_hooks={"request": [other_traffic_meanwhile]}, verify=TLS) as http,
            make_client(sb, http_client=http) as client,
            pytest.raises(PullBudgetError) as caught,
        ):
            client.pending_buckets.frame("lprg_c0ffee0001", progress=False)
        used = sb.plan()["used"]
    refusal = caught.value
    assert len(reads) == 4 and used == 26 + refusal.sent == 26 + 7
    assert (refusal.stage, refusal.during, refusal.needed, refusal.remaining) == (
        "member reads",
        True,
        1,  # the fifth member read, at least (the bucket lists are not counted yet)
        0,
    )
    assert (refusal.window_left, refusal.others) == (40, 26)
    text = str(refusal)
    assert text.startswith(
        "pull stopped during its member reads: the rest needs at least 1 call and the pull's "
        "share (0.5) of the call budget has 0 left (the window had 40 of 40 left when the pull "
        "started, at least 26 of them since spent by other traffic; it resets at "
    )
    (way,) = refusal.ways
    assert way.how.startswith("ProgramSnapshot.pull(client, kinds=['pending_buckets'], checkpoint=")
    assert way.calls == 8 and way.at_least  # what the frame sent, and the rest at least
