"""Drift: what changed in the live program since a snapshot, from Python and from ``lyt drift``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.errors import PullBudgetError
from lyt_toolkit.sandbox import Sandbox

from .helpers import client_for, pull

REWARD = "lrew_c0ffee0001"


def _draft(sb: Sandbox, reward_id: str) -> None:
    with client_for(sb) as client:
        client.rewards.draft(reward_id)


def test_a_snapshot_has_no_drift_until_production_changes(demo: Sandbox) -> None:
    snapshot = pull(demo)
    with client_for(demo) as client:
        assert not snapshot.drift(client, progress=False)
        _draft(demo, REWARD)
        drift = snapshot.drift(client, progress=False)
    status = drift.changes[(drift.changes["key"] == REWARD) & (drift.changes["column"] == "status")]
    assert status[["kind", "before", "after"]].values.tolist() == [["rewards", "ACTIVE", "DRAFT"]]
    assert drift.before is snapshot and drift.after.pulled_at >= snapshot.pulled_at


def test_a_partial_snapshot_drifts_over_its_own_kinds(demo: Sandbox) -> None:
    with client_for(demo) as client:
        rewards_only = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
        _draft(demo, REWARD)
        drift = rewards_only.drift(client, progress=False)
    assert set(drift.changes["kind"]) == {"rewards"}  # no cost, card or benefit read again
    assert drift.after.kinds == {"rewards"}


@pytest.fixture
def lyt_to_demo(demo: Sandbox, configure_lyt: Callable[[Sandbox], None]) -> None:
    """``lyt`` run in the test talks to ``demo`` (``configure_lyt``)."""
    configure_lyt(demo)


class Unchanged(NamedTuple):
    """The demo served by a sandbox its tests only read (each puts in force the plan it
    needs), pulled whole once."""

    sb: Sandbox
    snapshot: ProgramSnapshot
    """The whole pull (its ``calls``: what a whole pull sends)."""
    folder: Path
    """The whole pull written as Parquet; ``saved`` read back from it."""
    saved: ProgramSnapshot


@pytest.fixture(scope="module")
def unchanged(
    start_sandbox: StartSandbox, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Unchanged]:
    with start_sandbox() as sb:
        from lyt_toolkit.snapshot import read_snapshot

        sb.set_plan("100000/hour")
        snapshot = pull(sb)
        folder = tmp_path_factory.mktemp("drift") / "snap"
        snapshot.to_parquet(folder)
        yield Unchanged(sb, snapshot, folder, read_snapshot(folder))


@pytest.fixture
def lyt_to_unchanged(unchanged: Unchanged, configure_lyt: Callable[[Sandbox], None]) -> None:
    """``lyt`` run in the test talks to ``unchanged`` (``configure_lyt``)."""
    configure_lyt(unchanged.sb)


@pytest.mark.usefixtures("lyt_to_demo")
def test_lyt_drift_exits_0_without_drift_and_2_with_it(
    demo: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pull(demo).to_parquet(tmp_path / "snap")
    assert main(["drift", str(tmp_path / "snap")]) == 0
    assert capsys.readouterr().out.startswith("No drift: ")

    _draft(demo, REWARD)
    out = tmp_path / "drift.csv"
    assert main(["drift", str(tmp_path / "snap"), "--out", str(out)]) == 2
    printed = capsys.readouterr().out
    assert "changes" in printed and f"{out.resolve()}" in printed
    written = pd.read_csv(out, dtype=str)
    assert ((written["key"] == REWARD) & (written["after"] == "DRAFT")).any()


@pytest.mark.usefixtures("lyt_to_demo")
def test_lyt_drift_exits_1_naming_what_stops_it(
    demo: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["drift", str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lyt drift: ") and "manifest.json is missing" in err

    pull(demo).to_csv(tmp_path / "snap")
    monkeypatch.setenv("LYT_APP_TOKEN", "wrong-token-value")
    assert main(["drift", str(tmp_path / "snap")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lyt drift: ") and len(err.strip().splitlines()) == 1
    assert "wrong-token-value" not in err


@pytest.mark.usefixtures("lyt_to_demo")
def test_lyt_drift_names_each_change_the_first_20_printed_and_all_in_out(
    demo: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = pull(demo)
    live_names = snapshot.rewards["name"].astype(str).tolist()
    snapshot.rewards["name"] = snapshot.rewards["name"] + " (old)"  # every reward renamed since
    snapshot.to_parquet(tmp_path / "snap")
    out = tmp_path / "drift.csv"
    assert main(["drift", str(tmp_path / "snap"), "--out", str(out)]) == 2
    printed = capsys.readouterr().out
    renamed = sorted(zip(snapshot.rewards["id"], live_names, strict=True))
    assert len(renamed) > 20
    for reward_id, name in renamed[:20]:
        assert f"changed  rewards {reward_id} name: {name} (old) -> {name}\n" in printed
    assert f"rewards {renamed[20][0]} name" not in printed
    assert f"and {len(renamed) - 20} more" in printed
    written = pd.read_csv(out, dtype=str)
    assert sorted(written["key"]) == [reward_id for reward_id, _ in renamed]


@pytest.mark.usefixtures("lyt_to_demo")
def test_lyt_drift_of_a_partial_snapshot_says_nothing_of_kinds_it_never_pulled(
    demo: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with client_for(demo) as client:
        partial = ProgramSnapshot.pull(client, progress=False, kinds=["rewards", "benefits"])
        partial.to_parquet(tmp_path / "snap")
        client.rewards.draft(REWARD)
        created = client.benefits.create(
            {
                "name": "Drift test bonus",
                "type": "POINTS",
                "points": {"value": 42, "card_definition_id": "lcdef_c0ffee0001"},
            }
        ).id
    assert main(["drift", str(tmp_path / "snap")]) == 2
    printed = capsys.readouterr().out
    assert f"added    benefits {created}" in printed
    assert f"changed  rewards {REWARD} status: ACTIVE -> DRAFT" in printed
    assert "does not exist" not in printed  # card definitions were never pulled
    assert "has no cost" not in printed  # nor reward costs
    assert "card_definitions" not in printed.split("Audit findings")[0].split("Note:")[0]


def test_a_drift_beyond_its_share_names_ways_forward_a_drift_can_take(
    unchanged: Unchanged,
) -> None:
    """``drift`` takes no ``kinds``, ``sample`` or ``checkpoint``: its refusal says how to get
    the live program another way (a pull, then ``snapshot.diff``), never an argument of a
    pull as if ``drift`` took it, and offers no sample (a sample cannot compare cards)."""
    demo, snapshot = unchanged.sb, unchanged.snapshot
    demo.set_plan("20/hour")  # the lists fit in half of it, the member reads do not
    with client_for(demo) as client, pytest.raises(PullBudgetError) as caught:
        snapshot.drift(client, progress=False)
    refusal = caught.value
    assert refusal.stage == "member reads" and refusal.ways
    for way in refusal.ways:
        if way.argument is not None:  # an argument drift itself takes
            assert way.argument[0] == "budget_share", way
            continue
        assert "ProgramSnapshot.pull(client, " in way.how and "snapshot.diff(live)" in way.how
    assert not any("sample" in way.how for way in refusal.ways)
    *text, cost_first = str(refusal).splitlines()
    assert "sample=" not in "\n".join(text)
    # The estimate of the pull drift makes again tells its cost first (a whole snapshot's).
    assert cost_first == refusal.cost_first
    assert cost_first.startswith(
        "To know the cost first: ProgramSnapshot.estimate(client, read_sample=100) (walks"
    )
    lists_only = next(w for w in refusal.ways if "kinds=" in w.how)
    demo.set_plan("20/hour")
    with client_for(demo) as client:  # the way, followed as written, fits
        live = eval(lists_only.how.split("; ")[0].removeprefix("in Python: live = "))
    assert live.calls is not None and live.calls.used == lists_only.calls
    assert not snapshot.diff(live)


def test_a_drift_the_saved_members_show_beyond_its_share_sends_only_its_token(
    unchanged: Unchanged,
) -> None:
    """A saved whole snapshot holds the member count: when its lists and one read per member
    cannot fit the share, drift refuses after the token request alone (the budget known),
    with the figures the pull's own refusal gives once it has walked the lists."""
    demo, saved = unchanged.sb, unchanged.saved
    demo.set_plan("20/hour")  # the lists fit in half of it, the member reads do not
    with client_for(demo) as client, pytest.raises(PullBudgetError) as walked:
        ProgramSnapshot.pull(client, progress=False)
    lists = demo.plan()["used"]
    demo.set_plan("20/hour")
    with client_for(demo) as client, pytest.raises(PullBudgetError) as caught:
        saved.drift(client, progress=False)
    refusal, pulled = caught.value, walked.value
    assert demo.plan()["used"] == refusal.sent == 1 < lists  # the token request only
    assert (refusal.stage, refusal.needed, refusal.remaining) == (
        pulled.stage,
        pulled.needed,
        pulled.remaining,
    )
    # The same ways at the same cost; the whole window now holds the pull too, the lists
    # not spent first.
    calls = {w.what: w.calls for w in pulled.ways if not w.how.startswith("sample=")}
    assert calls.items() < {w.what: w.calls for w in refusal.ways}.items()
    assert any(w.argument == ("budget_share", 1.0) for w in refusal.ways)


