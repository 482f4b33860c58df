"""One saved plan's calls as ``lyt plan``, ``lyt rehearse`` and a paced ``lyt apply`` say them,
over real HTTP: each figure names what it counts (the re-read unpaced or a chunk at a time,
the token request), so they reconcile with the calls the service counted."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from interrupting import window_used

from lyt_toolkit import actions
from lyt_toolkit.actions.chunked import CHUNK_MOST
from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot


@pytest.mark.usefixtures("professional")
def test_plan_rehearse_and_a_paced_apply_say_calls_the_service_count_reconciles(
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One create more than a chunk holds: paced, two chunks each re-read the card
    definition and a names listing the boundary cuts. Earlier ``lyt plan`` said 111 calls,
    ``lyt rehearse`` "lyt apply sends 112", the paced apply 113 and the service counted 114,
    no line saying why."""
    base, edited, path = tmp_path / "base", tmp_path / "edited", tmp_path / "plan.json"
    fresh_pulled.to_csv(base)
    edit = actions.edit(fresh_pulled)
    creates = CHUNK_MOST + 1
    added = pd.DataFrame(
        {
            "name": [f"Counted {i:03d}" for i in range(creates)],
            "type": "POINTS",
            "points_value": 5,
            "card_definition_id": str(edit.card_definitions["id"].iloc[0]),
        }
    )
    edit.benefits = pd.concat([edit.benefits, added], ignore_index=True)
    ProgramSnapshot.from_frames(
        edit.frames(), source=fresh_pulled.source, pulled_at=fresh_pulled.pulled_at
    ).to_csv(edited)
    configure_lyt(fresh)

    assert main(["plan", "--base", str(base), "--edited", str(edited), "--out", str(path)]) == 2
    out = capsys.readouterr().out
    summary = re.search(r"; (\d+) calls \((\d+) re-reads, then (\d+) writes\)", out)
    assert summary is not None, out
    calls, reads, writes = (int(n) for n in summary.groups())
    assert writes == creates
    said = re.search(
        r"^Calls: lyt apply sends these (\d+); with --paced (\d+) \((\d+) re-reads, not (\d+):"
        r" .*; the service counts 1 call more a run, its token request",
        out,
        re.M,
    )
    assert said is not None, out
    paced, chunked = int(said[2]), int(said[3])
    assert (int(said[1]), int(said[4])) == (calls, reads)
    assert paced == chunked + writes > calls  # the chunks re-read what both need

    assert main(["rehearse", str(path), "--base", str(base)]) == 0
    out = capsys.readouterr().out
    rehearsed = re.search(
        r"Calls the run sent: (\d+) \(its token request, .*; lyt apply sends (\d+) on a service"
        r" .*; with --paced (\d+) \((\d+) re-reads",
        out,
    )
    assert rehearsed is not None, out
    assert [int(n) for n in rehearsed.groups()] == [writes + 1, calls + 1, paced + 1, chunked]

    used = window_used(fresh)
    assert main(["apply", str(path), "--paced"]) == 0
    out = capsys.readouterr().out
    assert f"; {paced} calls ({chunked} re-reads, then {writes} writes)" in out, out
    counted = re.search(
        r"^Calls: this run sends the (\d+) above, plus any retries; with its token request,"
        r" sent first, the service counts (\d+)$",
        out,
        re.M,
    )
    assert counted is not None, out
    assert int(counted[1]) == paced
    assert window_used(fresh) - used == int(counted[2]) == paced + 1
