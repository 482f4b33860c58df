"""A cancelled batch: the items in flight finish and are logged, the rest come back
``cancelled``, unlogged, and a re-run with the log sends exactly those; an item in flight
waiting to be sent again (a 429's ``Retry-After``) stops waiting at once and is not sent."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from interrupting import HANG, until
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import benefit_rows, client_with, names_on_server

ROWS = 40


class CancellingBenefits:
    """``client.benefits`` whose create number ``cancel_at`` sets ``cancel`` as it is sent
    (a Cancel pressed while that request is in flight); counts the creates sent."""

    def __init__(self, real: Any, cancel: threading.Event, cancel_at: int) -> None:
        self._real = real
        self.cancel = cancel
        self.cancel_at = cancel_at
        self.sent = 0
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def create(self, body: Any) -> Any:
        with self._lock:
            self.sent += 1
            if self.sent == self.cancel_at:
                self.cancel.set()
        return self._real.create(body)


@pytest.mark.parametrize("concurrency", [1, 8])
def test_cancel_stops_after_the_requests_in_flight_and_the_log_resumes_the_rest(
    client: LoyaltyClient, tmp_path: Path, concurrency: int
) -> None:
    log = tmp_path / "batch.jsonl"
    rows = benefit_rows("Cancel", ROWS)
    rows[3]["type"] = "NOT-A-TYPE"  # one invalid row stays invalid, never cancelled
    plan = actions.create_benefits(rows)
    cancel = threading.Event()
    creates = CancellingBenefits(client.benefits, cancel, cancel_at=10)

    results = plan.execute(
        client_with(client, benefits=creates),
        concurrency=concurrency,
        log=log,
        progress=False,
        cancel=cancel,
    )

    counts = results["outcome"].value_counts()
    assert 10 <= creates.sent <= 10 + concurrency - 1  # no item started after the Cancel
    assert counts["succeeded"] == creates.sent
    assert counts["invalid"] == 1
    assert counts["cancelled"] == ROWS - 1 - creates.sent
    cancelled = results[results["outcome"] == "cancelled"]
    assert (cancelled["message"] == "not sent: the batch was cancelled").all()
    sent = results.loc[results["outcome"] == "succeeded", "target"]
    assert sorted(names_on_server(client, "Cancel ")) == sorted(sent)
    logged = ActionLog(log).entries()
    assert Counter(e["outcome"] for e in logged) == {
        "attempted": creates.sent,
        "succeeded": creates.sent,
    }
    assert {e["target"] for e in logged} == set(sent)

    again = plan.execute(client, concurrency=concurrency, log=log, progress=False)
    counts = again["outcome"].value_counts()
    assert counts["skipped_already_done"] == creates.sent
    assert counts["succeeded"] == ROWS - 1 - creates.sent
    assert counts["cancelled"] == 0
    names = names_on_server(client, "Cancel ")
    assert len(names) == len(set(names)) == ROWS - 1  # each valid row created once


@pytest.mark.parametrize("concurrency", [1, 4])
def test_cancel_ends_the_retry_waits_of_the_items_in_flight_at_once_and_sends_nothing_more(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    concurrency: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing more is sent: no item again (its wait for the 429's reset ended by the Cancel),
    no item beyond those in flight. Counted from the requests themselves: the window's count
    read as the first 429 came back could miss a create of another thread still on its way
    (a flake: 5 == 4)."""
    caplog.set_level(logging.DEBUG, logger="lyt_toolkit.client")
    log = tmp_path / "batch.jsonl"
    plan = actions.create_benefits(benefit_rows("Waiting", 6))
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.fetch_token()
        used, sent_before = fresh.plan()["used"], len(sent)
        fresh.set_faults(rate_limit=1.0, retry_after=25)  # every create refused, sent again
        cancel = threading.Event()
        ran: list[Any] = []
        runner = threading.Thread(
            target=lambda: ran.append(
                plan.execute(
                    client, concurrency=concurrency, log=log, progress=False, cancel=cancel
                )
            ),
            daemon=True,
        )
        runner.start()
        # the first refused, waiting to be sent again (the others wait too): the 429 read
        until(lambda: any(" -> 429 " in r.getMessage() for r in caplog.records), "answered 429")
        cancel.set()
        cancelled_at = time.monotonic()
        runner.join(12.5)  # half the Retry-After: the wait ended at once, however loaded
        assert not runner.is_alive(), "the batch still waits to send its items again"
        assert time.monotonic() - cancelled_at < 12.5
    fresh.clear_faults()
    creates = [r.content for r in sent[sent_before:]]
    assert len(creates) == len(set(creates)) <= concurrency, creates  # none sent again
    assert fresh.plan()["used"] - used == len(creates)  # the sandbox saw no other
    results = ran[0]
    assert (results["outcome"] == "cancelled").all()
    waited = "not sent: the batch was cancelled; a re-run with the same log checks it first"
    in_doubt = int(results["message"].str.startswith(waited).sum())
    assert 1 <= in_doubt <= concurrency
    # The items it stopped once refused stay in doubt in the log: the re-run reads them first.
    # One in flight whose request never went out (it waited for the reset the 429 announced)
    # is not in doubt: never logged attempted, only cancelled; the re-run sends it. One no
    # thread had taken yet when Cancel came (a loaded machine) is not logged at all: how many
    # of the others were in flight is the threads' timing, so the count is bounded, not fixed
    # (a flake: no item logged cancelled where one was expected, the fourth not yet taken).
    logged = ActionLog(log).entries()
    outcomes = Counter(e["outcome"] for e in logged)
    assert set(outcomes) <= {"attempted", "cancelled"}, outcomes
    assert outcomes["attempted"] == in_doubt
    assert outcomes["cancelled"] <= concurrency - in_doubt
    attempted = {e["target"] for e in logged if e["outcome"] == "attempted"}
    assert not attempted & {e["target"] for e in logged if e["outcome"] == "cancelled"}

    with make_client(fresh) as later:  # not this client, whose count says the window is spent
        again = plan.execute(later, concurrency=concurrency, log=log, progress=False)
        names = names_on_server(later, "Waiting ")
    assert (again["outcome"] == "succeeded").all()
    assert len(names) == len(set(names)) == 6


