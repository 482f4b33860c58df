"""The README is the landing page: the two commands first, a short example that runs,
links that lead somewhere, and no more than 200 lines."""

from __future__ import annotations

import re

import pytest

from .pages import ROOT

README = ROOT / "README.md"


def _text() -> str:
    return README.read_text(encoding="utf-8")


def test_the_quick_start_starts_with_the_two_commands() -> None:
    quick_start = _text().split("\n## Quick start\n", 1)[1]
    block = re.search(r"```bash\n(.*?)```", quick_start, re.S)
    assert block and quick_start.lstrip().startswith("```bash")
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["make demo", "make test"]


def test_the_readme_is_short() -> None:
    assert len(_text().splitlines()) <= 200


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", _text())
    local = [link for link in links if "://" not in link]
    assert local
    for link in local:
        assert (ROOT / link).exists(), link
    screenshot = ROOT / "docs" / "assets" / "liability.png"
    assert screenshot.stat().st_size < 200_000


def test_the_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = re.findall(r"```python\n(.*?)```", _text(), re.S)
    namespace: dict[str, object] = {}
    exec(compile(code, f"{README}:example", "exec"), namespace)
    results = namespace["results"]
    assert list(results["outcome"]) == ["succeeded"]  # type: ignore[index]
    assert len(namespace["findings"]) > 0  # type: ignore[arg-type]
    assert namespace["rehearsal"].calls == 2  # type: ignore[attr-defined]
