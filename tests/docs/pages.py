"""The docs' pages and their code blocks, as the tests read them (docs/contributing.md).

Every ```python block of a hand-written page under docs/ is runnable: the page's blocks run
in page order in one namespace, against a sandbox of the page's own. ```py blocks are only
shown.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

WHAT_IF_PAGE = "how-to/economics-what-if.md"

RUN_WITH_OUTPUT = (WHAT_IF_PAGE,)
"""Pages whose every block ``test_pages`` runs in page order in one namespace, comparing
what each prints with the page: ``test_examples`` leaves them to it (running them again
there would prove less, at the same cost)."""

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", flags=re.MULTILINE | re.DOTALL)


def pages() -> list[Path]:
    """Every hand-written Markdown page, in a stable order (docs/_hooks is the build's code)."""
    return sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)


def blocks(
    page: Path | str, language: str = "python", section: str | None = None
) -> list[tuple[int, str]]:
    """``(line, code)`` of each fenced block in ``language``, within ``section`` (the text
    under that exact heading line, down to the next heading of its level or above)."""
    text = (
        (DOCS / page).read_text(encoding="utf-8")
        if isinstance(page, str)
        else page.read_text(encoding="utf-8")
    )
    offset = 0
    if section is not None:
        level = section.split(" ", 1)[0]
        start = text.index(f"\n{section}\n") + 1
        end_match = re.compile(rf"^#{{1,{len(level)}}} ", re.MULTILINE).search(
            text, start + len(section) + 1
        )
        offset, text = start, text[start : end_match.start() if end_match else len(text)]
    full = (
        (DOCS / page).read_text(encoding="utf-8")
        if isinstance(page, str)
        else page.read_text(encoding="utf-8")
    )
    return [
        (full.count("\n", 0, offset + m.start(2)) + 1, m.group(2))
        for m in _FENCE.finditer(text)
        if m.group(1) == language
    ]


def runnable_pages() -> list[Path]:
    return [p for p in pages() if blocks(p)]
