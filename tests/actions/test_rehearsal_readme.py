"""The README's "Rehearse, then apply" example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _section_code(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1, f"README section {title!r}: expected one python block"
    return blocks[0]


def test_the_readme_rehearsal_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    code = _section_code("Rehearse, then apply")
    exec(compile(code, f"{README}:Rehearse, then apply", "exec"), {})
    assert capsys.readouterr().out == "3\n"
