"""The import contracts name every private module they protect.

import-linter takes no pattern for a ``_``-prefixed module, so each package's contract
lists its private modules by name; this test fails when a private module is added,
renamed or removed without its contract following, so the contract never goes stale.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lyt_toolkit"


def private_modules() -> dict[str, set[str]]:
    """Each subpackage's ``_``-prefixed modules (not ``__init__``/``__main__``), dotted."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("_*.py"):
        relative = path.relative_to(ROOT).with_suffix("")
        if path.name.startswith("__") or len(relative.parts) < 3:
            continue  # dunder modules, and the top's shared leaf helpers
        found.setdefault(relative.parts[1], set()).add(".".join(relative.parts))
    return found


def protected() -> dict[str, set[str]]:
    """Each protected contract's package and the modules it protects."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return {
        c["allowed_importers"][0].removeprefix("lyt_toolkit."): set(c["protected_modules"])
        for c in contracts
        if c["type"] == "protected"
    }


def test_every_private_module_is_protected_by_its_packages_contract() -> None:
    assert protected() == private_modules()


def test_a_protected_contract_allows_only_its_own_package() -> None:
    for package, modules in protected().items():
        assert all(m.startswith(f"lyt_toolkit.{package}.") for m in modules), package
