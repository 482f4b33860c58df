"""What a ``lyt`` command and an import load at start-up, and how: checked in fresh
interpreters, as a user's shell starts them (no timing: what is loaded, built, collected).

``benchmarks/startup.py`` measures the CPU these save."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> list[str]:
    """The words ``code`` prints, run by a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
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
print(main(["apply", {plan!r}]), len(full), gc.isenabled())
"""


def test_lyt_apply_imports_its_modules_with_no_full_cycle_collection(tmp_path: Path) -> None:
    """``lyt apply`` of a missing file: its modules imported (pandas, pydantic, the client;
    the collector paused), then the file refused; no collection rescanned them all, and the
    collector is on again."""
    plan = str(tmp_path / "missing-plan.json")
    assert _run(COLLECTIONS.format(plan=plan)) == ["1", "0", "True"]
