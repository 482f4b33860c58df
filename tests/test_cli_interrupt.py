"""Ctrl-C while a ``lyt`` command pulls or serves: one line on stderr naming the command,
exit code 130, never a traceback (``lyt apply`` and ``lyt export`` say more, see their own
tests); SIGTERM likewise (taken as a Ctrl-C), exit code 143."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from lyt_toolkit import cli
from lyt_toolkit.sandbox import Sandbox


@pytest.mark.parametrize(
    ("command", "stop", "code"),
    [
        (["audit"], signal.SIGINT, 130),
        (["report", "economics"], signal.SIGINT, 130),
        (["export"], signal.SIGTERM, 143),  # kill, timeout(1): as a Ctrl-C, exit 128 + 15
    ],
    ids=["audit", "report economics", "export sigterm"],
)
def test_ctrl_c_or_sigterm_mid_pull_stops_the_command_in_one_line_exit_128_plus_signal(
    command: list[str],
    stop: signal.Signals,
    code: int,
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    lyt_process: Callable[..., subprocess.Popen[str]],
    tmp_path: Path,
) -> None:
    with start_sandbox() as sb:
        sb.set_plan("1000000/hour")
        sb.set_faults(delay_seconds=0.2)  # the pull outlasts the signal
        proc = lyt_process(sb, tmp_path, *command, "--out", str(tmp_path / "out"))
        deadline = time.monotonic() + 60
        while sb.plan()["used"] < 3:  # pulling
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the pull never started"
            time.sleep(0.02)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert err == f"lyt {' '.join(command)}: interrupted\n"


@pytest.mark.parametrize(
    ("stop", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"]
)
def test_ctrl_c_or_sigterm_stops_a_serving_sandbox_in_one_line_exit_128_plus_signal(
    tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LYT_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert "ready at" in proc.stdout.readline()
    proc.send_signal(stop)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert err == "lyt sandbox serve: interrupted\n"


@pytest.mark.parametrize("edge", ["before", "after"])
def test_a_sigterm_at_the_edges_of_a_commands_run_exits_143_without_a_traceback(
    edge: str,
    sandbox: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A background job's SIGTERM (Ctrl-C ignored) just after ``main`` put its handler in
    place, before the command begins, or just after the command returned, before the
    handler is given back: a real signal, raised at that point (``signal.raise_signal``
    runs its handler at once)."""
    configure_lyt(sandbox)
    command = cli._run

    def run_with_sigterm(args: argparse.Namespace) -> int:
        assert callable(signal.getsignal(signal.SIGTERM))  # main's handler: it does not kill
        if edge == "before":
            signal.raise_signal(signal.SIGTERM)
        code = command(args)
        signal.raise_signal(signal.SIGTERM)
        return code

    monkeypatch.setattr(cli, "_run", run_with_sigterm)
    ctrl_c = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts a background job
    try:
        code = cli.main(["audit"])
    except KeyboardInterrupt:
        pytest.fail("the SIGTERM's KeyboardInterrupt escaped main")
    finally:
        signal.signal(signal.SIGINT, ctrl_c)
    assert code == 143
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back
    err = capsys.readouterr().err
    assert "Traceback" not in err and "interrupted" not in err, err
