"""``lyt sandbox serve`` in a child process, for tests that restart or kill it, and its
refusals run in this process (serving refused meanwhile: a regressed refusal fails, never
hangs)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from shared_tls import TLS

from lyt_toolkit.cli import main
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS

KEYS = {"X-App-Id": DEFAULT_CREDENTIALS["app_id"], "X-App-Token": DEFAULT_CREDENTIALS["app_token"]}
"""The demo key pair, what a child with no ``LYT_*`` variables accepts."""


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0", *args]


def demo_env() -> dict[str, str]:
    """This environment without any ``LYT_*`` variable: the child uses the demo credentials."""
    return {k: v for k, v in os.environ.items() if not k.startswith("LYT_")}


class StartedServing(AssertionError):
    """A ``lyt sandbox serve`` run in this process to be refused went on to serve instead."""


async def _refuse_to_serve(server: uvicorn.Server, *args: object, **kwargs: object) -> None:
    raise StartedServing("lyt sandbox serve started serving where it should have refused")


@contextmanager
def refusing_to_serve() -> Iterator[None]:
    """In the block, serving itself is refused: uvicorn's ``Server.serve`` raises
    ``StartedServing`` before a socket is bound. A ``lyt sandbox serve`` run in this process
    that should refuse and serves instead then fails its test at once, rather than serving
    until killed (the suite has no per-test timeout). Sandboxes already serving go on; only
    the block's code may start one."""
    with pytest.MonkeyPatch.context() as serving:
        serving.setattr(uvicorn.Server, "serve", _refuse_to_serve)
        yield


def serve_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> str:
    """What ``lyt sandbox serve --port 0 ARGS``, run in this process without any ``LYT_*``
    variable (as ``demo_env``), prints on stderr: it must refuse, exit 2, before serving
    (``refusing_to_serve``: it fails, not hangs, should it serve)."""
    for name in [name for name in os.environ if name.startswith("LYT_")]:
        monkeypatch.delenv(name)
    capsys.readouterr()
    with refusing_to_serve():
        assert main(["sandbox", "serve", "--port", "0", *args]) == 2
    return capsys.readouterr().err


@contextmanager
def served(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run the sandbox in a child until the block ends (or the test kills it); yield its
    base URL and the process."""
    proc = subprocess.Popen(
        serve_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or demo_env(),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # bounded: the child either prints it or exits
        assert "ready at" in line, (line, proc.stderr.read() if proc.stderr else "")
        yield line.split("ready at ")[1].split()[0], proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def v2_headers(base_url: str) -> dict[str, str]:
    """The demo key pair and a fresh loyalties token."""
    response = httpx.post(
        f"{base_url}/oauth/token",
        data={"grant_type": "client_credentials", "scope": "loyalties"},
        headers=KEYS,
        timeout=10,
        verify=TLS,
    )
    response.raise_for_status()
    return {**KEYS, "Authorization": f"Bearer {response.json()['access_token']}"}


def benefit_body(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": "POINTS",
        "points": {"value": 5, "card_definition_id": "lcdef_c0ffee0001"},
    }
