"""A stale refusal keeps what its re-read read for ``refresh=True`` to re-plan from, over real
HTTP: a resumed apply (paced or not) refused as stale (its log shows its own writes, so no
``NAME.refreshed.json`` is saved) is refreshed without reading its cards' bucket lists again,
and so is a refresh after one refused for its unsupported changes; a check of the plan after
the refusal reads afresh. A paced refresh reads a kept row afresh when another's call is
heard up to its chunk's re-planning, or when its chunk (a later one) waits for the next
window."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from interrupting import Waits
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan, EditError, chunked
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import (
    SaveOne,
    activate,
    activations,
    bucket_lists,
    refused_stale,
    stopped_in_re_read,
)

pytestmark = pytest.mark.usefixtures("professional")


def _counted(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], sent: list[httpx.Request]
) -> Callable[[], LoyaltyClient]:
    """A client of ``fresh`` whose requests go to ``sent``."""

    def client() -> LoyaltyClient:
        http = httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS)
        return make_client(fresh, http_client=http)

    return client


@pytest.mark.parametrize(
    ("refused_paced", "paced"),
    [(True, True), (True, False), (False, False)],
    ids=["paced", "paced-refusal-unpaced-refresh", "unpaced"],
)
def test_a_refresh_after_a_stale_refusal_takes_up_its_re_read_not_reads_it_again(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    refused_paced: bool,
    paced: bool,
    save_one: SaveOne,
) -> None:
    """Earlier a refusal cleared what its paced re-read kept: at 20,000 members a resumed
    apply read 1,861 calls, was refused (18 buckets' dates had passed), and ``--refresh``
    read the same 1,861 again in the same window; an unpaced refusal kept nothing at all."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = save_one(path)
    cards = len(chosen)
    assert cards > 2

    stop = threading.Event()  # the first activation sent, the apply stops: its log shows it

    def first_write(request: httpx.Request) -> None:
        if request.method == "POST" and "/activate" in request.url.path:
            stop.set()

    with (
        httpx.Client(event_hooks={"request": [first_write]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, concurrency=1, cancel=stop
        )
        done = ChangePlan.load(path).own_work(client, log)["activate_pending_bucket"]
    assert len(done) == 1
    other = chosen[~chosen["id"].isin(done)].iloc[0]  # activated by someone else since
    with make_client(fresh) as client:
        client.pending_buckets.activate(other.program_id, other.member_id, other.card_id, other.id)
    fresh.settle()

    sent: list[httpx.Request] = []
    counted = _counted(fresh, make_client, sent)
    for _check in range(2):  # a check after the refusal reads afresh: it may be put right
        sent.clear()
        with counted() as client, pytest.raises(StalePlanError) as stale:
            ChangePlan.load(path).apply(client, log=log, progress=False, paced=refused_paced)
        assert other.id in str(stale.value)
        # saved for review: what is left, the plan's own write made and the other's dropped
        assert stale.value.replanned == tmp_path / "plan.refreshed.json"
        review = ChangePlan.load(stale.value.replanned).parts[0].items
        assert {str(item.target) for item in review} == set(chosen["id"]) - done - {other.id}
        assert bucket_lists(sent) == cards - 1  # every card but the written one's

    sent.clear()  # the refresh's plan holds the bucket activated since: refused for it
    with counted() as client, pytest.raises(EditError, match="ignore_unsupported=True"):
        ChangePlan.load(path).apply(client, log=log, progress=False, paced=paced, refresh=True)
    assert bucket_lists(sent) == 0  # the refusal's rows taken up, read moments ago

    sent.clear()
    with counted() as client:
        results = ChangePlan.load(path).apply(
            client,
            log=log,
            progress=False,
            paced=paced,
            refresh=True,
            ignore_unsupported=True,  # the bucket activated since
        )
    assert bucket_lists(sent) == 0  # nor read again after the refresh refused
    activated = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert activated == set(chosen["id"]) - done - {other.id}
    assert not log.with_name(log.name + ".reread.jsonl").exists()  # ended: none kept


def test_an_unpaced_re_read_stopped_part_way_keeps_nothing(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """An unpaced re-read keeps its rows only once refused: stopped (Ctrl-C) part way it
    leaves none, and the next run reads every card again (earlier an unpaced ``--refresh``
    kept each row as read, taken up by the next refresh)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    cards = len(save_one(path))
    assert cards > 2
    # two cards read
    stopped_in_re_read(fresh, make_client, path, log, 3, paced=False, refresh=True)
    assert not log.with_name(log.name + ".reread.jsonl").exists()

    sent: list[httpx.Request] = []
    with _counted(fresh, make_client, sent)() as client:
        ChangePlan.load(path).apply(client, log=log, progress=False, refresh=True)
    assert bucket_lists(sent) == cards


def test_a_paced_refresh_takes_up_a_refusal_s_rows_in_every_chunk(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """The rows an unpaced stale refusal kept answer each chunk of a paced refresh, each
    chunk's used up as it is re-planned, the others kept beside the log: a refresh cancelled
    as its first write goes out (it stops at its second chunk's writes) reads no card, and
    run again reads only the second chunk's, as its cost says. Earlier they answered the
    first chunk's reads only, then were cleared: every other card was read again."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    targets = list(refused_stale(fresh, make_client, path, log, save_one)["id"])
    assert len(targets) > 2
    monkeypatch.setattr(chunked, "CHUNK_MOST", 1)  # a chunk a card
    sent: list[httpx.Request] = []
    stop = threading.Event()  # the first activation sent, the refresh stops

    def first_write(request: httpx.Request) -> None:
        sent.append(request)
        if activations(sent):
            stop.set()

    with (
        httpx.Client(event_hooks={"request": [first_write]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        ChangePlan.load(path).apply(
            client,
            log=log,
            progress=False,
            paced=True,
            refresh=True,
            ignore_unsupported=True,
            concurrency=1,
            cancel=stop,
        )
    assert bucket_lists(sent) == 0 and activations(sent) == 1  # the first chunk's rows kept

    sent.clear()
    with _counted(fresh, make_client, sent)() as client:
        loaded = ChangePlan.load(path)
        loaded.check_apply(client, log=log, paced=True, refresh=True)  # its token first
        reads = loaded.reread_cost(client, log=log, paced=True, refresh=True).needed
        loaded.apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    # the later chunks' rows kept; the second's let go as its writes were sent (cancelled)
    assert bucket_lists(sent) == 1
    assert reads == 1
    assert activations(sent) == len(targets) - 2  # the last one's made since
    assert not log.with_name(log.name + ".reread.jsonl").exists()  # ended: none kept


def test_a_paced_refresh_reads_afresh_after_another_s_call(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """A call of the project not the refresh's own, heard once its first chunk is read (a
    bucket of a later chunk activated by someone else), and the rows kept for the next
    chunks are read again: that bucket is not activated as the kept row shows it pending."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = refused_stale(fresh, make_client, path, log, save_one)
    targets = list(chosen["id"])
    assert len(targets) > 3
    monkeypatch.setattr(chunked, "CHUNK_MOST", 1)  # a chunk a card
    sent: list[httpx.Request] = []

    def another_s_call(request: httpx.Request) -> None:
        sent.append(request)
        if activations(sent) == 1 and request.url.path.endswith("/activate"):
            # the first chunk's write: someone else's call since
            with make_client(fresh) as other:
                activate(other, chosen.iloc[2])

    with (
        httpx.Client(event_hooks={"request": [another_s_call]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert bucket_lists(sent) == len(targets) - 1  # all but the first chunk's read afresh
    activated = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert activated == set(targets[:2]) | set(targets[3:-1])
    assert activations(sent) == len(targets) - 2


def _three_of_four_kept(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    log: Path,
    save_one: SaveOne,
) -> pd.DataFrame:
    """A plan activating a bucket on each of 4 cards saved at ``path``, its paced re-read
    stopped at the fourth card's (the first three's kept beside ``log``): its buckets, in
    plan order."""
    chosen = save_one(path)
    targets = [str(item.target) for item in ChangePlan.load(path).parts[0].items]
    assert len(targets) == 4
    stopped_in_re_read(fresh, make_client, path, log, 4)
    return chosen.set_index("id", drop=False).loc[targets]


def test_a_paced_refresh_reads_afresh_a_later_chunk_whose_reads_wait_for_the_next_window(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """A later chunk whose reads wait for the next window reads its objects there, not from
    the rows kept: no call of another's across the wait can be told. Chunks of two cards,
    the first three kept, the window's share (3) spent by the token and the first chunk's
    two writes; someone else activates the third card's bucket while the next chunk waits.
    Earlier that chunk (the third card kept, the fourth read after the wait) was planned
    from the kept row: the bucket was activated again (423, then again in each window its
    token lapsed in)."""
    from lyt_toolkit.client import _transport

    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = _three_of_four_kept(fresh, make_client, path, log, save_one)
    monkeypatch.setattr(chunked, "CHUNK_MOST", 2)
    fresh.set_plan("10/hour")
    waits = Waits(fresh)
    monkeypatch.setattr(_transport, "pause", lambda seconds, stops: waits.sleep(seconds))
    sent: list[httpx.Request] = []

    def another_s_call_while_waiting(request: httpx.Request) -> None:
        if waits.owed and not waits.left:  # the first wait: someone else's call meanwhile
            with make_client(fresh) as other:
                activate(other, chosen.iloc[2])
            fresh.settle()
        waits.catch_up()
        sent.append(request)

    with (
        httpx.Client(event_hooks={"request": [another_s_call_while_waiting]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.quota._clock = client._transport.tokens.clock = waits
        loaded = ChangePlan.load(path)
        loaded.check_apply(client, log=log, paced=True, refresh=True, budget_share=0.3)
        reads = loaded.reread_cost(client, log=log, paced=True, refresh=True, budget_share=0.3)
        results = loaded.apply(
            client,
            log=log,
            progress=False,
            paced=True,
            refresh=True,
            ignore_unsupported=True,  # the bucket activated since
            budget_share=0.3,
        )
    assert waits.left  # it waited for the next window
    activated = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert activations(sent) == 3  # the third card's bucket not activated again
    assert activated == set(chosen["id"]) - {chosen["id"].iloc[2]}
    assert reads.needed == bucket_lists(sent) == 2  # the 3rd card's, the 4th's: each after a wait


def test_a_paced_refresh_reads_again_a_kept_row_when_another_s_call_is_heard_as_it_reads(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """Someone else activates the third card's bucket as the second chunk reads the fourth
    card (the third's row kept, taken up while nothing else was heard): heard by the
    answer, the kept row is read again before the chunk is re-planned, and that bucket is
    not activated. Earlier the quiet was asked before the chunk's reads only: the kept row
    was used, and the bucket activated again (423)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = _three_of_four_kept(fresh, make_client, path, log, save_one)
    monkeypatch.setattr(chunked, "CHUNK_MOST", 2)
    fourth = f"/cards/{chosen['card_id'].iloc[3]}/pending-points"
    sent: list[httpx.Request] = []

    def another_s_call_as_it_reads(request: httpx.Request) -> None:
        if request.url.path.endswith(fourth):
            with make_client(fresh) as other:
                activate(other, chosen.iloc[2])
            fresh.settle()
        sent.append(request)

    with (
        httpx.Client(event_hooks={"request": [another_s_call_as_it_reads]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    activated = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert activations(sent) == 3  # the third card's bucket not activated again
    assert activated == set(chosen["id"]) - {chosen["id"].iloc[2]}
    assert bucket_lists(sent) == 2  # the fourth card's, then the third's again
