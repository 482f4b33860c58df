"""A paced apply that meets a stale chunk offers the review route the unpaced one offers,
over real HTTP: when the chunk read every object left and nothing is written yet, the plan
made again is saved as ``NAME.refreshed.json`` with its ``lyt apply ... --sha256 ...
--paced`` command, and applied so it reads nothing again; else the refusal says why none
was saved and what each way on costs in calls."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import (
    SECRETS,
    SaveOne,
    activate,
    activations,
    bucket_lists,
    refused_paced_apply,
    stopped_in_re_read,
)

pytestmark = pytest.mark.usefixtures("lyt_to_fresh", "professional")

_COMMAND = re.compile(r"lyt apply (\S+) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)")
STOP_AT = 3
"""The bucket list a Ctrl-C comes at (before it is sent): two were read."""


def test_a_paced_stale_refusal_saves_the_replanned_plan_when_its_chunk_read_all_left(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_one: SaveOne,
) -> None:
    """Earlier a paced refusal saved no plan for review, whatever it had read: the only way
    on was ``--refresh``, which re-plans and writes with no file reviewed."""
    path = tmp_path / "plan.json"
    with make_client(fresh) as client:
        chosen = save_one(path)
        cards = len(chosen)
        assert cards > 2  # one chunk: the professional window's share holds them all
        other = chosen.iloc[0]  # activated by someone else since
        client.pending_buckets.activate(other.program_id, other.member_id, other.card_id, other.id)
    fresh.settle()
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()

    used = fresh.plan()["used"]
    assert main(["apply", str(path), "--sha256", sha256, "--paced"]) == 1
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert fresh.plan()["used"] - used == 1 + cards  # its token, the chunk's bucket lists
    assert err.startswith(f"lyt apply: {path} is stale: 1 object changed") and other.id in err
    command = _COMMAND.search(err)
    assert command is not None, err
    replanned = tmp_path / "plan.refreshed.json"
    # the bucket activated since can no longer be activated: unsupported in the plan made again
    assert command[1] == str(replanned) and command[3] == " --ignore-unsupported --paced"
    assert command[2] == hashlib.sha256(replanned.read_bytes()).hexdigest()
    assert "the next chunk of writes was sent: no write of the plan is made;" in err, err
    assert f"The plan made again from the state just read, saved to {replanned}:" in out
    assert f"Plan: 0 to create, {cards - 1} to change, 0 to delete; 1 change" in out, out
    # its calls as its command sends them, the re-read said only as what another call brings
    left = cards - 1
    review = (
        f"1 change the service cannot make; {left} calls, or {2 * left} with its {left}"
        " re-reads first should the service show a call of the project since the read it was"
        " made from\n"
    )
    assert review in out, out
    assert (json.loads(replanned.read_text())["summary"] + "\n").endswith(review)  # the file too
    for secret in SECRETS:
        assert secret not in out + err + replanned.read_text()

    used = fresh.plan()["used"]
    assert main(["apply", command[1], "--sha256", command[2], *command[3].split()]) == 0
    out = capsys.readouterr().out
    assert f"Not re-reading the {cards - 1} touched objects" in out, out
    # what its summary says it sends is what it sends (was "6 calls (3 re-reads, then 3
    # writes)", then "sends the 3 above")
    assert f"1 change the service cannot make; {left} calls, " in out, out
    assert f"Calls: this run sends the {left} above" in out, out
    assert f"Applied: {cards - 1} succeeded" in out, out
    assert fresh.plan()["used"] - used == 1 + cards - 1  # the token, then the writes


def test_a_paced_stale_refusal_of_one_chunk_of_several_says_each_way_on_and_its_calls(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """The refresh the refusal offers sends the calls it says, the write of the bucket its
    kept rows show activated since not counted. Earlier the refusal named ``refresh=True``
    alone, not what it or any other way on costs; then it counted that write, sent by no
    run (6 calls said, 5 sent)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    with make_client(fresh) as client:
        chosen = save_one(path)
        cards = len(chosen)
        assert cards > 3
        first = str(ChangePlan.load(path).parts[0].items[0].target)  # in the first chunk
        row = chosen[chosen["id"] == first].iloc[0]
        client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, first)
    fresh.settle()
    fresh.set_plan("10/hour")  # 5 calls a window at the default share: 2 writes a chunk
    sent, stale = refused_paced_apply(fresh, make_client, path, log, StalePlanError)
    said = str(stale)
    assert bucket_lists(sent) == 2 and not (tmp_path / "plan.refreshed.json").exists()
    assert stale.replanned is None and first in said
    assert f"this chunk read 2 objects of the {cards} left to read" in said, said
    assert "then run again: 2 calls to re-read this chunk's objects afresh" in said, said
    refresh = (
        f"refresh=True and the same log to plan the rest against the live state, unreviewed:"
        f" {2 * cards - 3} calls, {cards - 2} calls of them re-reading the objects left, each"
        " chunk's just before its writes"
    )
    assert refresh in said, said

    fresh.set_plan("professional")  # the refresh in one window: the calls it said, sent
    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert bucket_lists(sent) == cards - 2 and activations(sent) == cards - 1
    made = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert made == set(chosen["id"]) - {first}


def test_a_paced_stale_refusal_after_a_re_read_stopped_part_way_says_its_refresh_reads_none(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path, save_one: SaveOne
) -> None:
    """A paced re-read stopped (Ctrl-C) with two cards read, then a bucket of the last card
    activated by someone else, and the plan applied paced again: the chunk reads the other
    cards, finds it stale and saves no plan for review (two of its rows were read by the
    earlier run); the refresh it offers reads nothing, as it says, the rows kept beside the
    log answering every card, and sends what it counts."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = save_one(path)
    cards = len(chosen)
    assert cards > STOP_AT
    stopped_in_re_read(fresh, make_client, path, log, STOP_AT)  # two cards' lists kept
    last = str(ChangePlan.load(path).parts[0].items[-1].target)  # its card not read yet
    with make_client(fresh) as client:
        activate(client, chosen[chosen["id"] == last].iloc[0])
    fresh.settle()

    sent, stale = refused_paced_apply(fresh, make_client, path, log, StalePlanError)
    said = str(stale)
    assert bucket_lists(sent) == cards - (STOP_AT - 1) and stale.replanned is None, said
    assert "some of this chunk's rows were read by an earlier run, not just now" in said, said
    refresh = (
        "refresh=True and the same log to plan the rest against the live state, unreviewed:"
        f" {cards - 1} calls, its re-read answered by the rows kept beside the log, no call"
    )
    assert refresh in said, said

    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert bucket_lists(sent) == 0 and activations(sent) == cards - 1, sent
    assert len(sent) == 1 + cards - 1  # its token, then the writes it said
    made = set(results.loc[results["outcome"] == "succeeded", "target"])
    assert made == set(chosen["id"]) - {last}
