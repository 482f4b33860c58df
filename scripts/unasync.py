"""Write the sync half of each sync/async pair from its async half (after httpcore's).

Each module listed in ``MODULES`` holds its async classes or functions as the source, after
the line ``END``, and their sync twins, generated from them, between ``BEGIN`` and ``END``. The sync
code is the async code with the token-level substitutions of ``SUBS`` (``async def`` ->
``def``, ``await`` dropped, ``AsyncRewards`` -> ``Rewards``, ``aiter_items`` ->
``iter_items``, ...) and two line rules:

- a docstring line ``\"\"\"Async twin of ...\"\"\"`` is the async side's alone and is dropped;
- a comment line ``# sync: TEXT`` is the sync side's alone: it becomes ``TEXT`` at the same
  indentation (``# sync:`` alone, a blank line). The sync side's docstrings are written so,
  under the async ``Async twin of`` docstring they replace.

The result is formatted with ``ruff format``. Usage, from the repository's root:

    .venv/bin/python scripts/unasync.py          # rewrite the generated parts
    .venv/bin/python scripts/unasync.py --check  # exit 1 naming each module out of date

``make lint`` and ``make test`` run the check, and so does ``tests/test_unasync.py``. This
script is not part of the package (``pyproject.toml`` ships ``lyt_toolkit*`` only).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = "lyt_toolkit/client/resources"
MODULES = (
    "lyt_toolkit/client/pagination.py",
    f"{RESOURCES}/_base.py",
    f"{RESOURCES}/benefits.py",
    f"{RESOURCES}/card_definitions.py",
    f"{RESOURCES}/management.py",
    f"{RESOURCES}/oauth.py",
    f"{RESOURCES}/programs.py",
    f"{RESOURCES}/promotion_tiers.py",
    f"{RESOURCES}/rewards.py",
    f"{RESOURCES}/tier_structures.py",
)
"""The modules whose sync code is generated, as paths from the repository's root."""

BEGIN = "# unasync: generated from the async code below by scripts/unasync.py; do not edit"
END = "# unasync: end of the generated sync code; its async source follows"

SUBS = (
    (r"AsyncIterator", "Iterator"),
    (r"Awaitable\[(\w+(?:\[\w+\])?)\]", r"\1"),
    (r"AsyncTransport", "SyncTransport"),
    (r"AsyncResource", "SyncResource"),
    (r"Async([A-Z]\w*)", r"\1"),
    (r"async def", "def"),
    (r"async for", "for"),
    (r"async with", "with"),
    (r"await ", ""),
    (r"agather", "gather"),
    (r"aiter_items", "iter_items"),
    (r"aiter_pages", "iter_pages"),
    (r"apull_frame", "pull_frame"),
    (r"awalk_tree", "walk_tree"),
    (r"awalk", "walk"),
)
"""Async token -> sync token, applied in this order, each a whole word."""

_SUBS = [(re.compile(rf"\b{pattern}"), repl) for pattern, repl in SUBS]
_TWIN_DOC = re.compile(r'^\s*"""Async twin of .*"""$')
_SYNC_LINE = re.compile(r"^(\s*)# sync:(?: (.*))?$")


def unasync_line(line: str) -> str | None:
    """The sync form of one source line, or None for a line of the async side alone."""
    if _TWIN_DOC.match(line):
        return None
    sync_only = _SYNC_LINE.match(line)
    if sync_only:
        indent, text = sync_only.groups()
        return f"{indent}{text}" if text else ""
    for pattern, repl in _SUBS:
        line = pattern.sub(repl, line)
    return line


def generated(text: str, where: str) -> str:
    """The module ``text`` with its sync code generated again from its async code."""
    lines = text.split("\n")
    if lines.count(BEGIN) != 1 or lines.count(END) != 1:
        raise SystemExit(f"{where}: needs one line each of BEGIN and END (scripts/unasync.py)")
    begin, end = lines.index(BEGIN), lines.index(END)
    source = lines[end + 1 :]
    _check_docstrings(source, where, end + 2)
    sync = [line for line in map(unasync_line, source) if line is not None]
    return _formatted("\n".join([*lines[: begin + 1], *sync, END, *source]), where)


def _check_docstrings(source: list[str], where: str, first: int) -> None:
    """Each ``Async twin of`` docstring is one line with the sync docstring under it."""
    for number, line in enumerate(source):
        if not line.lstrip().startswith('"""Async twin of'):
            continue
        following = [other for other in source[number + 1 :] if other.strip()][:1]
        if not _TWIN_DOC.match(line) or not following or not _SYNC_LINE.match(following[0]):
            raise SystemExit(
                f"{where}:{first + number}: an 'Async twin of' docstring is one line, followed"
                " by the sync docstring as '# sync:' lines (scripts/unasync.py)"
            )


def _formatted(text: str, where: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", where, "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{where}: ruff format failed:\n{done.stderr}")
    return done.stdout


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for module in MODULES:
        path = ROOT / module
        text = path.read_text()
        expected = generated(text, module)
        if expected == text:
            continue
        stale.append(module)
        if not check:
            path.write_text(expected)
    if check and stale:
        print("out of date with their async source (run scripts/unasync.py):", file=sys.stderr)
        for module in stale:
            print(f"  {module}", file=sys.stderr)
        return 1
    for module in [] if check else stale:
        print(f"generated the sync code of {module}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
