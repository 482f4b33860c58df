"""The import contracts name every private module they protect, and hold at run time.

import-linter takes no pattern for a ``_``-prefixed module, so each package's contract
lists its private modules by name; this test fails when a private module is added,
renamed or removed without its contract following, so the contract never goes stale.
The contracts ignore the imports ``ProgramSnapshot`` makes inside its pull methods; a
fresh interpreter checks that importing economics and audit still loads no HTTP client.
"""

from __future__ import annotations

import subprocess
import sys
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


ANALYSIS_IMPORTS = """
import sys
import lyt_toolkit.economics, lyt_toolkit.audit
loaded = sorted(
    name for name in sys.modules
    if name == "httpx" or name.startswith("httpx.")
    or name.startswith(("lyt_toolkit.client", "lyt_toolkit.fill"))
)
print("\\n".join(loaded))
"""


def test_economics_and_audit_load_no_http_client() -> None:
    """The analysis layer and the snapshot record it reads load no httpx, no client and
    no ``lyt_toolkit.fill`` (checked in a fresh interpreter, as a user would import them)."""
    done = subprocess.run(
        [sys.executable, "-c", ANALYSIS_IMPORTS],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert done.stdout.split() == []


def test_the_snapshot_serves_client_source_from_fill_on_first_use() -> None:
    import lyt_toolkit.snapshot as snapshot
    from lyt_toolkit.fill.pull import ClientSource

    assert "ClientSource" in dir(snapshot)
    assert snapshot.ClientSource is ClientSource
