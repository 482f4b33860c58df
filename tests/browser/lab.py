"""A JupyterLab server for the browser tests, shut off from the machine it runs on.

It serves copies of the notebooks (the committed files are never opened), listens on
a free loopback port behind a random token, and keeps its configuration, data,
runtime files and home in a temporary folder, so nothing outside is read or written.
Its kernels inherit distinctive ``LYT_*`` credentials, which the notebooks' sandboxes
take, so a test can reach a notebook's sandbox over HTTP once it knows the URL.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from lyt_toolkit.sandbox.config import ENV_VARIABLES, SandboxCredentials
from lyt_toolkit.sandbox.server import free_port

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

CREDENTIALS = SandboxCredentials(
    app_id="browser-app-id",
    app_token="browser-app-token-" + secrets.token_hex(8),
    management_id="browser-management-id",
    management_token="browser-management-token-" + secrets.token_hex(8),
)
"""What every notebook sandbox started in this lab accepts (through ``LYT_*``)."""

SETTINGS = {
    # Render every cell, not only those scrolled into view, so all outputs can be checked.
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    # No news or update questions popping over the notebook (the machine is offline anyway).
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
START_TIMEOUT = 120.0


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: where it listens, what it serves, the environment it runs in."""

    base_url: str
    token: str
    root: Path
    env: dict[str, str]
    log: Path

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}?token={self.token}&reset"

    def notebook_url(self, name: str, workspace: str) -> str:
        """``notebooks/<name>`` in a workspace of its own (no other tab is restored)."""
        return self.url(f"/lab/workspaces/{workspace}/tree/notebooks/{name}")

    def copy_notebook(self, source: str, as_name: str, *, strip: bool) -> str:
        """A copy of ``notebooks/<source>`` beside the others; ``strip`` drops every output,
        execution count and the stored widget state, so only a run can fill them."""
        notebook = json.loads((NOTEBOOKS / source).read_text(encoding="utf-8"))
        if strip:
            for cell in notebook["cells"]:
                if cell["cell_type"] == "code":
                    cell["outputs"] = []
                    cell["execution_count"] = None
            notebook["metadata"].pop("widgets", None)
        (self.root / "notebooks" / as_name).write_text(json.dumps(notebook), encoding="utf-8")
        return as_name

    def write_notebook(self, name: str, cells: list[str]) -> str:
        """A notebook of the code ``cells`` (no outputs) beside the served copies: a test's
        own notebook, which none of ``notebooks/`` needs to hold."""
        notebook = {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": source,
                }
                for source in cells
            ],
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        (self.root / "notebooks" / name).write_text(json.dumps(notebook), encoding="utf-8")
        return name

    def trust(self, *names: str) -> None:
        """``jupyter trust`` on served copies, as the README tells users to (one command
        for all: each start of it takes seconds of CPU)."""
        jupyter = Path(sys.executable).with_name("jupyter")
        subprocess.run(
            [str(jupyter), "trust", *(str(self.root / "notebooks" / name) for name in names)],
            env=self.env,
            check=True,
            capture_output=True,
        )

    def shut_down(self, name: str) -> None:
        """End the sessions of ``notebooks/<name>``: their kernels and the sandboxes in them."""
        headers = {"Authorization": f"token {self.token}"}
        with httpx.Client(base_url=self.base_url, headers=headers, timeout=30) as http:
            for session in http.get("/api/sessions").json():
                if session["path"] == f"notebooks/{name}":
                    http.delete(f"/api/sessions/{session['id']}")


def _write_settings(folder: Path) -> None:
    for plugin, values in SETTINGS.items():
        path = folder / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "LYT_"))}
    env.update(
        HOME=str(home),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_PREFER_ENV_PATH="1",
        IPYTHONDIR=str(home / "ipython"),
        MPLCONFIGDIR=str(home / "matplotlib"),
    )
    env.update({ENV_VARIABLES[k]: v for k, v in asdict(CREDENTIALS).items()})
    return env


@contextmanager
def running_lab(workdir: Path) -> Iterator[Lab]:
    """Serve copies of ``notebooks/`` (and ``data/``, which they read) until the block ends."""
    root, home = workdir / "lab", workdir / "home"
    (root / "notebooks").mkdir(parents=True)
    shutil.copytree(REPO / "data", root / "data")
    _write_settings(home / "settings")
    env = _environment(home)
    port, token = free_port(), secrets.token_hex(16)
    log = workdir / "jupyterlab.log"
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
    ]
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    lab = Lab(f"http://127.0.0.1:{port}", token, root, env, log)
    try:
        _wait_until_up(lab, process)
        yield lab
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_up(lab: Lab, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}: see {lab.log}")
        try:
            response = httpx.get(f"{lab.base_url}/api/status", params={"token": lab.token})
            if response.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"JupyterLab did not answer within {START_TIMEOUT:.0f} s: see {lab.log}")
