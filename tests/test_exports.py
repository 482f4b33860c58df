"""The top-level package: its public names are listed, resolve, and load lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import lyt_toolkit
from lyt_toolkit._version import __version__

PUBLIC = ["AsyncLoyaltyClient", "LoyaltyClient", "ProgramSnapshot", "read_snapshot"]


@pytest.mark.parametrize("name", PUBLIC)
def test_dir_lists_the_public_name(name: str) -> None:
    assert name in dir(lyt_toolkit)


@pytest.mark.parametrize("name", PUBLIC)
def test_all_lists_the_public_name(name: str) -> None:
    assert name in lyt_toolkit.__all__


@pytest.mark.parametrize("name", lyt_toolkit.__all__)
def test_each_exported_name_resolves(name: str) -> None:
    assert getattr(lyt_toolkit, name) is not None


def test_snapshot_names_come_from_the_snapshot_package() -> None:
    from lyt_toolkit import snapshot

    assert lyt_toolkit.ProgramSnapshot is snapshot.ProgramSnapshot
    assert lyt_toolkit.read_snapshot is snapshot.read_snapshot


def test_version_comes_from_the_version_module() -> None:
    assert lyt_toolkit.__version__ == __version__


def test_an_unknown_name_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        lyt_toolkit.no_such_name  # noqa: B018


def test_importing_the_package_loads_no_pandas() -> None:
    code = "import sys, lyt_toolkit; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