def test_a_cancel_set_before_execute_sends_nothing(client: LoyaltyClient, tmp_path: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    plan = actions.create_benefits(benefit_rows("Never", 5))
    results = plan.execute(client, log=tmp_path / "log.jsonl", progress=False, cancel=cancel)
    assert list(results["outcome"].astype(str)) == ["cancelled"] * 5
    assert names_on_server(client, "Never ") == []
    assert ActionLog(tmp_path / "log.jsonl").entries() == []


def test_cancelled_is_an_outcome_category_of_every_results_frame(client: LoyaltyClient) -> None:
    results = actions.create_benefits(benefit_rows("Plain", 2)).execute(client, progress=False)
    assert "cancelled" in results["outcome"].cat.categories
    assert (results["outcome"] == "succeeded").all()


def test_an_item_cancelled_before_its_request_went_out_is_not_left_in_doubt(
    client: LoyaltyClient,
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """The window spent, the next item waits for its reset (within ``max_wait``) before its
    request goes out: cancelled then, it was never sent, and the log says so (no read back)."""
    log = tmp_path / "batch.jsonl"
    plan = actions.create_benefits(benefit_rows("Spent", 4))
    fresh.set_plan("3/hour")  # the fixed clock never resets it
    cancel = threading.Event()
    ran: list[Any] = []
    with make_client(fresh, max_wait=7200) as patient:
        runner = threading.Thread(
            target=lambda: ran.append(
                plan.execute(
                    patient,
                    concurrency=1,
                    log=log,
                    progress=False,
                    cancel=cancel,
                    budget_share=1.0,
                    allow_partial=True,
                )
            ),
            daemon=True,
        )
        runner.start()
        # the token and two writes answered, the window spent: the third item waits for the
        # reset, an hour away
        until(lambda: len(ActionLog(log).state(plan.action).succeeded) == 2, "two written")
        cancel.set()
        runner.join(HANG)  # the reset is an hour away
    assert not runner.is_alive()
    results = ran[0]
    assert list(results["outcome"].astype(str)) == ["succeeded"] * 2 + ["cancelled"] * 2
    assert (results["message"].iloc[2:] == "not sent: the batch was cancelled").all()
    state = ActionLog(log).state(plan.action)
    assert not [target for target in state.last if state.in_doubt(target)]
