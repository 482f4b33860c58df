"""One version, written in lyt_toolkit/_version.py: the package, the distribution, ``lyt
--version`` and the newest released version of CHANGELOG.md all say it."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lyt_toolkit
from lyt_toolkit.cli import main

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
PYPROJECT = CHANGELOG.with_name("pyproject.toml")
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def _releases() -> list[tuple[str, str]]:
    return RELEASE.findall(CHANGELOG.read_text(encoding="utf-8"))


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_the_newest_released_version_in_the_changelog_is_the_package_version() -> None:
    releases = _releases()
    assert releases, "CHANGELOG.md names no released version (## [X.Y.Z] - YYYY-MM-DD)"
    assert releases[0][0] == lyt_toolkit.__version__


def test_the_changelog_lists_versions_newest_first_with_their_dates() -> None:
    releases = _releases()
    versions = [_key(v) for v, _ in releases]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [d for _, d in releases]
    assert dates == sorted(dates, reverse=True)


def test_the_changelog_keeps_an_unreleased_section_first() -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    assert text.index("## [Unreleased]") < text.index(f"## [{lyt_toolkit.__version__}]")


def test_pyproject_reads_the_version_from_the_package() -> None:
    text = PYPROJECT.read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]$', text, re.MULTILINE)
    assert 'version = { attr = "lyt_toolkit._version.__version__" }' in text
    assert not re.search(r'^version = "', text, re.MULTILINE)


def test_the_installed_distribution_has_the_package_version() -> None:
    # An editable install records the version when installed: reinstall after a bump.
    assert importlib.metadata.version("lyt-toolkit") == lyt_toolkit.__version__


def test_lyt_version_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"lyt {lyt_toolkit.__version__}\n"


def test_lyt_version_from_the_shell() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lyt_toolkit.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == f"lyt {lyt_toolkit.__version__}\n"
