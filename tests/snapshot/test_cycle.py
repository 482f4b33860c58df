"""A paced pull keeps to its share of the project's billing cycle: refused before its member
reads when it needs more in all, with ways that fit; stopped once the service's answers say
the cycle's budget is spent, its checkpoint keeping what it read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit._plans import CYCLE_REMINDER as CYCLE
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.quota import Quota
from lyt_toolkit.errors import ConfigurationError, CycleBudgetError, PullBudgetError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot.defaults import DEFAULT_CONCURRENCY
from lyt_toolkit.synthetic import generate_program

MakeClient = Callable[..., LoyaltyClient]

MEMBERS = 300
PROGRAM = generate_program(
    members=MEMBERS, rewards=20, benefits=10, card_definitions=3, tier_structures=2, seed=4
)
"""A program whose member reads alone are more than half of a 500-call cycle."""

SMALL = generate_program(
    members=60, rewards=20, benefits=10, card_definitions=3, tier_structures=2, seed=4
)
"""A program whose pull needs more than the 10 calls left in a cycle and those in flight."""


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM, now=PROGRAM["now"]) as sb:
        yield sb


def _refused(sb: Sandbox, client: LoyaltyClient, folder: Path, **kwargs: Any) -> CycleBudgetError:
    used = sb.plan()["used"]
    with pytest.raises(CycleBudgetError) as caught:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder, **kwargs)
    assert sb.plan()["used"] - used == caught.value.sent  # nothing more than it says
    return caught.value


def test_a_paced_pull_needing_more_than_its_share_of_the_free_plans_cycle_is_refused(
    program: Sandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """The free plan's 100 calls an hour name its 500-call cycle: a paced pull needing over
    300 calls is over half of it, refused once its lists are walked, before any member read."""
    program.set_plan("free")
    with make_client(program) as client:
        refused = _refused(program, client, tmp_path / "c")
    assert refused.stage == "member reads" and not refused.reached
    assert refused.needed > 250 and refused.sent < 20  # the lists only
    text = str(refused)
    assert "the free plan's 500-call billing cycle" in text and "share (0.5)" in text
    assert "give cycle_calls= or LYT_CYCLE_CALLS" in text  # an enterprise plan states its own
    assert "throttling" in text
    assert all(way.argument is None or way.argument[0] != "checkpoint" for way in refused.ways)
    sample = next(way for way in refused.ways if way.argument and way.argument[0] == "sample")
    assert sample.calls <= 250


def test_the_sample_it_offers_is_pulled_paced_within_the_cycle(
    program: Sandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """A 500-call cycle stated on a plan of 5,000 calls an hour (no window to wait for)."""
    program.set_plan("professional")
    with make_client(program, cycle_calls=500) as client:
        refused = _refused(program, client, tmp_path / "c")
        size = next(w.argument[1] for w in refused.ways if w.argument and w.argument[0] == "sample")
        used = program.plan()["used"]
        sampled = ProgramSnapshot.pull(
            client, progress=False, checkpoint=tmp_path / "s", sample=size
        )
    assert len(sampled.members) == MEMBERS and sampled.sample is not None
    assert program.plan()["used"] - used <= 250


def test_a_stated_cycle_budget_takes_the_place_of_the_published_plans(
    program: Sandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """``cycle_calls`` states the cycle: 200 refuses the paced pull on the professional plan,
    whose published cycle would hold it; 100,000 lets it go."""
    program.set_plan("professional")
    with make_client(program, cycle_calls=200) as client:
        refused = _refused(program, client, tmp_path / "c")
    assert "the project's 200-call billing cycle" in str(refused)
    with make_client(program, cycle_calls=100_000) as client:
        pulled = ProgramSnapshot.pull(client, progress=False, checkpoint=tmp_path / "d")
    assert len(pulled.members) == MEMBERS


@pytest.mark.parametrize("bad", [0, -5, "many", 2.5, True])
def test_a_cycle_budget_that_is_not_a_count_is_refused_naming_it(bad: Any) -> None:
    with pytest.raises(ConfigurationError, match="cycle_calls"):
        LoyaltyClient(base_url="http://127.0.0.1:9", env_file=None, cycle_calls=bad)


def test_an_unpaced_refusal_offers_pacing_only_within_the_cycle_and_says_its_share(
    program: Sandbox, make_client: MakeClient
) -> None:
    """Refused for the hour's share, a pull offers to be paced with the cycle share it takes
    where that fits, and not where it does not."""
    program.set_plan("30/hour")
    stated = make_client(program, cycle_calls=2_000)
    with stated as client, pytest.raises(PullBudgetError) as fits:
        ProgramSnapshot.pull(client, progress=False)
    paced = next(w for w in fits.value.ways if w.argument and w.argument[0] == "checkpoint")
    assert re.search(r"taking \d+ % of the project's 2,000-call billing cycle or more", paced.what)
    program.set_plan("30/hour")
    with make_client(program, cycle_calls=400) as client, pytest.raises(PullBudgetError) as over:
        ProgramSnapshot.pull(client, progress=False)
    assert not isinstance(over.value, CycleBudgetError)
    assert all(w.argument is None or w.argument[0] != "checkpoint" for w in over.value.ways)


def test_a_paced_pull_stops_at_the_cycles_reminder_and_its_checkpoint_resumes_next_cycle(
    start_sandbox: StartSandbox, make_client: MakeClient, tmp_path: Path
) -> None:
    """Ten calls left in the professional plan's cycle: the pull stops at the first answer
    carrying the reminder, sending no call after it (those already in flight, at most its
    concurrency, still go), and in the next month's cycle its checkpoint finishes it, frames
    equal to an unpaced pull's. (A smaller program of its own: its clock moves a month.)"""
    with start_sandbox(SMALL, now=SMALL["now"]) as sb:
        with make_client(sb) as client:
            whole = ProgramSnapshot.pull(client, progress=False)
        sb.set_plan("professional", cycle_used=99_990)
        folder = tmp_path / "c"
        with make_client(sb) as client:
            with pytest.raises(CycleBudgetError) as caught:
                ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
            assert client.quota.cycle_reached
        stopped = caught.value
        assert stopped.reached and "is spent" in str(stopped) and "checkpoint" in str(stopped)
        cycle = sb.plan()
        past = cycle["cycle_used"] - 100_000
        assert 1 <= past <= DEFAULT_CONCURRENCY
        assert stopped.sent == 10 + past
        sb.set_clock(cycle["cycle_resets_at"])  # the next month: a new cycle
        with make_client(sb) as client:
            resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert resumed.calls is not None
        assert sb.plan()["cycle_used"] == resumed.calls.used
    for kind in ("rewards", "members", "cards", "pending_buckets"):
        pd.testing.assert_frame_equal(getattr(resumed, kind), getattr(whole, kind), obj=kind)


