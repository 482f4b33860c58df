"""``lyt export --kinds``: only the frames named are pulled, over real HTTP, in the calls the
Python route (``ProgramSnapshot.pull(kinds=...)``) sends; a bad value is one line naming the
option."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot

DEFINITIONS = ("rewards", "reward_costs", "benefits", "card_definitions", "tier_structures")


@pytest.fixture(scope="module")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox() as sandbox:
        sandbox.set_plan("professional")  # its answers count the window's calls
        yield sandbox


@pytest.fixture
def service(fresh: Sandbox, configure_lyt: Callable[[Sandbox], None]) -> Sandbox:
    """``lyt`` run in the test talks to ``fresh``, its window whole."""
    configure_lyt(fresh)
    fresh.set_plan("professional")
    return fresh


def test_export_kinds_pulls_only_those_frames_in_the_calls_of_the_python_route(
    service: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    folder = tmp_path / "definitions"
    assert main(["export", "--out", str(folder), "--kinds", ",".join(DEFINITIONS)]) == 0
    sent = service.plan()["used"]
    out = capsys.readouterr().out
    snapshot = read_snapshot(folder)
    assert snapshot.kinds == frozenset(DEFINITIONS)
    assert len(snapshot.rewards) and len(snapshot.card_definitions)
    assert snapshot.members.empty and snapshot.cards.empty  # no member read
    assert re.search(r"^  members\.csv +- not pulled \(--kinds\)$", out, re.M)
    assert re.search(r"^  rewards\.csv +37 rows$", out, re.M)

    service.set_plan("professional")  # a whole window again
    with make_client(service) as client:
        python = ProgramSnapshot.pull(client, kinds=DEFINITIONS, progress=False)
    assert python.calls is not None and sent == python.calls.used == service.plan()["used"]
    with make_client(service) as client:
        whole = ProgramSnapshot.pull(client, progress=False).calls
    assert whole is not None and sent < whole.used  # the member tree spared


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["--kinds", "rewards,foo"],
            "lyt export: --kinds: unknown ['foo']; known: rewards, reward_costs, benefits,",
        ),
        (["--kinds", " , "], "lyt export: --kinds: name at least one of rewards,reward_costs,"),
        (
            ["--kinds", "rewards", "--sample", "5"],
            "lyt export: --sample: the kinds asked read no member (add cards or pending_buckets)",
        ),
        (["--kinds", "rewards", "--since", "old"], "lyt export: --kinds: not with --since"),
    ],
)
def test_a_bad_kinds_is_one_line_naming_the_option_and_sends_nothing(
    service: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    line: str,
) -> None:
    assert main(["export", "--out", str(tmp_path / "snap"), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(line)
    assert len(captured.err.splitlines()) == 1
    assert service.plan()["used"] == 0
    assert not (tmp_path / "snap").exists()


def test_an_audit_of_a_kinds_export_names_what_was_not_pulled_and_counts_only_rules_run(
    service: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``0 findings from 22 rules`` of a folder holding no member said the program was clean
    where nothing of the members was read, counting the rules left out for what they need."""
    from lyt_toolkit.audit import RULES
    from lyt_toolkit.frames.registry import FRAME_NAMES

    folder = tmp_path / "rewards-and-benefits"
    assert main(["export", "--out", str(folder), "--kinds", "rewards,benefits"]) == 0
    capsys.readouterr()
    assert main(["audit", "--base", str(folder), "--out", str(tmp_path / "audit")]) == 0
    lines = capsys.readouterr().out.splitlines()
    left_out = [r.id for r in RULES.values() if not r.needs <= {"rewards", "benefits"}]
    assert "active-reward-without-costs" in left_out
    assert re.fullmatch(rf"\d+ findings from {len(RULES) - len(left_out)} rules \(.*\)", lines[1])
    missing = [kind for kind in FRAME_NAMES if kind not in {"rewards", "benefits"}]
    assert lines[2] == (
        f"Not pulled (--kinds): {', '.join(missing)}; no rule read them, so finding nothing "
        f"there says nothing of them; left out, needing them: {', '.join(left_out)}"
    )
