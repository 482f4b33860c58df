"""MkDocs hooks: fill the generated tables in, and fail the build on undocumented names.

``on_page_markdown`` fails the build on a page whose generated parts (``<!-- generated: NAME
-->``, see ``generated.py``) are not what the code makes now.
``on_post_build`` checks that every public module of lyt_toolkit has its reference page and
that every public name of it (``__all__``, else the names the module defines) is rendered
there, i.e. the page holds an element whose id is the name's dotted path: the heading
mkdocstrings writes for it, or the entry of a package's re-export table. A name missing
from any page is a build error (``mkdocs build`` exits non-zero), listing each one.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).parent))

from generated import WRITE, fill
from public_api import page_path, public_modules, public_names

_IDS = re.compile(r'\sid="([^"]+)"')
_ids_by_page: dict[str, set[str]] = {}


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if fill(markdown) != markdown:
        raise PluginError(f"docs/{page.file.src_uri} is out of date with the code: run {WRITE}")
    return markdown


def on_pre_build(**_: Any) -> None:
    _ids_by_page.clear()


def on_page_content(html: str, page: Any, **_: Any) -> str:
    path = page.file.src_uri
    if path.startswith("reference/api/"):
        _ids_by_page[path] = set(_IDS.findall(html))
    return html


def missing_names(ids_by_page: dict[str, set[str]]) -> list[str]:
    """``module.name`` of every public name its module's page does not show, and every
    public module without a page (``module (no page)``)."""
    missing = []
    for module in public_modules():
        ids = ids_by_page.get(page_path(module))
        if ids is None:
            missing.append(f"{module} (no page)")
            continue
        missing += [f"{module}.{n}" for n in public_names(module) if f"{module}.{n}" not in ids]
    return missing


def on_post_build(**_: Any) -> None:
    missing = missing_names(_ids_by_page)
    if missing:
        raise PluginError(
            f"{len(missing)} public names are not in the reference:\n  " + "\n  ".join(missing)
        )
