"""The declared lower bounds work: the package with every dependency at its lower bound.

``constraints-lowest.txt`` pins each ``[project]`` dependency of pyproject.toml to
its lower bound (the first test checks they agree). The wheel is installed (by uv) with
those pins into a new virtual environment under the test's temporary folder, with
pytest and Hypothesis at the versions of ``constraints.txt``; there ``lyt demo``
runs, and a copy of the tests (not of the package) runs a subset that talks to the
sandbox over HTTP: the client, frames, snapshots, bulk inputs, reports and the
sandbox's lifetime.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest
from packaging.version import Version
from uv import find_uv_bin
from wheel_building import ROOT, outside_env, run_outside

LOWEST = ROOT / "constraints-lowest.txt"
TOOLS = ("pytest", "hypothesis")
SUBSET = (
    "tests/client/test_resources.py",
    "tests/client/test_pagination.py",
    "tests/client/test_async.py",
    "tests/client/test_retries.py",
    "tests/frames/test_client_frames.py",
    "tests/frames/test_snapshot.py",
    "tests/frames/test_schemas.py",
    "tests/inputs",
    "tests/reports/test_read_back.py",
    "tests/reports/test_audit_report.py",
    "tests/sandbox/test_lifetime.py",
)


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def _lower_bounds() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for requirement in project["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([^,\s]+)(,.*)?", requirement)
        assert found, f"{requirement!r}: every dependency needs a lower bound (>=)"
        bounds[found[1].lower().replace("_", "-")] = found[2]
    return bounds


def _same_versions(pins: dict[str, str], bounds: dict[str, str]) -> bool:
    return pins.keys() == bounds.keys() and all(
        Version(pins[name]) == Version(bounds[name]) for name in bounds
    )


def test_the_lowest_pins_are_the_declared_lower_bounds() -> None:
    pins, bounds = _pins(LOWEST), _lower_bounds()
    assert _same_versions(pins, bounds), (pins, bounds)


@pytest.fixture(scope="module")
def lowest(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new environment: the wheel, its dependencies at their lower bounds; its bin folder.

    uv installs them (``test_wheel.py`` installs the wheel with pip, as a user would): on
    the loaded two-core machine (2026-12-07) the same set took pip 14 s of CPU and 39 s,
    uv 3 s and 11 s. It byte-compiles nothing: Python compiles what the tests import.
    """
    env_dir = tmp_path_factory.mktemp("lowest") / "venv"
    venv.create(env_dir, with_pip=False)
    tools = _pins(ROOT / "constraints.txt")
    subprocess.run(
        [
            find_uv_bin(),
            "pip",
            "install",
            "--quiet",
            "--python",
            env_dir / "bin" / "python",
            "--only-binary=:all:",
            "-c",
            str(LOWEST),
            str(wheel),
            *(f"{name}=={tools[name]}" for name in TOOLS),
        ],
        check=True,
        env=outside_env(),
    )
    return env_dir / "bin"


def _pip(bin_dir: Path) -> list[str | Path]:
    """The running pip, working on the environment of ``bin_dir``."""
    python = bin_dir / "python"
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", python]


def _installed(bin_dir: Path) -> dict[str, str]:
    out = subprocess.run(
        [*_pip(bin_dir), "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
        env=outside_env(),
    )
    return _pins_text(out.stdout)


def _pins_text(text: str) -> dict[str, str]:
    pairs = (line.split("==") for line in text.splitlines() if "==" in line)
    return {name.lower().replace("_", "-"): version for name, version in pairs}


def test_every_dependency_is_at_its_lower_bound(lowest: Path) -> None:
    installed = _installed(lowest)
    bounds = _lower_bounds()
    assert _same_versions({name: installed[name] for name in bounds}, bounds), installed


def test_lyt_demo_runs_at_the_lower_bounds(lowest: Path, tmp_path: Path) -> None:
    out = run_outside(lowest / "lyt", "demo", cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "findings" in out.stdout
    assert any((tmp_path / "reports").rglob("*.csv"))


def test_the_http_tests_pass_at_the_lower_bounds(lowest: Path, tmp_path: Path) -> None:
    # A copy of the tests and what they read, without the package: the one imported
    # is the installed one.
    for name in ("tests", "data"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    out = run_outside(
        lowest / "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *SUBSET,
        cwd=tmp_path,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    assert re.search(r"\b\d{2,} passed\b", out.stdout), out.stdout[-500:]
    assert " failed" not in out.stdout and " skipped" not in out.stdout, out.stdout[-2000:]
