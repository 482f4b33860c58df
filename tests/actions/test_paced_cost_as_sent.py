"""A paced apply of a saved plan says the calls it sends, over real HTTP: its cost (what
``lyt apply`` prints first, ``started: 0 of N``) cuts its chunks as the apply cuts them, a write
the service is known to refuse taking its read back beside it in the window, so the re-reads
said are the re-reads sent; and a paced ``--refresh`` sends no activation its chunk's rows show
the service refuses (its date reached). Its waits for a window are taken at once (``Waits``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from interrupting import Waits
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.edited_frames import EditError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import activations, bucket_lists, waiting_no_time

pytestmark = pytest.mark.usefixtures("professional")  # put back to unlimited after

ACTIVATED = [
    "lcppb_c0ffee0001",  # card 0001, with 0002: one bucket list for both, unless a chunk cuts
    "lcppb_c0ffee0002",
    "lcppb_c0ffee0006",
    "lcppb_c0ffee0007",
    "lcppb_c0ffee0008",  # an IMMEDIATE card definition's: refused, read back
    "lcppb_c0ffee0009",  # an INACTIVE member's: refused, read back
    "lcppb_c0ffee000a",  # an INACTIVE program's: refused, read back
    "lcppb_c0ffee000b",
    "lcppb_c0ffee000e",  # card 000a's four
    "lcppb_c0ffee000f",
    "lcppb_c0ffee0010",
    "lcppb_c0ffee0011",
]
"""The demo program's buckets the plan activates: none refused for its date."""


def _saved(base: ProgramSnapshot, path: Path, buckets: list[str]) -> None:
    """The plan of ``base`` activating ``buckets``, saved at ``path``."""
    edit = actions.edit(base)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(buckets), "status"] = "ACTIVATED"
    edit.plan().save(path)


@pytest.mark.parametrize("refresh", [False, True], ids=["apply", "refresh"])
@pytest.mark.parametrize("limit", [12, 16])
def test_a_paced_apply_sends_the_re_reads_its_cost_says_its_refused_writes_read_back(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    refresh: bool,
    limit: int,
) -> None:
    """Earlier the cost cut its chunks as if each write were one call, while the apply's
    window held the read back of each write refused too: its chunks were cut otherwise, a
    card's bucket list read for two chunks where the cost said one (or the other way)."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    _saved(fresh_pulled, path, ACTIVATED)
    fresh.set_plan(f"{limit}/hour")
    waits = Waits(fresh)
    with waiting_no_time(fresh, make_client, monkeypatch, waits, waits.sleep) as (client, sent):
        loaded = ChangePlan.load(path)
        # its token request first, inside the check: its cost as the apply's windows see it
        cost = loaded.check_apply(client, log=log, paced=True, refresh=refresh, budget_share=0.5)
        reads = loaded.reread_cost(
            client, log=log, paced=True, refresh=refresh, budget_share=0.5
        ).needed
        sent.clear()
        results = loaded.apply(
            client,
            log=log,
            progress=False,
            concurrency=1,
            paced=True,
            refresh=refresh,
            budget_share=0.5,
        )
    assert len(waits.left) > 1  # its chunks cut by the windows
    refused = int((results["outcome"] == "failed").sum())
    assert refused == 4 and activations(sent) == len(ACTIVATED)
    assert bucket_lists(sent) - refused == reads  # the re-reads said, each refusal read back
    tokens = sum(r.url.path == "/oauth/token" for r in sent)
    assert len(sent) - tokens == cost.needed


def test_a_paced_refresh_sends_no_activation_its_rows_show_refused_for_its_date(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """A bucket whose date the service's clock reached since the plan: its activation would
    be refused (423) and read back, two calls for nothing. Earlier a refresh planned it again
    and sent both; now it is unsupported, named without ``ignore_unsupported`` (nothing of
    its chunk sent), not sent with it."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    _saved(fresh_pulled, path, ["lcppb_c0ffee0001", "lcppb_c0ffee0002"])  # now+5d, now+20d
    fresh.set_clock("2026-01-21T12:00:00Z")  # the first one's date reached
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        loaded = ChangePlan.load(path)
        with pytest.raises(EditError, match="lcppb_c0ffee0001") as refused:
            loaded.apply(client, log=log, progress=False, paced=True, refresh=True)
        assert "its date 2026-01-20 is no longer after the service's today, 2026-01-21" in str(
            refused.value
        )
        assert activations(sent) == 0
        sent.clear()
        results = loaded.apply(
            client, log=log, progress=False, paced=True, refresh=True, ignore_unsupported=True
        )
    assert activations(sent) == 1 and bucket_lists(sent) == 0  # the refusal's rows kept
    assert results[["target", "outcome"]].values.tolist() == [["lcppb_c0ffee0002", "succeeded"]]
