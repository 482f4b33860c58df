"""An action log names the state of the sandbox it was written against: a sandbox started
again on the same port, with the same program and seed but fresh state, holds none of what
the log shows done, and is refused it; one started again over the same database file keeps
its state, and its log."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest
from fixture_types import ClientOf

from lyt_toolkit import actions
from lyt_toolkit._services import forget_local
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.server import free_port

from .helpers import CREDENTIALS, benefit_rows, names_on_server

NOW = "2026-01-15T12:00:00Z"
PLAN = actions.create_benefits(benefit_rows("Instance", 3))
MakeClient = Callable[..., LoyaltyClient]


@contextmanager
def _started(port: int, *, db: Path | None = None, here: bool = True) -> Iterator[Sandbox]:
    """The demo sandbox on ``port`` with the same program and seed every time; ``here``:
    named by this process (a notebook's ``Sandbox.start``), else known only by its answers
    (as ``lyt sandbox serve`` in another process is)."""
    with Sandbox.start(
        port=port, db=None if db is None else str(db), now=NOW, seed=7, credentials=CREDENTIALS
    ) as sb:
        if not here:
            forget_local(sb.base_url)
        yield sb


def _instance(log: Path) -> str | None:
    """The state of the sandbox the log names (its owner's ``instance``)."""
    owner = ActionLog(log).owner()
    assert owner is not None
    return owner.instance


def _executed(sb: Sandbox, log: Path, make_client: MakeClient) -> tuple[pd.DataFrame, int]:
    """``PLAN`` executed on ``sb`` with ``log``, and the calls that took."""
    with make_client(sb) as client:
        results = PLAN.execute(client, log=log, progress=False)
        return results, client.quota.calls_used


@pytest.mark.parametrize("here", [True, False], ids=["served-here", "served-elsewhere"])
def test_a_sandbox_started_again_with_fresh_state_is_refused_the_log(
    tmp_path: Path, make_client: MakeClient, here: bool
) -> None:
    log, port = tmp_path / "log.jsonl", free_port()
    with _started(port, here=here) as first:
        done, _ = _executed(first, log, make_client)
    assert (done.outcome == "succeeded").all()
    with _started(port, here=here) as second, make_client(second) as client:
        with pytest.raises(actions.ForeignLogError, match="restarted") as refused:
            PLAN.execute(client, log=log, progress=False)
        # served elsewhere: one token, whose answer names the state; nothing written
        assert client.quota.calls_used == (0 if here else 1)
        assert names_on_server(client, "Instance ") == []
    said = str(refused.value)
    assert "holds none of what the log shows done" in said and "a new log" in said
    assert CREDENTIALS.app_token not in said and CREDENTIALS.management_token not in said
    with _started(port, here=here) as third:  # a new log: every item sent again
        again, _ = _executed(third, tmp_path / "new.jsonl", make_client)
    assert (again.outcome == "succeeded").all()


@pytest.mark.parametrize("here", [True, False], ids=["served-here", "served-elsewhere"])
def test_a_sandbox_started_again_over_its_database_file_keeps_its_log(
    tmp_path: Path, make_client: MakeClient, here: bool
) -> None:
    log, db, port = tmp_path / "log.jsonl", tmp_path / "sandbox.sqlite", free_port()
    with _started(port, db=db, here=here) as first:
        _executed(first, log, make_client)
    with _started(port, db=db, here=here) as second:
        again, calls = _executed(second, log, make_client)
        with make_client(second) as client:
            assert len(names_on_server(client, "Instance ")) == 3
    assert (again.outcome == "skipped_already_done").all()
    assert calls == (0 if here else 1)  # elsewhere: the token that names its state
    with (
        _started(port, db=tmp_path / "other.sqlite", here=here) as other,
        make_client(other) as client,
        pytest.raises(actions.ForeignLogError, match="restarted"),
    ):
        PLAN.execute(client, log=log, progress=False)


def test_a_reset_sandbox_is_refused_the_log_written_before(
    tmp_path: Path, make_client: MakeClient
) -> None:
    """A reset drops every write, as a restart on fresh state does."""
    log = tmp_path / "log.jsonl"
    with _started(free_port()) as sb:
        _executed(sb, log, make_client)
        sb.reset()
        with make_client(sb) as client, pytest.raises(actions.ForeignLogError, match="restarted"):
            PLAN.execute(client, log=log, progress=False)


def test_a_log_that_names_no_state_is_taken_as_before_and_then_names_it(
    tmp_path: Path, make_client: MakeClient
) -> None:
    """A log written before logs named a sandbox's state is accepted (what it shows done is
    skipped); the run that takes it names the state from then on."""
    log, port = tmp_path / "log.jsonl", free_port()
    with _started(port) as first:
        _executed(first, log, make_client)
        lines = log.read_text().splitlines()
        owner = json.loads(lines[0])
        assert owner["log"] == "lyt-action-log/1" and owner.get("instance")
        del owner["instance"]
        log.write_text("\n".join([json.dumps(owner), *lines[1:]]) + "\n")
        assert _instance(log) is None
        again, _ = _executed(first, log, make_client)
        assert (again.outcome == "skipped_already_done").all()
        assert _instance(log)
    with (
        _started(port) as second,
        make_client(second) as client,
        pytest.raises(actions.ForeignLogError, match="restarted"),
    ):
        PLAN.execute(client, log=log, progress=False)


def test_a_service_that_never_says_what_it_holds_keeps_its_log_at_no_call_more(
    tmp_path: Path, hearing_no_holds: ClientOf
) -> None:
    """The service itself sends no ``Lyt-Sandbox-Holds``: its log names no state, and a run
    whose items the log shows done sends nothing, as before."""
    log = tmp_path / "log.jsonl"
    with _started(free_port(), here=False) as sb:

        def executed() -> tuple[pd.DataFrame, int]:
            with hearing_no_holds(sb) as client:
                return PLAN.execute(client, log=log, progress=False), client.quota.calls_used

        done, _ = executed()
        again, calls = executed()
    assert (done.outcome == "succeeded").all()
    assert (again.outcome == "skipped_already_done").all() and calls == 0
    owner = json.loads(log.read_text().splitlines()[0])
    assert owner == {"log": "lyt-action-log/1", "service": sb.base_url, "project": owner["project"]}
