"""A paced apply of a saved plan checks each chunk of writes just before it sends it, over real
HTTP: resumed window after window it re-reads no more objects than it writes (each card's
bucket list once), its cost and ``Re-reading`` line leave out what the rows kept beside
the log answer, and count what several chunks need once for each, as each re-reads it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from interrupting import Waits, window_used
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit._text import counted
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.chunked import CHUNK_MOST
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import (
    SaveOne,
    activations,
    applied_until_waiting,
    bucket_lists,
    refused_paced_apply,
    stopped_in_re_read,
)


def test_a_paced_apply_resumed_in_each_new_window_re_reads_no_more_than_it_writes(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """Earlier each resume re-read every object still to write before writing any: here,
    the window's share holding the token and the 4 bucket lists, no run got further than its
    re-read (at 20,000 members, about 9,600 objects re-read for 5,000 activations)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    cards = len(save_one(path))
    assert cards > 3
    fresh.set_plan("10/hour")  # 5 calls a window at the default share; the clock is fixed
    sent: list[httpx.Request] = []
    windows = 0
    while True:
        with (
            httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
            make_client(fresh, http_client=http) as client,
        ):
            results = applied_until_waiting(fresh, client, path, log)
        assert results is not None
        assert window_used(fresh) <= 5  # the window's share, never beyond
        if (
            results["outcome"].eq("succeeded").sum()
            + results["outcome"].eq("skipped_already_done").sum()
            == cards
            and not results["outcome"].eq("cancelled").any()
        ):
            break
        windows += 1
        reread, written = bucket_lists(sent), activations(sent)
        assert windows < cards, f"{reread} bucket lists re-read, {written} written"
        fresh.set_clock(f"2026-01-15T{12 + windows:02d}:00:00Z")  # the next window
    assert windows >= 1  # it took several windows
    assert activations(sent) == cards  # each sent once
    assert bucket_lists(sent) <= cards, (bucket_lists(sent), cards)


@pytest.mark.usefixtures("professional")
def test_lyt_apply_paced_resumed_counts_and_prints_the_re_read_its_kept_rows_leave(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_one: SaveOne,
) -> None:
    """Earlier the cost and the ``Re-reading`` line of a paced resume counted every card,
    those its kept rows answer too (at 20,000 members "2515 re-reads ... 5365 calls short"
    where 882 went)."""
    path = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"  # lyt apply's default log
    cards = len(save_one(path))
    assert cards > 3
    stopped_in_re_read(fresh, make_client, path, log, 3)  # two cards read, kept
    with make_client(fresh) as client:
        loaded = ChangePlan.load(path)
        assert loaded.check_apply(client, log=log, paced=True).needed == 2 * cards - 2
        assert loaded.check_apply(client, log=log).needed == 2 * cards  # unpaced: reads all
    configure_lyt(fresh)
    used = window_used(fresh)
    assert main(["apply", str(path), "--paced"]) == 0
    out = capsys.readouterr().out
    assert f"Re-reading {cards} touched objects, each chunk's just before its writes:" in out
    assert f"calls needed: {cards - 2};" in out, out
    assert f"({cards - 2} re-reads, then {cards} writes)" in out, out
    assert window_used(fresh) - used == 1 + 2 * cards - 2  # its token, then what it counted


