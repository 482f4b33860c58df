"""A paced apply whose project's budget falls while it runs, over real HTTP: once its share of
a window can no longer pace a call (a token request and the call it serves), the items it did
not send are ``cancelled`` as not sent, naming the new budget and the share that paces it,
not ``failed`` as if the service refused them; run again with the log, it sends exactly them.
Its waits for a window are taken at once (``Waits``), the budget lowered at the first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from interrupting import Waits
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveOne, activations, paced_in_waits

pytestmark = pytest.mark.usefixtures("professional")  # put back to unlimited after


def _activated(sent: list[httpx.Request]) -> list[str]:
    """The buckets the activations among ``sent`` name, in order."""
    return [r.url.path.split("/")[-2] for r in sent if activations([r])]


@pytest.mark.parametrize("saved", [False, True], ids=["plan", "saved-plan-checked-as-written"])
def test_a_paced_apply_whose_budget_falls_too_low_says_so_and_resumes_the_rest(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
    saved: bool,
) -> None:
    """Earlier the plan's items left were ``failed`` (logged so) with a message naming no
    change of budget, and the saved plan checked as it writes raised ``PacedShareTooSmall``
    out of ``apply``, its results lost."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = set(save_one(path)["id"])
    fresh.set_plan("10/hour")  # 3 calls a window at a share of 0.3: its token, 2 calls
    waits = Waits(fresh)
    lowered: list[dict[str, Any]] = []

    def wait(seconds: float) -> None:
        if not lowered:  # the project's plan changed: 0.3 of 3 paces nothing
            lowered.append(fresh.set_plan("3/hour"))
        waits.sleep(seconds)

    results, sent, _ = paced_in_waits(
        fresh, make_client, monkeypatch, waits, wait, path, saved=saved, log=log, budget_share=0.3
    )
    made = _activated(sent)
    assert (
        lowered
        and made
        and set(results.loc[results["outcome"] == "succeeded", "target"]) == set(made)
    )
    rest = results[results["outcome"] != "succeeded"]
    assert len(rest) == len(chosen) - len(made) and rest["outcome"].eq("cancelled").all()
    said = str(rest["message"].iloc[0])
    assert said.startswith("not sent: the service's budget changed from 10 calls a window to 3")
    assert "use at least budget_share=0.67" in said and "run again with the same log" in said
    assert '"failed"' not in log.read_text()

    monkeypatch.undo()  # the waits as they are, the budget left as set
    fresh.set_plan("professional")
    sent.clear()
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        loaded = ChangePlan.load(path)
        again = (loaded.apply if saved else loaded.plan.apply)(client, log=log, progress=False)
    assert sorted(_activated(sent)) == sorted(rest["target"])  # the rest, each once
    assert set(again.loc[again["outcome"] == "succeeded", "target"]) == set(rest["target"])
    assert set(made) | set(rest["target"]) == chosen
