"""A paced run from a client holding no token yet: its token request, sent first (it tells the
budget), is the run's own, not "sent earlier in this window" on its progress lines; its share
still counts it. The calls of a real earlier run of the plan in the window still are. Over real
HTTP, each run's client fresh: no call before the run's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interrupting import PacedLines, window_used

from lyt_toolkit import actions
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveFour, paced_four_kinds

ClientFor = Callable[..., LoyaltyClient]
CARD = "lcdef_c0ffee0001"
EARLIER = "sent earlier in this window"


def _creates(count: int) -> actions.ActionPlan[Any]:
    """``count`` benefit creates (the same names each time: a run again skips those done)."""
    points = {"value": 1, "card_definition_id": CARD}
    rows = [{"name": f"Own token {i}", "type": "POINTS", "points": points} for i in range(count)]
    return actions.create_benefits(rows)


def _paced(client: LoyaltyClient, count: int, log: Path) -> list[str]:
    """The progress lines of ``count`` creates executed paced by ``client``, from no call."""
    assert not client.holds_token
    told = PacedLines()
    results = _creates(count).execute(client, log=log, progress=told, paced=True, concurrency=1)
    assert results["outcome"].isin(["succeeded", "skipped_already_done"]).all(), results
    return told.lines


def test_a_paced_execute_does_not_say_its_own_token_was_sent_earlier(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    fresh.set_plan("1000/hour")  # a share of 500
    with make_client(fresh) as client:
        lines = _paced(client, 3, tmp_path / "plan.log.jsonl")
    assert window_used(fresh) == 1 + 3  # its token, its writes
    # before: "3 of 3 calls; 3 sent, 1 sent earlier in this window, 496 left this window ..."
    assert lines[-1].startswith("3 of 3 calls; 3 sent, 496 left this window of its share of 500")
    assert not [line for line in lines if EARLIER in line], lines


def test_a_paced_run_again_says_only_the_earlier_runs_calls_were_sent_earlier(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path
) -> None:
    fresh.set_plan("1000/hour")
    log = tmp_path / "plan.log.jsonl"
    with make_client(fresh) as client:
        _paced(client, 2, log)  # its token and 2 writes
    with make_client(fresh) as client:
        lines = _paced(client, 3, log)  # its token and the one write left
    assert window_used(fresh) == 3 + 2
    # before: "4 sent earlier" (the earlier run's 3 and this run's token)
    assert lines[-1].startswith(f"1 of 1 call; 1 sent, 3 {EARLIER}, 495 left this window"), lines


def test_a_paced_saved_apply_does_not_say_its_own_token_was_sent_earlier(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path, save_four: SaveFour
) -> None:
    with make_client(fresh) as client:
        assert not client.holds_token
        results, told = paced_four_kinds(fresh, client, tmp_path, save_four)
    assert results["outcome"].eq("succeeded").all(), results
    # before: "0 of 9 calls; 0 sent, 1 sent earlier in this window, 499 left ..." to the last
    assert not [line for line in told.lines if EARLIER in line], told.lines
    assert told.lines[-1].startswith("9 of 9 calls; 9 sent, 490 left this window"), told.lines


def test_a_paced_change_plan_apply_says_only_its_reread_and_parts_before_were_sent_earlier(
    fresh: Sandbox, make_client: ClientFor, tmp_path: Path, save_four: SaveFour
) -> None:
    """An unsaved plan's parts each show their own calls: the re-read's and the parts' before
    them are sent earlier in the window (counted against the same share), its token not."""
    plan, _ = save_four(tmp_path / "plan.json")
    fresh.set_plan("1000/hour")
    told = PacedLines()
    with make_client(fresh) as client:
        assert not client.holds_token
        results = plan.apply(
            client, log=tmp_path / "plan.log.jsonl", progress=told, paced=True, allow_destroy=True
        )
    assert results["outcome"].eq("succeeded").all(), results
    assert EARLIER not in told.lines[0], told.lines  # the re-read's; before: "1 sent earlier"
    # the last part's: the calls of the re-read and the parts before it; before: 4 (its token)
    assert told.lines[-1].startswith(f"1 of 1 call; 1 sent, 3 {EARLIER}, 495 left"), told.lines


def test_lyt_apply_paced_does_not_say_its_own_token_was_sent_earlier(
    fresh: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    fresh.set_plan("1000/hour")
    configure_lyt(fresh)
    monkeypatch.setenv("LYT_PROGRESS", "auto")  # no terminal: its lines, to stderr
    assert main(["apply", str(path), "--paced", "--allow-destroy"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "paced apply: " in line]
    assert lines, err
    # before: "paced apply: started: 0 of 9 calls; 0 sent, 1 sent earlier in this window, ..."
    assert EARLIER not in err, err
