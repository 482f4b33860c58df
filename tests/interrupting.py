"""Ctrl-C pressed on a process of the toolkit's while the sandbox answers every call 429:
what the process printed and the calls it sent after the Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import time

from lyt_toolkit.sandbox import Sandbox


def ctrl_c_while_refused(
    sb: Sandbox, proc: subprocess.Popen[str], retry_after: int
) -> tuple[str, str, int]:
    """``proc``'s output once a Ctrl-C stopped it while its calls waited out a 429 asking
    ``retry_after`` seconds, and the calls it sent after the Ctrl-C; it is given 10 s to
    end (before the waits could), then killed."""
    sb.set_faults(rate_limit=1.0, retry_after=retry_after)
    try:
        time.sleep(1)  # the calls answered 429, waiting to be sent again
        used = sb.plan()["used"]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        time.sleep(0.5)
        return out, err, sb.plan()["used"] - used
    finally:
        sb.clear_faults()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
