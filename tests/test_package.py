"""What a bare ``import lyt_toolkit`` offers, in a fresh interpreter each time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import lyt_toolkit

INIT = Path(lyt_toolkit.__file__)


def _fresh(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", f"import lyt_toolkit\n{code}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_is_cheap() -> None:
    loaded = _fresh(
        "import sys; print(sorted(m for m in sys.modules if m.startswith(('pandas', 'httpx'))))"
    )
    assert loaded.strip() == "[]"


def test_the_client_is_a_plain_api_client_without_pandas_or_pyarrow() -> None:
    code = (
        "import sys; import lyt_toolkit.client; from lyt_toolkit import LoyaltyClient;"
        "import lyt_toolkit.pull.member_tree, lyt_toolkit.client.pagination;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'numpy'}))"
    )
    assert _fresh(code).strip().splitlines()[-1] == "[]"


def test_subpackages_are_attributes_after_a_bare_import() -> None:
    """A subpackage's function is reached through the bare import (``audit`` first, nothing
    else touched yet), then every subpackage is an attribute: one fresh interpreter."""
    names = sorted(lyt_toolkit._SUBPACKAGES)
    first, *rest = _fresh(
        "print(callable(lyt_toolkit.audit.run))\n"
        f"print(*(getattr(lyt_toolkit, n).__name__ for n in {names!r}))"
    ).splitlines()
    assert first == "True"
    assert " ".join(rest).split() == [f"lyt_toolkit.{n}" for n in names]


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in lyt_toolkit.__all__:
        assert getattr(lyt_toolkit, name) is not None
    assert set(lyt_toolkit.__all__) | lyt_toolkit._SUBPACKAGES <= set(dir(lyt_toolkit))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        lyt_toolkit.nope  # noqa: B018


def test_type_checking_imports_mirror_the_lazy_ones() -> None:
    """The type checker's view (the ``TYPE_CHECKING`` block) names what ``__getattr__`` serves."""
    tree = ast.parse(INIT.read_text())
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
    )
    typed: dict[str, str] = {}
    for stmt in block.body:
        assert isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names:
            typed[alias.name] = f"lyt_toolkit.{stmt.module}" if stmt.module else "lyt_toolkit"
    assert {n: m for n, m in typed.items() if m != "lyt_toolkit"} == lyt_toolkit._LAZY
    assert {n for n, m in typed.items() if m == "lyt_toolkit"} == lyt_toolkit._SUBPACKAGES