def test_a_paced_apply_stops_at_the_first_stale_chunk_and_refresh_takes_up_its_rows(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """A bucket of a chunk still to write activated by someone else meanwhile: the apply
    stops before that chunk, saying what the log holds and saving what is left for review,
    and the refresh counts and sends no read of what the refusal kept, nor the write its kept
    rows show made since. Earlier the resumed apply re-read every card still to write first,
    a refresh's cost counted its kept rows again, and the refusal named no way on but the
    refresh, nor any cost; then the refresh's cost counted that write, sent by no run."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = save_one(path)
    cards = len(chosen)
    assert cards > 3
    fresh.set_plan("10/hour")  # 5 calls a window at the default share: 2 writes a chunk
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        first = applied_until_waiting(fresh, client, path, log)
    assert first is not None
    written = set(first.loc[first["outcome"] == "succeeded", "target"])
    assert len(written) == 2 and bucket_lists(sent) == 2, first.to_string()
    other = chosen[~chosen["id"].isin(written)].iloc[0]  # activated by someone else since
    fresh.set_plan("unlimited")
    with make_client(fresh) as client:
        client.pending_buckets.activate(other.program_id, other.member_id, other.card_id, other.id)
    fresh.settle()
    fresh.set_plan("professional")

    sent, stale = refused_paced_apply(fresh, make_client, path, log, StalePlanError)
    said = str(stale)
    assert other.id in said and "the log holds the plan's 2 writes made before" in said, said
    # its chunk read every card left: the plan made again of what is left saved for review
    assert "refresh=True" in said and stale.replanned == tmp_path / "plan.refreshed.json"
    assert "(without the 2 writes of the plan's own already made)" in said, said
    review = ChangePlan.load(stale.replanned).parts[0].items
    assert {str(item.target) for item in review} == set(chosen["id"]) - written - {other.id}
    assert bucket_lists(sent) == cards - 2 and activations(sent) == 0  # the chunk, unsent

    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        loaded = ChangePlan.load(path)
        cost = loaded.check_apply(client, log=log, refresh=True, ignore_unsupported=True)
        # the writes left, less the one the kept rows show made: they answer the reads
        assert cost.needed == cards - 3
        assert f"; {counted(cards - 3, 'call')}, " in loaded.summary(log=log)  # lyt apply's
        results = loaded.apply(
            client, log=log, progress=False, refresh=True, ignore_unsupported=True
        )
    assert bucket_lists(sent) == 0 and activations(sent) == cards - 3  # what it counted
    done = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert done == set(chosen["id"]) - written - {other.id}


@pytest.mark.usefixtures("professional")
def test_a_paced_apply_costs_what_its_chunks_re_read_of_what_several_need(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """A chunk holds ``CHUNK_MOST`` writes at most: one create more than that goes in two
    chunks, each re-reading the card definition all the creates point at, and the names of
    its creates, a listing of 10 at most (11 listings, not 10). Earlier the cost counted the
    card once and the names as one run of listings: 111 calls where the apply sent 113."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    creates = CHUNK_MOST + 1
    edit = actions.edit(fresh_pulled)
    added = pd.DataFrame(
        {
            "name": [f"Chunked {i:03d}" for i in range(creates)],
            "type": "POINTS",
            "points_value": 5,
            "card_definition_id": str(edit.card_definitions["id"].iloc[0]),
        }
    )
    edit.benefits = pd.concat([edit.benefits, added], ignore_index=True)
    edit.plan().save(path)
    with make_client(fresh) as client:
        saved = ChangePlan.load(path)
        cost = saved.check_apply(client, log=log, paced=True)  # its token first

        used = window_used(fresh)
        results = saved.apply(client, log=log, progress=False, paced=True)
        sent = window_used(fresh) - used
    assert results["outcome"].eq("succeeded").sum() == creates
    assert cost.needed == sent == 2 + 11 + creates, (cost.needed, sent)


def _card(request: httpx.Request) -> str:
    """The card a bucket list or an activation is of."""
    return request.url.path.split("/cards/")[1].split("/")[0]


def test_a_paced_apply_s_chunk_leaves_its_window_room_for_the_token_request(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """A chunk that waits for the next window leaves room there for the token request the
    window brings (the sandbox's token lasts an hour, as its window does): each card's
    bucket list is read in the window its bucket is activated in, and each activation is
    sent once. Earlier a chunk was sized to a whole share (4 calls: two bucket lists, two
    activations): beside the new window's token its second activation waited a window more,
    sent an hour after its read."""
    from lyt_toolkit.client import _transport

    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    cards = len(save_one(path))
    assert cards > 2
    fresh.set_plan("10/hour")  # 4 calls a window at a share of 0.4
    waits = Waits(fresh)
    monkeypatch.setattr(_transport, "pause", lambda seconds, stops: waits.sleep(seconds))
    windows: list[list[httpx.Request]] = [[]]

    def in_its_window(request: httpx.Request) -> None:
        waits.catch_up()
        windows.extend([] for _ in range(len(waits.left) - len(windows) + 1))
        windows[-1].append(request)

    with (
        httpx.Client(event_hooks={"request": [in_its_window]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.quota._clock = client._transport.tokens.clock = waits
        results = ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, budget_share=0.4, concurrency=1
        )
    assert results["outcome"].eq("succeeded").all()
    sent = [request for window in windows for request in window]
    assert activations(sent) == cards  # each sent once
    assert max(len(window) for window in windows) <= 4  # the share, never beyond
    read = [{_card(r) for r in window if bucket_lists([r])} for window in windows]
    written = [{_card(r) for r in window if activations([r])} for window in windows]
    assert read == written  # each card read in the window its bucket is activated in
