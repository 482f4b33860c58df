"""The reference check: what counts as public, and that a name missing from its module's
page fails the build, with and without ``__all__``."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from .pages import DOCS

sys.path.insert(0, str(DOCS / "_hooks"))
import hooks
import public_api


def _module(tmp_path: Path, source: str) -> types.ModuleType:
    file = tmp_path / "fake.py"
    file.write_text(source, encoding="utf-8")
    module = types.ModuleType("fake")
    module.__file__ = str(file)
    exec(compile(source, str(file), "exec"), module.__dict__)
    return module


SOURCE = """
from os import path
import json as _json

CONSTANT = 1
typed: int = 2
_hidden = 3

def function(): ...
async def coroutine(): ...
class Thing: ...
def _private(): ...
"""


def test_without_all_the_public_names_are_those_the_module_defines(tmp_path: Path) -> None:
    module = _module(tmp_path, SOURCE)
    assert public_api.public_names_of(module) == [
        "CONSTANT",
        "typed",
        "function",
        "coroutine",
        "Thing",
    ]


def test_with_all_the_public_names_are_all(tmp_path: Path) -> None:
    module = _module(tmp_path, SOURCE + '\n__all__ = ["Thing", "path"]\n')
    assert public_api.public_names_of(module) == ["Thing", "path"]


def test_private_modules_are_not_public() -> None:
    modules = public_api.public_modules()
    assert "lyt_toolkit" in modules and "lyt_toolkit.frames.schema" in modules
    assert "lyt_toolkit.client._client" not in modules
    assert not any(part.startswith("_") for m in modules for part in m.split("."))


def test_deprecated_module_paths_have_no_page() -> None:
    modules = public_api.public_modules()
    assert "lyt_toolkit.fill.pull" in modules
    assert "lyt_toolkit.snapshot.pull" not in modules  # re-exports lyt_toolkit.fill.pull


def test_a_name_missing_from_its_page_is_reported() -> None:
    modules = public_api.public_modules()
    ids = {
        public_api.page_path(m): {f"{m}.{n}" for n in public_api.public_names(m)} for m in modules
    }
    assert hooks.missing_names(ids) == []
    ids[public_api.page_path("lyt_toolkit.frames.schema")].discard(
        "lyt_toolkit.frames.schema.Schema"
    )
    del ids[public_api.page_path("lyt_toolkit.audit.rules")]
    assert hooks.missing_names(ids) == [
        "lyt_toolkit.audit.rules (no page)",
        "lyt_toolkit.frames.schema.Schema",
    ]


def test_the_build_fails_on_a_missing_name() -> None:
    with pytest.raises(hooks.PluginError, match="public names are not in the reference"):
        hooks._ids_by_page.clear()
        hooks.on_post_build()


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def test_every_hand_written_page_is_in_the_nav() -> None:
    """The build only reports a page left out of the nav; here it fails, naming the page."""
    import yaml

    config = yaml.safe_load((DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = set(_nav_pages(config["nav"]))
    written = {
        str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md") if "_hooks" not in page.parts
    }
    assert sorted(written - in_nav) == [], "add these pages to the nav in mkdocs.yml"
