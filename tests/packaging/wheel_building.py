"""Shared by the packaging tests: the wheel built from a clean copy of this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")
_NOT_SOURCE_AT_ROOT = {"site", ".cache", ".hypothesis", "reports"}
"""Generated at the checkout's top: the docs site, render caches, reports written there."""


def _ignored(folder: str, names: list[str]) -> set[str]:
    """What a copy of the checkout leaves out of ``folder``."""
    skipped = shutil.ignore_patterns(*_NOT_SOURCE)(folder, names)
    if Path(folder) == ROOT:
        skipped |= _NOT_SOURCE_AT_ROOT & set(names)
    return set(skipped)


def build_wheel(work: Path) -> Path:
    """The wheel of this checkout, built under ``work`` from a copy holding only the
    project's files (a stale build/ folder could otherwise supply files the package
    declaration forgot)."""
    dist = work / "dist"
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_ignored)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(dist),
            str(source),
        ],
        check=True,
        cwd=work,
    )
    (wheel,) = dist.glob("lyt_toolkit-*.whl")
    return wheel


def outside_env() -> dict[str, str]:
    """This process's environment without the project's settings or Python paths."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("LYT_", "PYTHON"))}


def run_outside(
    *args: str | Path, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``args`` in ``cwd`` with :func:`outside_env`, capturing text; never raises on failure."""
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=outside_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
