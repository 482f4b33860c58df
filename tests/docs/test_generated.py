"""The tables the docs generate from the code: each is asked for where it belongs, and
what fills it is what the code declares (the frame schemas, the economics schemas, the
audit rules, the ``lyt`` help)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import pytest

from lyt_toolkit.audit import RULES, catalogue_markdown
from lyt_toolkit.cli import build_parser
from lyt_toolkit.economics import (
    DEFINITION_CHANGE,
    ECONOMICS_SCHEMAS,
    HEADLINE_CHANGE,
    MISPRICING_CHANGE,
)
from lyt_toolkit.frames import SCHEMAS, schemas_markdown
from lyt_toolkit.whatif import EDITS, SWEEP

from .pages import DOCS

sys.path.insert(0, str(DOCS / "_hooks"))
import generated


@pytest.mark.parametrize(
    ("page", "name"),
    [
        ("reference/frame-schemas.md", "frame-schemas"),
        ("reference/frame-schemas.md", "economics-schemas"),
        ("reference/frame-schemas.md", "what-if-schemas"),
        ("reference/audit-rules.md", "audit-rules"),
        ("reference/cli.md", "lyt-help"),
    ],
)
def test_each_generated_table_is_asked_for_on_its_page(page: str, name: str) -> None:
    assert f"<!-- generated: {name} -->" in (DOCS / page).read_text(encoding="utf-8")


def test_the_frame_schemas_page_lists_every_declared_column() -> None:
    text = generated.fill((DOCS / "reference/frame-schemas.md").read_text(encoding="utf-8"))
    assert schemas_markdown() in text
    assert schemas_markdown(ECONOMICS_SCHEMAS.values()) in text
    what_if = [HEADLINE_CHANGE, DEFINITION_CHANGE, MISPRICING_CHANGE, EDITS, SWEEP]
    assert schemas_markdown(what_if) in text
    for schema in [*SCHEMAS.values(), *ECONOMICS_SCHEMAS.values(), *what_if]:
        assert f"### `{schema.kind}`" in text
        for name in schema.names:
            assert f"| `{name}` |" in text


def test_the_audit_rules_page_lists_exactly_the_registered_rules() -> None:
    text = generated.fill((DOCS / "reference/audit-rules.md").read_text(encoding="utf-8"))
    assert catalogue_markdown() in text
    listed = re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M)
    assert listed == list(RULES)


def test_the_cli_page_holds_every_subcommand_help() -> None:
    text = generated.fill((DOCS / "reference/cli.md").read_text(encoding="utf-8"))
    for name in (
        "lyt",
        "lyt demo",
        "lyt audit",
        "lyt drift",
        "lyt plan",
        "lyt apply",
        "lyt sandbox serve",
        "lyt sandbox generate",
        "lyt report economics",
    ):
        assert f"### `{name}`" in text
    assert "| `--out FILE` | write every change as CSV |" in text
    assert "95 % intervals" in text  # help text as --help prints it, "%%" and all
    parser = build_parser()
    assert parser.description is not None
    assert parser.description in text


@pytest.mark.parametrize(
    ("page", "made"),
    [
        ("reference/audit-rules.md", catalogue_markdown),
        ("reference/frame-schemas.md", schemas_markdown),
        ("reference/cli.md", generated.lyt_help),
        ("reference/program-files.md", generated.program_files),
    ],
)
def test_the_committed_reference_pages_hold_what_the_code_makes(
    page: str, made: Callable[[], str]
) -> None:
    """A reader of the repository finds each reference page whole, as the code makes it now
    (``python docs/_hooks/generated.py`` writes them)."""
    path = DOCS / page
    assert path.is_file(), page
    assert made() in path.read_text(encoding="utf-8")


def test_no_committed_page_is_out_of_date() -> None:
    assert [p.relative_to(DOCS).as_posix() for p in generated.stale()] == []


_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def test_every_link_between_pages_points_at_a_file_in_the_repository() -> None:
    """Links resolve where the repository is browsed as files, not only on the built site
    (whose Python API pages, reference/api/, are rendered from the docstrings by the build)."""
    broken = []
    for page in DOCS.rglob("*.md"):
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or "reference/api/" in (page.parent / target).as_posix():
                continue
            if not (page.parent / target).resolve().is_file():
                broken.append(f"{page.relative_to(DOCS)} -> {target}")
    assert broken == []
