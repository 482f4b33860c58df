"""``lyt verify`` of a plan refused as stale reads its plan for review's apply honestly, over
real HTTP: a write that apply sent and the service refused, or whose answer it never
logged, is said so, not counted among the writes it made; and a plan for review itself
refused as stale (``NAME.refreshed.refreshed.json``) is followed, link by link."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit.actions import ChangePlan, logged
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import SaveOne, SimulatedCrash, activate, refused_stale, stopped_after

pytestmark = pytest.mark.usefixtures("lyt_to_fresh", "professional")

_COMMAND = re.compile(r"lyt apply (\S+) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)")


def _activating(request: httpx.Request, bucket: str) -> bool:
    return request.method == "POST" and request.url.path.endswith(f"/{bucket}/activate")


def _verified(path: Path, pulled: ProgramSnapshot, capsys: pytest.CaptureFixture[str]) -> str:
    """``lyt verify`` of the plan at ``path`` against ``pulled`` (its base), which finds it
    not as rehearsed: what it printed."""
    base = path.with_name("base")
    pulled.to_csv(base)
    assert main(["verify", str(path), "--base", str(base)]) == 2
    return capsys.readouterr().out


def test_lyt_verify_says_a_write_of_the_plan_for_reviews_apply_refused_or_in_doubt_as_such(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_one: SaveOne,
) -> None:
    """The plan for review applied one activation at a time: the first made; then the
    sandbox's clock moved past the other buckets' dates, so the service refuses the second
    (423, for good); the third's answer heard, then the run dies before logging it. Earlier
    all three were "3 writes made by plan.refreshed.json's apply"."""
    path = tmp_path / "plan.json"
    chosen = refused_stale(fresh, make_client, path, tmp_path / "plan.json.log.jsonl", save_one)
    review = ChangePlan.load(tmp_path / "plan.refreshed.json")
    left = [str(item.target) for item in review.parts[0].items]
    assert len(left) == 3, left
    made, refused, doubtful = left
    dates = chosen["date"]

    def past_their_dates(response: httpx.Response) -> None:
        if _activating(response.request, made):
            fresh.settle()
            latest = max(dates[refused], dates[doubtful])
            fresh.set_clock((latest + pd.Timedelta(days=1)).isoformat())
        elif _activating(response.request, doubtful):
            raise SimulatedCrash(f"the run dies, {doubtful}'s answer heard, not logged")

    hooks = {"response": [past_their_dates]}
    with (
        httpx.Client(event_hooks=hooks, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
        pytest.raises(SimulatedCrash),
    ):
        review.apply(
            client,
            log=tmp_path / "plan.refreshed.json.log.jsonl",  # lyt apply's: its own
            progress=False,
            concurrency=1,
            ignore_unsupported=True,
            sha256=review.sha256,
        )

    out = _verified(path, fresh_pulled, capsys)
    assert (
        "1 write made by plan.refreshed.json's apply, 1 failed in it (refused by the service),"
        " 1 in doubt (sent, its answer not logged); 1 item sent by neither apply\n"
    ) in out, out  # the last bucket: someone else's
    assert (
        f"outcome activate_pending_bucket {refused}: rehearsed succeeded, the apply failed 423"
        in out
    )
    assert f"activate_pending_bucket {doubtful}: rehearsed succeeded, the apply in doubt" in out
    assert f"activate_pending_bucket {made}:" not in out, out


def test_lyt_verify_follows_a_plan_for_review_refused_as_stale_to_its_own(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_one: SaveOne,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plan refused as stale before any write; its plan for review applied part way
    (one activation), then refused as stale too (its last bucket activated by someone else
    since), which saves ``plan.refreshed.refreshed.json``, applied as printed. Verified, the
    original plan's items take the outcomes of both applies, the two buckets someone else
    activated sent by none. Earlier the second file's writes were each "not sent". Past
    ``MAX_REVIEWS`` links (here 1), the file beyond is named."""
    path = tmp_path / "plan.json"
    chosen = refused_stale(fresh, make_client, path, tmp_path / "plan.json.log.jsonl", save_one)
    first = tmp_path / "plan.refreshed.json"
    one = lambda sent: any(r.url.path.endswith("/activate") for r in sent)  # noqa: E731
    made = stopped_after(fresh, make_client, first, one, ignore_unsupported=True)
    assert len(made) == 1
    last = str(ChangePlan.load(first).parts[0].items[-1].target)
    with make_client(fresh) as client:
        activate(client, chosen[chosen["id"] == last].iloc[0])
    fresh.settle()

    sha256 = hashlib.sha256(first.read_bytes()).hexdigest()
    assert main(["apply", str(first), "--sha256", sha256, "--ignore-unsupported"]) == 1
    command = _COMMAND.search(capsys.readouterr().err)
    assert command is not None
    second = tmp_path / "plan.refreshed.refreshed.json"
    assert command[1] == str(second)
    assert main(["apply", command[1], "--sha256", command[2], *command[3].split()]) == 0
    capsys.readouterr()
    rest = [str(item.target) for item in ChangePlan.load(second).parts[0].items]
    assert len(chosen) == 4 and len(rest) == 1, rest  # not the made, nor someone else's two

    out = _verified(path, fresh_pulled, capsys)
    assert (
        "and from the log of its plan for review, "
        f"{first}.log.jsonl: 1 write made by plan.refreshed.json's apply\n"
    ) in out, out
    assert (
        f"and from the log of plan.refreshed.json's plan for review, {second}.log.jsonl:"
        " 1 write made by plan.refreshed.refreshed.json's apply; 2 items sent by none"
        " of the 3 applies: the files for review left them out"
    ) in out, out
    assert f"activate_pending_bucket {rest[0]}:" not in out, out  # made by the second's apply
    problems = [line for line in out.splitlines() if line.startswith("  different")]
    assert len(problems) == 2 and all("the apply not sent" in p for p in problems), out
    assert "Verification(ok=False, 14 as rehearsed, 2 different;" in out, out

    # followed no further than its bound: the file beyond named, to verify alone
    monkeypatch.setattr(logged, "MAX_REVIEWS", 1)
    out = _verified(path, fresh_pulled, capsys)
    assert (
        f"Note: {path}'s plans for review go on past the 1 followed, to {second}: what its"
        f" apply (and any after it) made is not read here; lyt verify {second} --base"
    ) in out, out
    assert "plan.refreshed.refreshed.json's apply" not in out, out
    assert f"activate_pending_bucket {rest[0]}: rehearsed succeeded, the apply not sent" in out
