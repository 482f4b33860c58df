"""The tables the docs generate from the code: each is asked for where it belongs, and
what fills it is what the code declares (the frame schemas, the economics schemas, the
audit rules, the ``lyt`` help)."""

from __future__ import annotations

import re
import sys

import pytest

from lyt_toolkit.audit import RULES, catalogue_markdown
from lyt_toolkit.cli import build_parser
from lyt_toolkit.economics import ECONOMICS_SCHEMAS
from lyt_toolkit.frames import SCHEMAS, schemas_markdown

from .pages import DOCS

sys.path.insert(0, str(DOCS / "_hooks"))
import generated


@pytest.mark.parametrize(
    ("page", "name"),
    [
        ("reference/frame-schemas.md", "frame-schemas"),
        ("reference/frame-schemas.md", "economics-schemas"),
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
    for schema in [*SCHEMAS.values(), *ECONOMICS_SCHEMAS.values()]:
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
        "lyt plan",
        "lyt apply",
        "lyt sandbox serve",
        "lyt sandbox generate",
        "lyt report economics",
    ):
        assert f"### `{name}`" in text
    assert "usage: lyt [-h]" in text
    parser = build_parser()
    assert parser.description in text


def test_no_page_keeps_a_copy_of_a_generated_table() -> None:
    """The tables live in the code only: no hand-written page repeats a rule's row."""
    rows = catalogue_markdown().splitlines()[2:]
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not any(row in text for row in rows), page
