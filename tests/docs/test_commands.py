"""The ``lyt`` commands the docs spell in prose (`` `lyt apply PLAN_FILE --paced` ``) name
options their command has, and a usage line (options in brackets) names every one of them or
ends with ``...``: the pages, the README and the notebooks' text, against the real parser."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from lyt_toolkit.cli import build_parser

from .pages import DOCS, ROOT, pages

SOURCES = [*pages(), ROOT / "README.md", *sorted((ROOT / "notebooks").glob("*.ipynb"))]
_SPAN = re.compile(r"`((?:[\w./]*/)?lyt [^`]+)`")
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _text(source: Path) -> str:
    """The prose of ``source``, one line (a span may wrap): a notebook's markdown cells only."""
    if source.suffix == ".ipynb":
        cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = source.read_text(encoding="utf-8")
    return " ".join(text.split())


def _command(words: list[str]) -> tuple[str, argparse.ArgumentParser]:
    """The deepest subcommand ``words`` name, and its parser."""
    parser, name = build_parser(), "lyt"
    for word in words:
        subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subparsers or word not in subparsers[0].choices:
            break
        parser, name = subparsers[0].choices[word], f"{name} {word}"
    return name, parser


def _spans(source: Path) -> list[str]:
    return [m.group(1) for m in _SPAN.finditer(_text(source))]


@pytest.mark.parametrize("source", SOURCES, ids=[str(s.relative_to(ROOT)) for s in SOURCES])
def test_every_lyt_command_the_prose_spells_has_its_options(source: Path) -> None:
    wrong = []
    for span in _spans(source):
        name, parser = _command(span.split()[1:])
        options = {o for a in parser._actions for o in a.option_strings}
        named = set(_OPTION.findall(span))
        wrong += [f"{span!r}: {name} has no {o}" for o in sorted(named - options)]
        if "[--" in span and not span.rstrip().endswith("..."):  # a usage line: all of them
            missing = options - named - {"-h", "--help"}
            wrong += [f"{span!r}: names neither {o} nor '...'" for o in sorted(missing)]
    assert not wrong, "\n".join(wrong)


def test_the_prose_spells_lyt_commands() -> None:
    spans = [span for source in SOURCES for span in _spans(source)]
    assert len(spans) > 100
    assert sum("[--" in span for span in spans) >= 5
    assert DOCS / "how-to" / "edit-as-a-table.md" in SOURCES


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """``lyt`` and every subcommand's parser, by name, depth first."""
    found, todo = [], [("lyt", build_parser())]
    while todo:
        name, parser = todo.pop()
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {word}", sub) for word, sub in action.choices.items()]
    return found


def test_every_option_of_every_lyt_command_says_what_it_does() -> None:
    """``lyt COMMAND --help`` and the generated reference (docs/reference/cli.md) leave no
    argument's "what it does" empty (``lyt sandbox serve --host``, ``--port``, ``lyt
    sandbox generate --rewards``, ``--seed`` ... did)."""
    bare = [
        f"{name} {action.option_strings[0] if action.option_strings else action.dest}"
        for name, parser in _parsers()
        for action in parser._actions
        # a COMMAND's text is its choices (``one of: ...``)
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
        and not action.help
    ]
    assert not bare, bare
