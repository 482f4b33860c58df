"""A resumed paced pull's bar counts every answer its checkpoint holds from its first line, over
real HTTP: a first run stopped by its budget share leaves member reads in the folder, and the
second run's lines, from the one drawn before any call, count them done, so the calls to
come they state are the ones the run then sends. Its first line with the calls in all is
drawn as they become known (the lists walked), before any member read. Before, the bar
counted an answer only as it was read back, and drew that line at its next redraw: at
20,000 members the first lines over-stated the calls to come by the thousands of reads still
to be given back (at this scale all are read back, and the pull done, before the first
redraw)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_types import StartSandbox
from interrupting import PacedLines, until_quiet, window_used

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.fill.answers import JOURNAL
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import NOW

PROGRAM = generate_program(
    members=150, rewards=5, benefits=2, card_definitions=2, tier_structures=1, seed=4
)
KINDS = ["programs", "members", "cards"]
"""Its token, 3 list pages and 150 member reads: 154 calls, no bucket list."""
SHARE = 60
"""The default share, 0.5, of a 120-call window: the first run stops there, waiting."""
_FIGURES = re.compile(
    r"^([\d,]+) (?:of ([\d,]+) calls|calls done); ([\d,]+) sent(?:, ([\d,]+) from the checkpoint)?"
)


def _figures(line: str) -> tuple[int, int | None, int, int]:
    """A bar line's calls done, in all (None: not known yet), sent and from the checkpoint."""
    found = _FIGURES.match(line)
    assert found is not None, line
    done, total, sent, recalled = (
        None if g is None else int(g.replace(",", "")) for g in found.groups()
    )
    assert done is not None and sent is not None
    return done, total, sent, recalled or 0


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM) as sb:
        sb.set_clock(NOW)
        yield sb


def _settings(sb: Sandbox) -> dict[str, Any]:
    return {"base_url": sb.base_url, "env_file": None, **sb.credentials.as_client_kwargs()}


def _stopped_at_its_share(sb: Sandbox, folder: Path) -> None:
    """A paced pull into ``folder`` run until the window counts its share and it sends no more
    (it waits for the reset, on a fixed clock never), then cancelled."""

    async def run() -> None:
        work = ProgramSnapshot.apull(_settings(sb), progress=False, checkpoint=folder, kinds=KINDS)
        task = asyncio.ensure_future(work)
        try:
            assert await asyncio.to_thread(until_quiet, sb, SHARE, lambda: not task.done()) == SHARE
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    asyncio.run(run())


def test_a_resumed_pull_s_bar_counts_the_answers_its_checkpoint_holds_from_its_first_line(
    program: Sandbox, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoint"
    program.set_plan("120/hour")
    _stopped_at_its_share(program, folder)
    held = len({json.loads(line)["key"] for line in (folder / JOURNAL).open()})
    assert held == SHARE - 1  # every call of its share but its token: 3 list pages, 56 reads
    program.advance_clock(3600)  # a window the first run was not in
    program.set_plan("1000000/hour")
    told = PacedLines()
    ProgramSnapshot.pull(_settings(program), progress=told, checkpoint=folder, kinds=KINDS)
    sent = window_used(program)  # its token and the 94 reads the folder does not hold
    assert sent == 154 - held

    # Drawn before any call: every answer the folder holds is done (was: "0 calls done; 0 sent").
    assert _figures(told.lines[0]) == (held, None, 0, held), told.lines[0]
    known = [_figures(line) for line in told.lines if _figures(line)[1] is not None]
    # Drawn as the lists are walked and the calls in all known, before any member read: its
    # token sent, the rest to come the 94 reads the folder does not hold (was, had it been
    # drawn then: "4 of 154 calls; 1 sent, 3 from the checkpoint", 150 to come).
    assert known[0] == (1 + held, 154, 1, held), told.lines
    for done, total, in_line, recalled in known:
        assert recalled == held, told.lines
        assert done == in_line + held
        assert total is not None and total - done == sent - in_line  # the calls still to come
    assert known[-1][0] == known[-1][1] == 154
