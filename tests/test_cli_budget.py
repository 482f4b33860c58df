"""The commands that pull keep to a share of the call budget, and sample, from the shell.

A 1,500-member program under a 1,000-call hourly plan: reading every member costs more than
the half of the window a pull keeps to by default, so ``lyt export`` is refused after the
list pages, and says how to get what it was for (``--sample N``, ``--budget-share 1``).
Each test puts the plan in force again, with its whole window. Where the size is not the
point (``lyt drift``'s refusal, which needs a full snapshot first; ``--budget-share 1``; the
economics report of a sample), a 150-member program under 100 calls an hour shows it for
fewer calls.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest
from fixture_types import StartSandbox
from snapshot.helpers import LARGE_MEMBERS, LARGE_PROGRAM, list_calls

from lyt_toolkit import audit
from lyt_toolkit.cli import build_parser, main
from lyt_toolkit.cli._pull import PullOptions, pull_options
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import PullBudgetError
from lyt_toolkit.reports import ESTIMATES_CSV
from lyt_toolkit.reports.economics_report import ECONOMICS_HTML
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot, read_snapshot
from lyt_toolkit.snapshot.defaults import DEFAULT_SHARE
from lyt_toolkit.synthetic import generate_program

MEMBERS, PROGRAM = LARGE_MEMBERS, LARGE_PROGRAM
PLAN = "1000/hour"
LIST_CALLS = list_calls(PROGRAM)

SAMPLED = re.compile(r"estimated from (\d+) of 1,500 members")


SMALL = generate_program(members=150, rewards=12, benefits=3, card_definitions=3, seed=3)
"""A program whose 150 member reads do not fit in half of ``SMALL_PLAN``'s window."""
SMALL_PLAN = "100/hour"
SMALL_SAMPLED = re.compile(r"estimated from (\d+) of 150 members")


