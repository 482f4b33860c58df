"""What the reference must document: the public modules of lyt_toolkit and their public names.

A module is public when no part of its dotted name starts with ``_`` and it is not a
deprecated old path (an entry of ``lyt_toolkit._deprecation.DEPRECATIONS`` names it; it only
re-exports from its new home, and importing it warns). Its public names are
its ``__all__`` when it defines one, else the names not starting with ``_`` that it defines
at its top level (functions, classes, assignments), whatever it imports. Used by the page
generator (``gen_reference.py``), the build's check (``check_reference.py``) and the tests.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

PACKAGE = "lyt_toolkit"


def is_public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


def deprecated_modules() -> frozenset[str]:
    """The old module paths kept for a release: documented by their new homes."""
    from lyt_toolkit._deprecation import DEPRECATIONS

    return frozenset(entry.name for entry in DEPRECATIONS)


def public_modules(package: str = PACKAGE) -> list[str]:
    """Every public module and package under ``package``, the package first, sorted."""
    root = importlib.import_module(package)
    names = [package]
    old = deprecated_modules()
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if is_public(info.name) and info.name not in old:
            names.append(info.name)
    return sorted(names)


def _defined_names(source: str) -> list[str]:
    """Names a module's own top-level statements bind (not its imports), in source order."""
    names: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return list(dict.fromkeys(names))


def public_names_of(module: ModuleType) -> list[str]:
    """``__all__`` when the module defines one, else the public names it defines itself."""
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return [str(name) for name in exported]
    file = getattr(module, "__file__", None)
    if file is None:
        return []
    source = Path(file).read_text(encoding="utf-8")
    return [n for n in _defined_names(source) if not n.startswith("_") and n != "__all__"]


def public_names(module_name: str) -> list[str]:
    return public_names_of(importlib.import_module(module_name))


def page_path(module_name: str) -> str:
    """The reference page of a module, relative to docs/: reference/api/<dotted name>.md."""
    return f"reference/api/{module_name}.md"
