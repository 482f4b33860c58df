"""What a ``lyt`` command and an import load at start-up, and how: checked in fresh
interpreters, as a user's shell starts them (no timing: what is loaded, built, collected).

``benchmarks/startup.py`` measures the CPU these save."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, cwd: Path = ROOT) -> list[str]:
    """The words ``code`` prints, run by a fresh interpreter in ``cwd`` with no ``LYT_``
    variable (and, outside the checkout, no ``.env``): no service is configured."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LYT_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd, env=env
    )
    return done.stdout.split()


HELP = """
import contextlib, io, sys
from lyt_toolkit.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(["--help"])
heavy = ("pandas", "numpy", "pyarrow", "pydantic", "httpx", "matplotlib", "fastapi")
print(*sorted(name for name in sys.modules if name.split(".")[0] in heavy))
"""


def test_lyt_help_loads_no_data_http_or_model_library() -> None:
    assert _run(HELP) == []


COLLECTIONS = """
import gc
from lyt_toolkit.cli import main
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if (
    phase == "start" and info["generation"] == 2) else None)
print(main(["apply", {plan!r}]), len(full), gc.isenabled(), gc.get_freeze_count())
"""


def test_lyt_apply_imports_its_modules_with_no_full_cycle_collection(tmp_path: Path) -> None:
    """``lyt apply`` of a missing file: its modules imported (pandas, pydantic, the client;
    the collector paused), then the file refused; no collection rescanned them all, and the
    collector is on again. ``main`` called with arguments (a notebook's, a test's) freezes
    nothing: the caller's objects stay collectable."""
    plan = str(tmp_path / "missing-plan.json")
    assert _run(COLLECTIONS.format(plan=plan)) == ["1", "0", "True", "0"]


OWN_PROCESS = """
import contextlib, gc, io, sys
from lyt_toolkit.cli import main
sys.argv = ["lyt", "apply", {plan!r}]
with contextlib.redirect_stderr(io.StringIO()):
    code = main()
tracked = sum(len(gc.get_objects(generation)) for generation in range(3))
print(code, 100 * tracked < gc.get_freeze_count(), gc.isenabled())
"""


def test_a_lyt_process_freezes_what_its_start_up_built(tmp_path: Path) -> None:
    """``lyt apply`` of a missing file as a process's own command line (``main()``): the
    objects its imports built are frozen, so the collections of its work scan none of them
    (the collector tracks under 1 % of what was frozen), and the collector is on again."""
    plan = str(tmp_path / "missing-plan.json")
    assert _run(OWN_PROCESS.format(plan=plan)) == ["1", "True", "True"]


FULL_WHILE_IMPORTING = """
import contextlib, gc, io, sys

def importing():
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False

full = []
gc.callbacks.append(lambda phase, info: full.append(1) if (
    phase == "start" and info["generation"] == 2 and importing()) else None)
"""
"""Counts in ``full`` each full collection started amid an import (not those of the work)."""


COMMAND = """
from lyt_toolkit.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main({args!r})
print(code, len(full), gc.isenabled())
"""

COMMANDS = {
    "verify": (["verify", "missing-plan.json", "--base", "empty"], 1),
    "report economics": (["report", "economics", "--base", "empty", "--out", "report"], 0),
    "audit": (["audit", "--base", "empty", "--out", "audit"], 0),
    "export": (["export", "--out", "export"], 1),
}
"""Each command, run where a saved snapshot of no rows is ``empty`` and no service is
configured, and its exit code: ``verify`` refuses the missing plan once its modules are
imported, ``export`` the missing service once it imported the pull; ``report`` and ``audit``
run to their end (the audit's rules, the economics and the charts: matplotlib)."""


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_imports_its_modules_with_no_full_cycle_collection(
    command: str, tmp_path: Path
) -> None:
    """No collection amid an import rescans the objects start-up built (collections of the
    work itself are not counted), and the collector is on again afterwards."""
    from lyt_toolkit.snapshot import ProgramSnapshot

    ProgramSnapshot.from_frames({}, pulled_at="2026-01-15T12:00:00Z").to_csv(tmp_path / "empty")
    args, code = COMMANDS[command]
    run = FULL_WHILE_IMPORTING + COMMAND.format(args=args)
    assert _run(run, tmp_path) == [str(code), "0", "True"]


FIRST_PULL = """
from lyt_toolkit import ProgramSnapshot
full.clear()  # those of importing the snapshot are not the pull's
try:
    ProgramSnapshot.pull(progress=False)
except Exception as exc:
    print(type(exc).__name__, len(full), gc.isenabled())
"""


def test_a_first_pull_imports_the_client_and_the_pull_with_no_full_cycle_collection(
    tmp_path: Path,
) -> None:
    """As in a notebook: the snapshot imported, then its first ``pull`` imports the client
    and the pull (refused after: no service configured)."""
    assert _run(FULL_WHILE_IMPORTING + FIRST_PULL, tmp_path) == ["ConfigurationError", "0", "True"]
