"""The parts of the docs generated from the code, committed in the pages that show them.

A page holds each between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->``,
so it reads whole where the repository is browsed as files. ``python docs/_hooks/generated.py``
writes them again from the code; ``--check`` lists the pages that are out of date (exit 1),
as the build (``hooks.py``) and the tests do.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
WRITE = "python docs/_hooks/generated.py"
"""How to bring the pages up to date, as the errors say it."""


def frame_schemas() -> str:
    from lyt_toolkit.frames import schemas_markdown

    return schemas_markdown()


def economics_schemas() -> str:
    from lyt_toolkit.economics import ECONOMICS_SCHEMAS, ESTIMATES
    from lyt_toolkit.frames import schemas_markdown

    return schemas_markdown([*ECONOMICS_SCHEMAS.values(), ESTIMATES])


def what_if_schemas() -> str:
    from lyt_toolkit.economics import DEFINITION_CHANGE, HEADLINE_CHANGE, MISPRICING_CHANGE
    from lyt_toolkit.frames import schemas_markdown
    from lyt_toolkit.whatif import EDITS, SWEEP

    return schemas_markdown([HEADLINE_CHANGE, DEFINITION_CHANGE, MISPRICING_CHANGE, EDITS, SWEEP])


def audit_rules() -> str:
    from lyt_toolkit.audit import catalogue_markdown

    return catalogue_markdown()


def program_files() -> str:
    """The program file format, as data/README.md describes it."""
    return (ROOT / "data" / "README.md").read_text(encoding="utf-8").strip()


def _parsers(
    parser: argparse.ArgumentParser, name: str, about: str | None
) -> Iterator[tuple[str, str | None, argparse.ArgumentParser]]:
    yield name, about, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}", helps.get(sub_name))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _argument(action: argparse.Action) -> str:
    """How an argument is written on the command line: ``--out FILE``, ``SNAPSHOT_DIR``."""
    if isinstance(action, argparse._SubParsersAction):
        return "COMMAND"
    metavar = action.metavar or (
        "{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest.upper()
    )
    if not action.option_strings:
        return str(metavar)
    takes = "" if action.nargs == 0 else f" {metavar}"
    return ", ".join(f"{option}{takes}" for option in action.option_strings)


def _help(action: argparse.Action, prog: str) -> str:
    """An argument's help as ``--help`` prints it (``%(default)s`` and the like filled in)."""
    if isinstance(action, argparse._SubParsersAction):
        return "one of: " + ", ".join(f"`{name}`" for name in action.choices)
    return (action.help or "") % {**vars(action), "prog": prog}


def lyt_help() -> str:
    """Every ``lyt`` command: what it does and a table of its arguments, from the parser
    (the same on every Python version, unlike argparse's help layout)."""
    from lyt_toolkit.cli import build_parser

    parts = []
    for name, about, parser in _parsers(build_parser(), "lyt", None):
        parts += [f"### `{name}`", "", _cell(about or parser.description or ""), ""]
        shown = [a for a in parser._actions if a.help != argparse.SUPPRESS and a.dest != "help"]
        parts += ["| argument | what it does |", "|---|---|"]
        for action in shown:
            parts.append(f"| `{_argument(action)}` | {_cell(_help(action, parser.prog))} |")
        parts.append("")
    return "\n".join(parts).rstrip()


GENERATED: dict[str, Callable[[], str]] = {
    "frame-schemas": frame_schemas,
    "economics-schemas": economics_schemas,
    "what-if-schemas": what_if_schemas,
    "audit-rules": audit_rules,
    "lyt-help": lyt_help,
    "program-files": program_files,
}


def fill(markdown: str) -> str:
    """``markdown`` with each generated part as the code makes it now: between its
    ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->`` lines (added when
    missing)."""
    for name, make in GENERATED.items():
        start, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
        if start not in markdown:
            continue
        before, _, rest = markdown.partition(start)
        after = rest.partition(end)[2] if end in rest else rest
        markdown = f"{before}{start}\n{make()}\n{end}{after}"
    return markdown


def pages() -> list[Path]:
    """The pages holding a generated part."""
    return sorted(
        p for p in DOCS.rglob("*.md") if "<!-- generated: " in p.read_text(encoding="utf-8")
    )


def stale() -> list[Path]:
    """The pages whose generated parts are not what the code makes now."""
    return [p for p in pages() if fill(text := p.read_text(encoding="utf-8")) != text]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        out_of_date = stale()
        for page in out_of_date:
            print(f"{page.relative_to(ROOT)} is out of date with the code: run {WRITE}")
        return 1 if out_of_date else 0
    for page in stale():
        page.write_text(fill(page.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
