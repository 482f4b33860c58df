"""A write the service refused for good (423: a pending bucket's member or program INACTIVE)
is logged final by a saved plan's apply: resumed with its log, the apply neither sends it
again nor reads it back, its result still the refusal; ``refresh=True`` sends it again (the
rows it reads do not show those statuses: put right since, the service makes it). One whose
date the service's clock reached a refresh does not send: ``test_paced_cost_as_sent``.
Counted over real HTTP."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan, SavedPlan
from lyt_toolkit.cli import main
from lyt_toolkit.cli.apply import EXIT_ERROR
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import BUCKET, pull

INACTIVE_MEMBER, INACTIVE_PROGRAM = "lcppb_c0ffee0009", "lcppb_c0ffee000a"
"""Two of the demo program's pending buckets dated ahead: an INACTIVE member's, and one of
an INACTIVE program."""


def _saved_with_two_refused(client: LoyaltyClient, path: Path) -> SavedPlan:
    """A saved plan of three activations: an INACTIVE member's and an INACTIVE program's
    (each refused 423, their dates ahead), and one the service makes."""
    edit = actions.edit(pull(client))
    chosen = edit.pending_buckets["id"].isin([INACTIVE_MEMBER, INACTIVE_PROGRAM, BUCKET])
    edit.pending_buckets.loc[chosen, "status"] = "ACTIVATED"
    return ChangePlan.load(edit.plan().save(path))


def _applied_counting(
    sb: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    plan: SavedPlan,
    *,
    paced: bool = True,
    **options: Any,
) -> tuple[pd.DataFrame, list[str]]:
    """``plan`` applied (``paced``) with the log ``plan.log.jsonl`` beside it: its results,
    and each activation (``POST``) and each read of a card's buckets (``GET``) that went
    out."""
    sent: list[str] = []

    def seen(request: httpx.Request) -> None:
        path = request.url.path
        if path.endswith("/activate") or path.endswith("/pending-points"):
            sent.append(request.method)

    with (
        httpx.Client(event_hooks={"request": [seen]}, verify=TLS) as http,
        make_client(sb, http_client=http) as client,
    ):
        log = plan.path.with_name("plan.log.jsonl")
        results = plan.apply(client, log=log, progress=False, paced=paced, **options)
    return results.set_index("target"), sent


def test_a_resumed_apply_neither_sends_nor_reads_back_a_write_refused_for_good(
    client: LoyaltyClient,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    fresh.set_plan("1000/hour")
    plan = _saved_with_two_refused(client, tmp_path / "plan.json")
    first, sent = _applied_counting(fresh, make_client, plan)
    refused = first.index[first["outcome"] == "failed"]
    assert len(refused) == 2 and (first.loc[refused, "status"] == 423).all()
    assert sent.count("POST") == 3

    again, sent = _applied_counting(fresh, make_client, plan)
    # Nothing: neither the two refused writes again nor a read back (two POSTs and two GETs
    # before), nor a re-read of their cards (two GETs: nothing of theirs is written).
    assert sent == [], sent
    assert (again.loc[refused, "outcome"] == "failed").all()  # still named in the results
    assert (again.loc[refused, "status"] == 423).all()
    assert again.loc[refused, "message"].str.startswith("not sent again: refused for good").all()
    assert again.loc[BUCKET, "outcome"] == "skipped_already_done"
    lines = [json.loads(line) for line in (tmp_path / "plan.log.jsonl").open()]
    final = {line["target"] for line in lines if line.get("final") is True}
    assert final == set(refused)  # the log knows them refused

    log = tmp_path / "plan.log.jsonl"
    plain, reconsidered = plan.cost(client, log=log), plan.cost(client, log=log, refresh=True)
    # their cards re-read, each sent and, refused again, read back
    assert (plain.needed, reconsidered.needed) == (0, 6)
    refreshed, sent = _applied_counting(fresh, make_client, plan, refresh=True)
    assert sent.count("POST") == 2, sent  # the plan made again reconsiders them
    assert len(sent) == reconsidered.needed, sent
    assert refreshed.loc[refused, "status"].eq(423).all()


@pytest.mark.parametrize("paced", [False, True], ids=["unpaced", "paced"])
def test_a_refresh_stopped_before_its_first_write_leaves_the_refusals_for_good_held(
    client: LoyaltyClient,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    paced: bool,
) -> None:
    """A ``refresh=True`` apply (the plan made again: its refusals for good read as
    reconsidered) cancelled before it sends a write reconsiders nothing: the log holds no
    reconsidered line, and the plain apply after it sends neither refused write."""
    fresh.set_plan("1000/hour")
    plan = _saved_with_two_refused(client, tmp_path / "plan.json")
    first, sent = _applied_counting(fresh, make_client, plan)
    assert sent.count("POST") == 3 and first["outcome"].eq("failed").sum() == 2

    cancelled = threading.Event()
    cancelled.set()  # Cancel pressed as the refresh re-reads: it stops before any write
    options: dict[str, Any] = {"refresh": True, "cancel": cancelled}
    _, sent = _applied_counting(fresh, make_client, plan, paced=paced, **options)
    assert "POST" not in sent, sent
    assert "lyt-action-reconsidered" not in (tmp_path / "plan.log.jsonl").read_text()

    again, sent = _applied_counting(fresh, make_client, plan)
    assert sent == [], sent  # neither refused write sent again, nor read back
    refused = first.index[first["outcome"] == "failed"]
    assert again.loc[refused, "message"].str.startswith("not sent again: refused for good").all()


def test_lyt_apply_left_with_only_refusals_for_good_says_what_makes_them_not_run_again(
    client: LoyaltyClient,
    fresh: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every change left is a write refused for good: running again sends none of them (its
    log marks them final), so ``lyt apply`` names planning again or ``--refresh`` instead,
    on the run that met the refusals and on a run again alike."""
    fresh.set_plan("1000/hour")
    plan = _saved_with_two_refused(client, tmp_path / "plan.json")
    configure_lyt(fresh)
    for _ in range(2):  # the refusals met, then read back from the log
        assert main(["apply", str(plan.path)]) == EXIT_ERROR
        err = capsys.readouterr().err
        assert "run again to resume" not in err, err
        assert "2 items not made, as the lines above say (every outcome in " in err, err
        assert (
            ": 2 writes the service refused for good, which running again does not send;"
            " put right what refused them, then plan again from a fresh snapshot, or apply with"
            " --refresh, to reconsider them" in err
        ), err


@pytest.mark.parametrize("paced", [[], ["--paced"]], ids=["unpaced", "paced"])
def test_lyt_apply_refresh_summary_counts_the_writes_refused_for_good_it_sends_again(
    client: LoyaltyClient,
    fresh: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    paced: list[str],
) -> None:
    """``lyt apply --refresh`` after writes refused for good: its plan line counts their
    re-read, the writes sent again and their reads back, as its ``Calls:`` line and the
    service do (it said ``0 calls``, then ``this run sends the 6 above``)."""
    fresh.set_plan("1000/hour")
    plan = _saved_with_two_refused(client, tmp_path / "plan.json")
    configure_lyt(fresh)
    assert main(["apply", str(plan.path)]) == EXIT_ERROR
    capsys.readouterr()

    used = fresh.plan()["used"]
    assert main(["apply", str(plan.path), "--refresh", *paced]) == EXIT_ERROR
    out = capsys.readouterr().out
    said = re.search(r"^Plan: .*; (\d+) calls \(2 re-reads, then 2 writes, 2 reads back", out, re.M)
    assert said is not None, out
    assert f"Calls: this run sends the {said[1]} above, plus any retries; with its" in out, out
    assert fresh.plan()["used"] - used == int(said[1]) + 1  # and the token request
