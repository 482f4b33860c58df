"""The built wheel works outside the checkout: lyt demo, lyt sandbox serve, Sandbox.start.

The wheel is built from this checkout and installed, without its dependencies,
into a new virtual environment under the test's temporary folder. The
dependencies come from the running environment's site-packages through a
plain path entry (its ``.pth`` files, among them the checkout's editable
hook, are not processed), so every file of ``lyt_toolkit`` the children
import is the wheel's. With ``LYT_WHEEL_FULL_INSTALL=1`` (set by ``.ci/run``)
pip installs the dependencies too, as a new user's ``pip install`` would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from wheel_building import ROOT, outside_env, run_outside


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new virtual environment holding the wheel built from this checkout; its bin folder.

    Nothing is byte-compiled at install (``--no-compile``): Python compiles what it imports.
    """
    work = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    env_dir = work / "venv"
    full = os.environ.get("LYT_WHEEL_FULL_INSTALL") == "1"
    venv.create(env_dir, with_pip=full)
    python = env_dir / "bin" / "python"
    if full:
        subprocess.run(
            [python, "-m", "pip", "install", "--quiet", "--no-compile", str(wheel)], check=True
        )
    else:
        site = Path(
            subprocess.check_output(
                [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
            ).strip()
        )
        (site / "_lyt_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
        subprocess.run(
            [
                *pip,
                "--python",
                str(python),
                "install",
                "--quiet",
                "--no-deps",
                "--no-compile",
                str(wheel),
            ],
            check=True,
        )
    return env_dir / "bin"


def test_the_package_imported_is_the_wheels(installed: Path, tmp_path: Path) -> None:
    out = run_outside(
        str(installed / "python"),
        "-c",
        "import lyt_toolkit; print(lyt_toolkit.__file__)",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    location = Path(out.stdout.strip())
    assert installed.parent in location.parents, location
    assert ROOT not in location.parents


def test_lyt_demo_runs_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    out = run_outside(str(installed / "lyt"), "demo", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "findings" in out.stdout
    assert any((tmp_path / "reports").rglob("*.csv")), list(tmp_path.rglob("*"))


def test_lyt_sandbox_serve_answers_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [str(installed / "lyt"), "sandbox", "serve", "--port", "0"],
        cwd=tmp_path,
        env=outside_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "ready at http://127.0.0.1:" in line, line
        base_url = line.split("ready at ")[1].split()[0]
        import httpx

        assert httpx.get(f"{base_url}/docs", timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # waits, and closes its pipe


def test_sandbox_start_serves_the_demo_program_from_the_wheel(
    installed: Path, tmp_path: Path
) -> None:
    script = (
        "from lyt_toolkit import LoyaltyClient\n"
        "from lyt_toolkit.sandbox import Sandbox\n"
        "with Sandbox.start() as sb:\n"
        "    client = LoyaltyClient(base_url=sb.base_url, **sb.credentials.as_client_kwargs())\n"
        "    print(len(client.rewards.frame()))\n"
    )
    out = run_outside(str(installed / "python"), "-c", script, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) > 0
