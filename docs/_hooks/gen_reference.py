"""Generate the reference pages at build time (mkdocs-gen-files runs this script).

One page per public module (rendered from its docstrings by mkdocstrings; a package
lists what it re-exports from a public module, linking to it), the navigation of those
pages, and the notebooks copied in as they are committed (with their outputs). The
parts generated from the code (schemas, audit rules, ``lyt`` help, the program file format)
are committed in their pages (``generated.py`` writes them; ``hooks.py`` fails the build
when one is out of date).
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import griffe
import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).parent))

from public_api import PACKAGE, page_path, public_modules, public_names

ROOT = Path(__file__).resolve().parents[2]


def _target(module: ModuleType, obj: griffe.Module, member: str) -> str:
    """Where a module's public name is defined (its dotted path), as far as can be told."""
    value = getattr(module, member, None)
    if isinstance(value, ModuleType):
        return value.__name__
    if inspect.isclass(value) or inspect.isroutine(value):
        qualname, home = value.__qualname__, value.__module__
        if "<" not in qualname and "[" not in qualname:
            return f"{home}.{qualname}"
    try:
        target = obj.members.get(member)
        if target is not None and target.is_alias:
            return target.final_target.path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        pass
    return f"{module.__name__}.{member}"


def _module_page(name: str, modules: set[str], api: griffe.Module) -> str:
    """A module's page: its docstrings; a package lists what it re-exports from a public module."""
    obj = api if name == PACKAGE else api[name.removeprefix(f"{PACKAGE}.")]
    rendered: list[str] = []
    listed: list[tuple[str, str, str]] = []
    outside: list[tuple[str, str]] = []
    module = importlib.import_module(name)
    for member in public_names(name):
        target_path = _target(module, obj, member)
        home = target_path.rsplit(".", 1)[0]
        if not target_path.startswith(f"{PACKAGE}."):  # another package's: named, not rendered
            outside.append((member, target_path))
        elif target_path in modules and target_path != name:  # a submodule: link its page
            listed.append((member, target_path, target_path))
        elif target_path != f"{name}.{member}" and home in modules and home != name:
            listed.append((member, target_path, home))
        else:
            rendered.append(member)
    lines = [f"# `{name}`", "", f"::: {name}", "    options:", "      show_root_heading: false"]
    lines.append(f"      members: {rendered!r}" if rendered else "      members: false")
    if listed:
        lines += ["", "## Re-exported here", "", "| name | defined in |", "|---|---|"]
        for member, target_path, home in listed:
            anchor = f"{name}.{member}"
            link = f"({home}.md)" if target_path == home else f"[{target_path}]"
            lines.append(f"| [`{member}`]{link}{{ #{anchor} }} | [`{home}`]({home}.md) |")
    if outside:
        lines += ["", "## From other packages", "", "| name | is |", "|---|---|"]
        for member, target_path in outside:
            lines.append(f'| <span id="{name}.{member}"></span>`{member}` | `{target_path}` |')
    return "\n".join(lines) + "\n"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _without_widget_state(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook as committed, less its stored widget state (megabytes a static page
    cannot use: it has no kernel and loads no widget manager); each widget's output says
    which widget it is instead."""
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                text = "".join(data.get("text/plain", "widget"))
                name = text.split("(", 1)[0].strip() or "widget"
                output["data"] = {
                    "text/markdown": f"*[interactive `{name}`: run the notebook to use it]*"
                }
    return notebook


def main() -> None:
    modules = public_modules()
    api = griffe.load(PACKAGE, search_paths=[str(ROOT)], resolve_aliases=True)
    assert isinstance(api, griffe.Module)
    summary: dict[str, list[str]] = {}
    for name in modules:
        with mkdocs_gen_files.open(page_path(name), "w") as page:
            page.write(_module_page(name, set(modules), api))
        section = name.split(".")[1] if "." in name else PACKAGE
        label = name.removeprefix(f"{PACKAGE}.{section}.") if name.count(".") > 1 else name
        summary.setdefault(section, []).append(f"    * [`{label}`]({name}.md)")
    with mkdocs_gen_files.open("reference/api/SUMMARY.md", "w") as nav:
        for section, items in summary.items():
            nav.write(f"* {section}\n" + "\n".join(items) + "\n")

    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        with mkdocs_gen_files.open(f"notebooks/{notebook.name}", "w") as copy:
            json.dump(_without_widget_state(json.loads(notebook.read_text("utf-8"))), copy)


main()