@pytest.fixture(scope="module")
def small(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """``SMALL``, for what the size does not change (each test puts its plan in force)."""
    with start_sandbox(SMALL) as sb:
        yield sb


@pytest.fixture(scope="module")
def large(
    start_sandbox: StartSandbox, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Sandbox]:
    """The 1,500-member program, and the ``lyt`` commands pointed at it."""
    with start_sandbox(PROGRAM) as sb, pytest.MonkeyPatch.context() as env:
        for name, value in asdict(sb.credentials).items():
            env.setenv(f"LYT_{name.upper()}", value)
        env.setenv("LYT_BASE_URL", sb.base_url)
        env.chdir(tmp_path_factory.mktemp("cwd"))  # no .env from the working copy
        yield sb


@pytest.fixture
def window(large: Sandbox) -> Sandbox:
    """The program with ``PLAN`` in force and its window whole."""
    large.set_plan(PLAN)
    return large


def lyt(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``lyt argv``: its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lyt_ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``lyt argv``'s stdout, once it exited 0 (its stderr is the message when it did not)."""
    code, out, err = lyt(capsys, *argv)
    assert code == 0, err
    return out


def sample_size(out: str) -> int:
    """The members a sampled command's output says it estimated from."""
    found = SAMPLED.search(out)
    assert found, out
    return int(found.group(1))


def test_a_default_export_is_refused_after_the_lists_with_the_ways_forward(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = lyt(capsys, "export", "--out", str(tmp_path / "snap"))
    assert code == 1 and out == ""
    used = window.plan()
    assert used["used"] == LIST_CALLS  # the list pages, not one member read
    assert used["remaining"] == 1000 - LIST_CALLS  # the rest is the project's
    first, *rest, know = err.splitlines()
    assert first.startswith("lyt export: pull stopped before its member reads: ")
    assert f"the pull sent {LIST_CALLS} calls and nothing more" in first
    # Its figures have thousands separators, as an estimate's (earlier: "at least 1501 calls",
    # "1000 of 1000 left" beside the estimate's "1,000").
    assert re.search(r"they need at least 1,5\d\d calls and ", first), first
    assert "(the window had 1,000 of 1,000 left when the pull started;" in first
    assert re.search(r"paced over .*: at least 1,5\d\d calls \(--checkpoint ", err), err
    assert rest[0] == "Ways forward:" and all(line.startswith("  - ") for line in rest[1:])
    # Then how to know the cost first (earlier the ways forward were the last lines).
    assert know.startswith("To know the cost first: lyt export --estimate --read-sample 100 ("), (
        know
    )
    sample = re.search(r"\(--sample (\d+)\)", err)
    assert sample and 2 <= int(sample.group(1)) <= 1000
    assert "the lists only" in err and "in Python" not in err
    lists = re.search(r"\(--kinds ([a-z_,]+)\)", err)  # lyt export --kinds takes that way
    assert lists and set(lists.group(1).split(",")) == {
        "rewards", "reward_costs", "benefits", "card_definitions", "tier_structures",
        "programs", "members",
    }  # fmt: skip
    assert "paced over at least" in err and "(--checkpoint pull-checkpoint)" in err
    assert "budget_share" not in err and "sample=" not in err  # Python spellings replaced
    assert "Traceback" not in err and window.credentials.app_token not in err
    assert not (tmp_path / "snap").exists()


def test_the_lists_only_way_forward_runs_as_spelled_in_the_calls_it_said(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = lyt(capsys, "export", "--out", str(tmp_path / "whole"))[2]
    way = re.search(r"the lists only, [^:]*: (\d+) calls \((--kinds [a-z_,]+)\)", err)
    assert way, err
    window.set_plan(PLAN)  # a whole window again
    out = lyt_ok(capsys, "export", "--out", str(tmp_path / "lists"), *way.group(2).split())
    assert window.plan()["used"] == int(way.group(1))
    snapshot = read_snapshot(tmp_path / "lists")
    assert len(snapshot.members) == MEMBERS and snapshot.cards.empty
    assert re.search(r"^  cards\.csv +- not pulled \(--kinds\)$", out, re.M)


def test_a_sampled_export_fits_and_writes_its_design(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "snap"
    out = lyt_ok(capsys, "export", "--out", str(folder), "--sample", "200")
    snapshot = read_snapshot(folder)
    design = snapshot.sample
    assert design is not None and design.population == MEMBERS and design.seed == 0
    assert len(snapshot.members) == MEMBERS and len(snapshot.cards) == design.size
    assert sample_size(out) == design.size >= 200
    assert re.search(r"^  sample_units\.csv\s+\d+ rows$", out, re.M)
    assert {"sample_strata.csv", "sample_units.csv"} <= {p.name for p in folder.iterdir()}
    assert window.plan()["used"] <= 500  # within the default share


def test_a_sampled_export_of_cards_alone_names_the_cards_not_pending_buckets(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Its sample line words the kinds it pulled: earlier it said the pending buckets were the
    sampled members' too, though none were pulled."""
    configure_lyt(small)
    small.set_plan("1000/hour")
    argv = ("export", "--out", str(tmp_path / "snap"), "--kinds", "cards", "--sample", "20")
    out = lyt_ok(capsys, *argv)
    assert "; the cards are the sampled members' only, and program totals" in out, out
    assert "pending buckets" not in out, out


def test_the_sample_seed_draws_another_sample(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "snap"
    argv = ("export", "--out", str(folder), "--sample", "50", "--sample-seed", "9")
    out = lyt_ok(capsys, *argv)
    design = read_snapshot(folder).sample
    assert design is not None and design.seed == 9
    assert "(seed 9; by program, status, joined)" in out


def test_budget_share_one_allows_what_the_default_share_refuses(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On ``SMALL``: the share, not the size, is the point."""
    configure_lyt(small)
    small.set_plan(SMALL_PLAN)
    argv = ("export", "--out", str(tmp_path / "snap"), "--sample", "60")
    code, _, err = lyt(capsys, *argv)
    assert code == 1  # 60 member reads do not fit in half the window ...
    assert "(--budget-share 1)" in err  # ... but in the whole of it, which the refusal says
    assert small.plan()["used"] == list_calls(SMALL)
    small.set_plan(SMALL_PLAN)
    out = lyt_ok(capsys, *argv, "--budget-share", "1")
    assert 50 < small.plan()["used"] <= 100
    assert SMALL_SAMPLED.search(out)


def test_a_sample_of_more_than_the_members_is_refused_as_the_whole_pull_it_is(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--sample 99999999`` of 150 members reads every member: refused for the budget, it
    says so (earlier it said only that the member reads need 150 calls, as if a sample), and
    the Python API's ``sample=`` words it the same way."""
    configure_lyt(small)
    small.set_plan(SMALL_PLAN)
    argv = ("export", "--out", str(tmp_path / "snap"), "--sample", "99999999")
    code, _, err = lyt(capsys, *argv)
    first = err.splitlines()[0]
    said = "the sample of 99,999,999 asked is more than the program's 150 members: it reads"
    assert code == 1 and f"{said} every member, a whole pull" in first, err
    assert small.plan()["used"] == list_calls(SMALL)  # the lists, as any pull refused so
    small.set_plan(SMALL_PLAN)
    with make_client(small) as client, pytest.raises(PullBudgetError) as refused:
        ProgramSnapshot.pull(client, sample=150)  # all of them: the same
    assert refused.value.census == (150, 150)
    assert "the sample of 150 asked is all of the program's 150 members" in str(refused.value)


def test_a_sample_of_more_than_the_members_that_fits_says_once_it_is_a_whole_pull(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--sample 99999999`` of 150 members within the share reads every member: the export
    says so once, worded as its refusal words it (earlier its sample line said only ``150
    of 150 members`` and that totals were estimated, with 95 % intervals)."""
    configure_lyt(small)
    small.set_plan(PLAN)
    folder = tmp_path / "snap"
    out = lyt_ok(capsys, "export", "--out", str(folder), "--sample", "99999999")
    design = read_snapshot(folder).sample
    assert design is not None and design.size == design.population == 150
    whole = (
        "the sample of 99,999,999 asked is more than the program's 150 members: it reads every"
        " member, a whole pull, so program totals are exact"
    )
    [line] = [line for line in out.splitlines() if line.startswith("Sample: ")]
    assert line.endswith(f"; {whole}") and out.count("whole pull") == 1, out
    assert "estimated" not in line and "95 %" not in line, line


def test_a_sampled_economics_report_says_it_is_estimated(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On ``SMALL``: what the report says of its sample does not depend on the size."""
    configure_lyt(small)
    small.set_plan(SMALL_PLAN)
    folder = tmp_path / "economics"
    out = lyt_ok(capsys, "report", "economics", "--out", str(folder), "--sample", "30")
    found = SMALL_SAMPLED.search(out)
    assert found, out
    size = int(found.group(1))
    assert 30 <= size < 38
    page = (folder / ECONOMICS_HTML).read_text()
    assert f"estimated from {size} of 150 members" in page and "95 % CI" in page
    assert (folder / "sample_units.csv").is_file()


class Audited(NamedTuple):
    """``lyt audit --sample 200`` run once under ``PLAN``: its folder and stdout."""

    folder: Path
    out: str


@pytest.fixture(scope="module")
def sampled_audit(large: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Audited:
    """The sampled audit both tests below read (only read: run once)."""
    large.set_plan(PLAN)
    folder = tmp_path_factory.mktemp("sampled_audit") / "reports"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["audit", "--out", str(folder), "--sample", "200"])
    assert code == 0, err.getvalue()
    return Audited(folder, out.getvalue())


def test_a_sampled_audit_says_its_member_findings_count_the_sample(
    sampled_audit: Audited,
) -> None:
    folder, out = sampled_audit
    size = sample_size(out)
    # Per-member rules: the count in the sample, and what it says of the program.
    assert (
        f"pending-bucket-not-activatable: none in the sample of {size} of 1,500 members; "
        "the program may still have some: at most about " in out
    )
    assert "not estimated" not in out
    assert (folder / "sample_strata.csv").is_file()


def test_a_sampled_audit_shows_its_estimates_in_whole_findings(sampled_audit: Audited) -> None:
    folder, out = sampled_audit
    counts = audit.summary(audit.run(read_snapshot(folder)))  # the frame: unrounded
    assert (counts["ci_high"] % 1 != 0).any()  # there is something to round
    table = out[out.index("  ci_high\n") : out.index("\ntotal ")]
    assert not re.search(r"\d\.\d", table), table
    written = pd.read_csv(folder / ESTIMATES_CSV, index_col="rule")
    for column in ("estimated", "ci_low", "ci_high"):
        assert pd.api.types.is_integer_dtype(written[column])
        assert written[column].tolist() == counts[column].round().astype(int).tolist()


def test_an_audit_refused_for_the_budget_fails_as_other_failed_pulls_do(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = lyt(capsys, "audit", "--out", str(tmp_path / "reports"))
    assert code == 2 and out == ""  # lyt audit's "could not run"
    assert err.startswith("lyt audit: pull stopped before its member reads")
    assert "(--sample " in err and "Traceback" not in err


def test_a_sampled_report_refused_for_the_budget_offers_its_own_checkpoint(
    window: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["report", "economics", "--sample", "900", "--out", str(tmp_path / "reports")]
    code, _, err = lyt(capsys, *argv)
    assert code == 2 and "paced over" in err
    assert "(--checkpoint pull-checkpoint)" in err and "lyt export" not in err
    paced = build_parser().parse_args([*argv, "--checkpoint", "pull-checkpoint"])  # it runs
    options = pull_options(paced)
    assert options.sample == 900 and options.checkpoint == "pull-checkpoint"


def test_drift_names_the_ways_it_cannot_take(
    small: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On ``SMALL``: what drift says does not depend on the size. Refused for its member
    reads, it ends with the ``lyt export --estimate`` that counts the same pull first, its
    ``--budget-share`` too, as ``lyt export`` does (earlier drift's refusal had no such line);
    the share it says is left is after the lists it counted and did not send, said so."""
    folder = tmp_path / "snap"
    configure_lyt(small)
    small.set_plan("100000/hour")  # a full snapshot (a sample's drift reads no member)
    assert lyt(capsys, "export", "--out", str(folder))[0] == 0
    small.set_plan(SMALL_PLAN)
    assert list_calls(SMALL) + len(SMALL["members"]) > 40  # more than its share, 0.4
    code, _, err = lyt(capsys, "drift", str(folder), "--budget-share", "0.4")
    assert code == 1  # an error, not drift (2)
    assert err.startswith("lyt drift: pull stopped before its member reads")
    # Its lists are counted from the snapshot, not sent: the share left is said as what it
    # holds after them (earlier "has 32 left" beside "sent 1 call", the lists unsaid).
    unsent = list_calls(SMALL) - 1  # all but the token request
    first = err.splitlines()[0]
    assert (
        f"of the call budget has {40 - 1 - unsent} left after its lists, {unsent} calls counted"
        " from the snapshot and not sent (the window had 100 of 100 left" in first
    ), first
    assert first.endswith("; the pull sent 1 call and nothing more") and small.plan()["used"] == 1
    # A sample's cards cannot be compared: no sample is offered, by either spelling.
    assert "sample=" not in err and "--sample" not in err
    assert "in Python: live = ProgramSnapshot.pull(client, kinds=" in err
    assert "snapshot.diff(live)" in err
    assert err.endswith(
        "\nTo know the cost first: lyt export --budget-share 0.4 --estimate --read-sample 100"
        " (walks the lists again and reads 100 members drawn at random, one call each: the"
        " calls expected, with a 95 % interval; nothing is pulled or written)\n"
    ), err
    assert "ProgramSnapshot.estimate" not in err  # the Python spelling, replaced


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "--sample", "0"], "--sample: must be a member count, a whole number from 1"),
        (["export", "--sample", "ten"], "--sample: must be a member count"),
        (["audit", "--sample", "-3"], "--sample: must be a member count"),
        (["report", "economics", "--sample", "1.5"], "--sample: must be a member count"),
        (["export", "--sample", "9", "--sample-seed", "-1"], "--sample-seed: must be a seed"),
        (["export", "--sample-seed", "4"], "--sample-seed: needs --sample N"),
        (["export", "--budget-share", "0"], "--budget-share: must be a number above 0"),
        (["audit", "--budget-share", "1.5"], "--budget-share: must be a number above 0"),
        (["report", "economics", "--budget-share", "nan"], "--budget-share: must be a number"),
        (["demo", "--budget-share", "half"], "--budget-share: must be a number above 0"),
    ],
)
def test_bad_values_exit_2_with_one_line_naming_the_option(
    large: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    large.set_plan(PLAN)
    code, _, err = lyt(capsys, *argv, "--out", str(tmp_path / "out"))
    command = " ".join(argv[: 2 if argv[0] == "report" else 1])
    assert code == 2
    assert err.startswith(f"lyt {command}: {message}") and err.count("\n") == 1
    assert large.plan()["used"] == 0  # nothing sent
    assert not (tmp_path / "out").exists()


def test_drift_exits_1_on_a_bad_budget_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = lyt(capsys, "drift", str(tmp_path), "--budget-share", "2")
    assert code == 1  # 2 is drift
    assert err == "lyt drift: --budget-share: must be a number above 0 and at most 1, got '2'\n"


def test_the_options_default_to_the_library_defaults() -> None:
    args = build_parser().parse_args(["export", "--out", "x"])
    assert args.budget_share is None and args.sample is None and args.sample_seed is None
    assert PullOptions().budget_share == DEFAULT_SHARE
