"""The wheel built once for the packaging tests, whichever xdist worker asks first.

``test_wheel.py`` and ``test_lowest.py`` install the same wheel; built once per run (under
a lock in the run's temporary folder, which every worker shares) it is built once, not
twice, whether the two modules run on one worker or on two.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from wheel_building import build_wheel


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout (``build_wheel``), shared by the workers of one run."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # no xdist: this session is the whole run
        return build_wheel(tmp_path_factory.mktemp("wheel-build"))
    shared = tmp_path_factory.getbasetemp().parent / "packaging-wheel"
    shared.mkdir(exist_ok=True)
    with (shared / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        found = sorted((shared / "dist").glob("lyt_toolkit-*.whl"))
        return found[0] if found else build_wheel(shared)
