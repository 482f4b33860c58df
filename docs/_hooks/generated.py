"""The parts of the docs generated from the code, each filled in where a page says
``<!-- generated: NAME -->`` (by ``hooks.py`` at build time; the tests read it too)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator


def frame_schemas() -> str:
    from lyt_toolkit.frames import schemas_markdown

    return schemas_markdown()


def economics_schemas() -> str:
    from lyt_toolkit.economics import ECONOMICS_SCHEMAS, ESTIMATES
    from lyt_toolkit.frames import schemas_markdown

    return schemas_markdown([*ECONOMICS_SCHEMAS.values(), ESTIMATES])


def audit_rules() -> str:
    from lyt_toolkit.audit import catalogue_markdown

    return catalogue_markdown()


def _parsers(
    parser: argparse.ArgumentParser, name: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def lyt_help() -> str:
    """``lyt --help`` and every subcommand's, as argparse prints them (100 columns)."""
    from lyt_toolkit.cli import build_parser

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parts = []
        for name, parser in _parsers(build_parser(), "lyt"):
            parts += [f"### `{name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
        return "\n".join(parts)
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


GENERATED: dict[str, Callable[[], str]] = {
    "frame-schemas": frame_schemas,
    "economics-schemas": economics_schemas,
    "audit-rules": audit_rules,
    "lyt-help": lyt_help,
}


def fill(markdown: str) -> str:
    """Replace each ``<!-- generated: NAME -->`` line with what NAME generates."""
    for name, make in GENERATED.items():
        marker = f"<!-- generated: {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
