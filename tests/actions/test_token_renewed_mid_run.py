"""A bearer token renewed mid-run, over real HTTP: the token request a write waits for is the
client's, not the item's. The item is logged ``attempted`` once for its one write (the token
request has a token line of its own, counted in a paced window as a call), and a paced run
stopped after the renewal, its write waiting for the next window, leaves the item not in doubt:
a run again sends it without a read back, and costs it one call, not two.

The token's expiry on the client's clock (``TokenCache.clock``, monotonic: renewed ``skew``
seconds before the lifetime the service gave) is moved past it once the first write goes out,
as an hour of a long run would (``tests/client/test_auth.py`` does the same)."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
from interrupting import until
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import benefit_rows, names_on_server

ClientFor = Callable[..., LoyaltyClient]
TOKEN = "/oauth/token"


class Renewing:
    """The requests a client sent (method, path), its token's expiry on its clock passed once
    its first ``POST`` goes out (the next ``/v2`` call renews the token first)."""

    def __init__(self) -> None:
        self.now = [0.0]
        self.sent: list[tuple[str, str]] = []
        self.tokens_answered = 0

    def request(self, request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path != TOKEN and not self.posted:
            self.now[0] += 10 * 3600  # past any token's lifetime
        self.sent.append((request.method, request.url.path))

    def response(self, response: httpx.Response) -> None:
        if response.request.url.path == TOKEN:
            self.tokens_answered += 1

    @property
    def posted(self) -> bool:
        return any(method == "POST" and path != TOKEN for method, path in self.sent)


@contextmanager
def renewing_client(
    sb: Sandbox, make_client: ClientFor
) -> Iterator[tuple[LoyaltyClient, Renewing]]:
    """A client of ``sb`` on a token clock of its own, and what it sent (``Renewing``)."""
    renewing = Renewing()
    hooks: dict[str, list[Callable[..., Any]]] = {
        "request": [renewing.request],
        "response": [renewing.response],
    }
    with (
        httpx.Client(event_hooks=hooks, verify=TLS) as http,
        make_client(sb, http_client=http) as client,
    ):
        client._transport.tokens.clock = lambda: renewing.now[0]
        yield client, renewing


def _lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_an_item_whose_write_waits_for_a_token_renewal_is_attempted_once(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    log = tmp_path / "plan.log.jsonl"
    plan = actions.create_benefits(benefit_rows("Renewed", 2))
    with renewing_client(fresh, make_client) as (client, renewing):
        results = plan.execute(client, log=log, progress=False, concurrency=1)
    assert results["outcome"].eq("succeeded").all(), results
    posts = [path for method, path in renewing.sent if method == "POST" and path != TOKEN]
    assert len(posts) == 2 and renewing.sent.count(("POST", TOKEN)) == 2  # the second renewed
    attempted = Counter(
        e["target"] for e in ActionLog(log).entries() if e["outcome"] == "attempted"
    )
    # before: Counter({'Renewed 0001': 2, 'Renewed 0000': 1}), two for one write sent
    assert attempted == {"Renewed 0000": 1, "Renewed 0001": 1}
    lines = _lines(log)
    tokens = [i for i, line in enumerate(lines) if line.get("log") == "lyt-action-token/1"]
    second = [i for i, line in enumerate(lines) if line.get("target") == "Renewed 0001"]
    assert len(tokens) == 1 and tokens[0] < second[0]  # written before the renewal went out


def test_a_paced_run_stopped_after_a_renewal_leaves_the_item_not_in_doubt(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    """The renewal takes the window's share, so the item's write waits for the next window;
    a Cancel then ends the run. The item was not sent: not in doubt, and a run again (in a new
    window) sends its write alone, no read back first."""
    fresh.set_plan("6/hour")  # the fixed clock never resets it: a share of 2 after the token
    log = tmp_path / "plan.log.jsonl"
    plan = actions.create_benefits(benefit_rows("Paced renewal", 2))
    cancel = threading.Event()
    out: list[pd.DataFrame] = []
    with renewing_client(fresh, make_client) as (client, renewing):
        worker = threading.Thread(
            target=lambda: out.append(
                plan.execute(
                    client, log=log, progress=False, paced=True, cancel=cancel, concurrency=1
                )
            ),
            daemon=True,
        )
        worker.start()
        until(lambda: renewing.tokens_answered == 2, "the token renewed")
        cancel.set()
        worker.join()
    first = out[0]
    assert first["outcome"].tolist() == ["succeeded", "cancelled"], first
    # before: "the batch was cancelled; a re-run with the same log checks it first, ..."
    assert first["message"].iloc[1] == "not sent: the batch was cancelled"
    state = ActionLog(log).state(plan.action)
    assert not state.in_doubt("Paced renewal 0001")  # before: in doubt, its write never sent
    assert plan.cost(log=log).needed == 1  # before: 2, a read back and the write

    fresh.set_plan("1000000/hour")  # a new window
    with renewing_client(fresh, make_client) as (client, renewing):
        again = plan.execute(client, log=log, progress=False, paced=True)
        sent = [call for call in renewing.sent if call[1] != TOKEN]
        assert sorted(names_on_server(client, "Paced renewal")) == sorted(again["target"])
    assert again["outcome"].tolist() == ["skipped_already_done", "succeeded"], again
    assert sent == [("POST", "/v2/loyalties/benefits")]  # before: a read back (GET) first
