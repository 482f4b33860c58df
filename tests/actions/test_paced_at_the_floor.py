"""A paced apply whose share of a whole window is the least that paces (``paced_floor``: a token
request and the call it serves, two calls), over real HTTP: it ends, each window holding its
token request and one call, no call refused; a saved plan checked as it writes reads a chunk's
objects in one window and writes them in the next (its share holds no read beside the token
and the write). One call fewer a window is refused before the work's calls
(``tests/client/test_paced_share_floor.py``). Its waits for a window are taken at once
(``Waits``: one call at a time), each token lapsing with its window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from interrupting import Waits, window_used

from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveOne, activations, paced_in_waits

pytestmark = pytest.mark.usefixtures("professional")  # put back to unlimited after

LIMIT = 10
SHARE = 0.2
"""Two calls of a window of ``LIMIT``: the least share that paces (``least_share(10)``)."""
WAITS_AT_MOST = 20
"""Windows a test lets the apply wait for (it needs 9 at most): one waiting for ever fails."""


@pytest.mark.parametrize("saved", [False, True], ids=["plan", "saved-plan-checked-as-written"])
def test_a_paced_apply_at_the_least_share_ends_a_token_and_a_call_a_window(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
    saved: bool,
) -> None:
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = set(save_one(path)["id"])
    fresh.set_plan(f"{LIMIT}/hour")
    waits = Waits(fresh)

    def wait(seconds: float) -> None:
        assert len(waits.left) < WAITS_AT_MOST, f"waited for {len(waits.left)} windows"
        waits.sleep(seconds)

    results, sent, refused = paced_in_waits(
        fresh,
        make_client,
        monkeypatch,
        waits,
        wait,
        path,
        saved=saved,
        log=log,
        budget_share=SHARE,
        concurrency=1,
    )
    assert (results["outcome"] == "succeeded").all() and set(results["target"]) == chosen
    assert activations(sent) == len(chosen) and refused == 0  # each write once, none refused
    counted = [LIMIT - left for left in [*waits.left, fresh.plan()["remaining"]]]
    assert max(counted) <= 2  # the share of each window
    tokens = sum(r.url.path == "/oauth/token" for r in sent)
    assert tokens == len(counted)  # a token a window: each lapses with it
    # A write a window; a saved plan's read of each in the window before its write's.
    assert len(counted) == (2 * len(chosen) + 1 if saved else len(chosen))


def test_lyt_apply_paced_below_the_least_share_names_the_option_after_one_call(
    fresh: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    save_one: SaveOne,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One call fewer a window (0.1 of 10: one call) is refused after the token request that
    told the budget, before the re-read, naming ``--budget-share`` and the share that paces."""
    path = tmp_path / "plan.json"
    save_one(path)
    fresh.set_plan(f"{LIMIT}/hour")
    configure_lyt(fresh)
    code = main(["apply", str(path), "--paced", "--budget-share", "0.1"])
    out, err = capsys.readouterr()
    assert (code, out) == (1, ""), err
    assert err == (
        "lyt apply: --budget-share 0.1 of a window's 10 calls is 1 call, which cannot hold a"
        " token request and the call it serves (a token lasts no longer than a window): use at"
        " least --budget-share 0.2 to pace this work\n"
    )
    assert window_used(fresh) == 1  # the token request that told the budget: nothing else