def test_lyt_export_refused_for_the_cycle_offers_a_sample_in_another_folder_which_works(
    program: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``LYT_CYCLE_CALLS`` states a 500-call cycle (on a plan of 5,000 calls an hour: no
    window to wait for). Its folder holds the refused pull: the sample it offers goes in
    another, and does."""
    program.set_plan("professional")
    configure_lyt(program)
    monkeypatch.setenv("LYT_CYCLE_CALLS", "500")
    code = main(["export", "--out", "a", "--checkpoint", "c"])
    err = capsys.readouterr().err
    assert code == 1 and "the project's 500-call billing cycle" in err, err
    assert "Traceback" not in err
    size = int(err.split("(--sample ")[1].split()[0])
    assert f"(--sample {size} --checkpoint ANOTHER_DIR)" in err
    used = program.plan()["used"]
    code = main(["export", "--out", "b", "--checkpoint", "d", "--sample", str(size)])
    assert code == 0, capsys.readouterr().err
    assert program.plan()["used"] - used <= 250
    assert len(pd.read_csv(tmp_path / "b" / "members.csv")) == MEMBERS


def test_a_stop_at_the_reminder_of_a_cycle_of_unknown_size_names_no_size() -> None:
    """An enterprise plan states no cycle: the stop says the project's cycle is spent."""
    stopped = CycleBudgetError(
        "member reads", needed=9, share=0.5, cycle=None, sent=3, reached=True
    )
    text = str(stopped)
    assert "the project's billing-cycle budget is spent" in text and "0-call" not in text
    assert stopped.with_ways(()).reached and stopped.cycle is None


def test_a_late_answer_of_a_call_sent_before_the_reminder_does_not_clear_it() -> None:
    """Answers overtake each other: only a call sent after the one the reminder answered,
    answered without it, says a new cycle began."""
    quota = Quota(max_wait=0)
    numbers = [quota.take()[1] for _ in range(3)]
    budget = {"X-Rate-Limit-Limit": "5000", "X-Rate-Limit-Remaining": "4000"}
    quota.observe(httpx.Response(200, headers={**budget, "X-Rate-Limit-Type": CYCLE}), numbers[1])
    quota.observe(httpx.Response(200, headers=budget), numbers[0])  # sent before: late
    assert quota.cycle_reached
    quota.observe(httpx.Response(200, headers=budget), numbers[2])  # sent after, no reminder
    assert not quota.cycle_reached