@pytest.mark.usefixtures("lyt_to_unchanged")  # None: the client the environment configures
@pytest.mark.parametrize("given", ["client", "mapping", "config", "async client", "environment"])
def test_a_drift_from_any_client_source_is_refused_after_its_token_alone(
    unchanged: Unchanged, given: str
) -> None:
    """The saved members' early refusal holds for every client source ``drift`` takes: a
    mapping, a ``ClientConfig``, an ``AsyncLoyaltyClient`` or None make the one client that
    checks and then pulls, so the lists are not walked first; a drift that fits sends what
    a pull sends (the pull starts with the token the check fetched, not a second one)."""
    from lyt_toolkit.client import AsyncLoyaltyClient, ClientConfig

    demo, saved = unchanged.sb, unchanged.saved
    settings: dict[str, Any] = {
        "base_url": demo.base_url, "env_file": None, **demo.credentials.as_client_kwargs()
    }  # fmt: skip
    opened = ExitStack()
    sources: dict[str, Callable[[], Any]] = {
        "client": lambda: opened.enter_context(client_for(demo)),
        "mapping": lambda: settings,
        "config": lambda: ClientConfig.resolve(**settings),
        "async client": lambda: AsyncLoyaltyClient(**settings),
        "environment": lambda: None,
    }
    demo.set_plan("20/hour")  # the lists fit in half of it, the member reads do not
    with opened, pytest.raises(PullBudgetError) as caught:
        saved.drift(sources[given](), progress=False)
    assert caught.value.stage == "member reads"
    assert demo.plan()["used"] == caught.value.sent == 1  # the token request only

    demo.set_plan("100000/hour")
    with opened:
        assert not saved.drift(sources[given](), progress=False)
    pulled = unchanged.snapshot.calls  # a whole pull of the same program
    assert pulled is not None and demo.plan()["used"] == pulled.used


@pytest.mark.usefixtures("lyt_to_unchanged")
def test_lyt_drift_beyond_its_share_sends_only_its_token_and_within_it_a_pull(
    unchanged: Unchanged, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lyt drift`` refuses after its token request alone; a drift that fits sends what a
    pull does (its pull starts with that token)."""
    demo, folder = unchanged.sb, str(unchanged.folder)
    demo.set_plan("20/hour")  # the lists fit in half of it, the member reads do not
    assert main(["drift", folder]) == 1
    assert capsys.readouterr().err.startswith("lyt drift: pull stopped before its member reads")
    assert demo.plan()["used"] == 1  # the token request only

    pulled = unchanged.snapshot.calls  # a whole pull of the same program
    demo.set_plan("100000/hour")
    assert main(["drift", folder]) == 0
    assert pulled is not None and demo.plan()["used"] == pulled.used
