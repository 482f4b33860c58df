"""``lyt export --estimate`` counts the calls of the pull its options ask for, from the shell,
over real HTTP: it sends only the estimate's calls, writes nothing and prints the estimate's
text; its options are refused naming them; and a default pull refused during its member reads
quotes what it needs in all and names ``--estimate`` as the way to know the cost first.

A 300-member program, whose plan each test puts in force with its whole window: the sandbox's
clock is fixed, so two estimates in two fresh windows read the same budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

PROGRAM = generate_program(members=300, rewards=5, benefits=3, card_definitions=2, seed=4)
PLAN = "10000/hour"


@pytest.fixture(scope="module")
def sandbox(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """``PROGRAM`` served (only read: started once)."""
    with start_sandbox(PROGRAM) as sb:
        yield sb


@pytest.fixture
def program(sandbox: Sandbox, configure_lyt: Callable[[Sandbox], None], tmp_path: Path) -> Sandbox:
    """``sandbox`` under ``PLAN``, its window whole, ``lyt`` pointed at it from ``tmp_path``."""
    configure_lyt(sandbox)
    sandbox.set_plan(PLAN)
    return sandbox


def lyt(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``lyt argv``: its exit code (argparse's too, for an option it does not know), stdout
    and stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("options", "keywords"),
    [
        (["--read-sample", "40"], {"read_sample": 40}),
        (
            ["--kinds", "rewards,members", "--budget-share", "0.3"],
            {"kinds": ["rewards", "members"], "budget_share": 0.3},
        ),
    ],
    ids=["read sample", "kinds and share"],
)
def test_an_estimate_sends_only_its_calls_writes_nothing_and_prints_the_estimate(
    program: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    keywords: dict[str, object],
) -> None:
    """Earlier ``--estimate`` was no option (argparse refused it): a terminal user learnt a
    pull's cost only from its refusal."""
    code, out, err = lyt(capsys, "export", "--out", str(tmp_path / "snap"), "--estimate", *options)
    assert code == 0, err
    used = program.plan()["used"]
    text, calls = out.splitlines()
    assert not any(tmp_path.iterdir())  # nothing written, not even the --out folder
    program.set_plan(PLAN)  # the same budget again, for the Python estimate
    with make_client(program) as client:
        estimate = ProgramSnapshot.estimate(client, **keywords)  # type: ignore[arg-type]
    assert text == str(estimate)
    assert used == estimate.spent  # the sandbox counted the estimate's calls and no more
    assert calls == (
        f"API calls used: {used}; remaining this window: {10000 - used:,} of 10,000; resets at "
        f"{estimate.resets_at:%Y-%m-%d %H:%M:%S} UTC (the estimate's own; nothing pulled or "
        "written)"
    )
    if "read_sample" in keywords:
        assert estimate.projected is not None and estimate.projected.members == 40
        assert text.startswith("calls needed: about ") and ", from 40 members read); " in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--read-sample", "10"],
            "--read-sample: only with --estimate (the members the estimate reads to project the"
            " bucket lists)",
        ),
        (["--estimate", "--read-sample", "0"], "--read-sample: 0 members; read 1 at least"),
        (["--estimate", "--read-sample", "-1"], "--read-sample: -1 members; read 1 at least"),
        (
            ["--estimate", "--read-sample", "x"],
            "--read-sample: expected a whole number of members, got 'x'",
        ),
        (["--estimate", "--sample", "20"], "--sample: not with --estimate"),
        (["--estimate", "--checkpoint", "kept"], "--checkpoint: not with --estimate"),
        (["--estimate", "--since", "old"], "--since: not with --estimate"),
    ],
)
def test_an_option_the_estimate_cannot_take_is_refused_naming_it(
    program: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    """One line naming the option, exit 2, nothing sent or written (earlier argparse refused
    ``--estimate`` and ``--read-sample`` alike, as options it did not know)."""
    code, out, err = lyt(capsys, "export", "--out", str(tmp_path / "snap"), *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"lyt export: {message}") and err.count("\n") == 1, err
    assert program.plan()["used"] == 0
    assert not any(tmp_path.iterdir())


def test_an_export_without_out_or_estimate_is_refused_naming_out(
    program: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` may be left out only with ``--estimate``."""
    code, out, err = lyt(capsys, "export")
    assert (code, out) == (2, "")
    assert err == "lyt export: --out: give the directory to write to (or --estimate)\n"
    assert program.plan()["used"] == 0


NEEDS = re.compile(r"; in all it needs about ([\d,]+) calls \(95 % ([\d,]+) to ([\d,]+)\)")


def test_a_refusal_during_the_member_reads_quotes_the_calls_needed_in_all(
    program: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The share holds the lists and every member read, not the bucket lists after them: the
    pull stops after its first 100 reads. Earlier the refusal said what the rest needed at
    least and no more; it now quotes the calls the pull needs in all, projected from those
    reads, with no call more, and the estimate that tells them first, which runs as spelled."""
    with make_client(program) as client:
        least = ProgramSnapshot.estimate(client).at_least  # the lists and every member read
    plan = f"{2 * (least + 5)}/hour"
    program.set_plan(plan)
    code, out, err = lyt(capsys, "export", "--out", str(tmp_path / "snap"))
    assert (code, out) == (1, "")
    first, *ways, know = err.splitlines()
    assert first.startswith("lyt export: pull stopped during its member reads: "), first
    sent = re.search(r"the pull sent (\d+) calls and nothing more", first)
    assert sent and int(sent.group(1)) == program.plan()["used"]  # no call to get the figure
    needs = NEEDS.search(first)
    assert needs and first.endswith("), projected from the members read"), first
    about, low, high = (int(n.replace(",", "")) for n in needs.groups())
    assert low <= about <= high
    assert ways[0] == "Ways forward:" and all(line.startswith("  - ") for line in ways[1:])
    assert know.startswith(
        "To know the cost first: lyt export --estimate --read-sample 100 (walks the lists again"
    ), know
    program.set_plan(PLAN)
    with make_client(program) as client:
        ProgramSnapshot.pull(client, progress=False)
    assert low <= program.plan()["used"] <= high  # the pull's calls, in the interval quoted
    program.set_plan(plan)
    command = know.split(": ", 1)[1].split(" (")[0].split()
    assert command[:2] == ["lyt", "export"]
    code, out, err = lyt(capsys, *command[1:])
    assert code == 0, err
    assert out.startswith("calls needed: about ") and ", from 100 members read); " in out
