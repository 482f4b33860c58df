"""``Sandbox.start`` returns a running sandbox that lives until ``stop()``, a ``with``
block's end or the interpreter's end, and never ends by garbage collection."""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import weakref

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00Z"


def _clock(base_url: str, sb: Sandbox) -> str:
    response = httpx.get(
        f"{base_url}/_sandbox/clock", headers=sb.key_headers(), timeout=5, verify=TLS
    )
    response.raise_for_status()
    now: str = response.json()["now"]
    return now


def _refused(base_url: str) -> bool:
    try:
        httpx.get(f"{base_url}/docs", timeout=2, verify=TLS)
    except httpx.TransportError:
        return True
    return False


def test_a_started_sandbox_outlives_its_last_name_until_stopped() -> None:
    sb = Sandbox.start(now=NOW, seed=7)
    base_url, keys = sb.base_url, sb.key_headers()
    alive = weakref.ref(sb)
    del sb
    gc.collect()

    again = alive()
    assert again is not None, "the running sandbox was collected"
    for _ in range(3):
        response = httpx.get(f"{base_url}/_sandbox/clock", headers=keys, timeout=5, verify=TLS)
        assert response.status_code == 200
        assert response.json()["now"].startswith("2026-01-15")
        gc.collect()
    assert again.running

    again.stop()
    assert not again.running
    assert _refused(base_url)


def test_stop_twice_is_fine() -> None:
    sb = Sandbox.start(now=NOW)
    assert _clock(sb.base_url, sb).startswith("2026-01-15")
    sb.stop()
    sb.stop()
    assert not sb.running
    assert _refused(sb.base_url)


def test_the_with_block_stops_it_and_the_stopped_sandbox_is_let_go() -> None:
    with Sandbox.start(now=NOW) as sb:
        assert sb.running
        assert _clock(sb.base_url, sb).startswith("2026-01-15")
    assert not sb.running
    assert _refused(sb.base_url)
    alive = weakref.ref(sb)
    del sb
    gc.collect()
    assert alive() is None, "a stopped sandbox is still held"


def test_the_with_block_stops_it_when_the_block_raises() -> None:
    with pytest.raises(KeyError), Sandbox.start(now=NOW) as sb:
        raise KeyError("boom")
    assert not sb.running
    assert _refused(sb.base_url)


def test_a_named_sandbox_elsewhere_is_not_stopped_by_this_process() -> None:
    with Sandbox.start(now=NOW) as served:
        named = Sandbox(served.base_url, served.credentials)
        assert not named.running
        named.stop()
        assert _clock(served.base_url, served).startswith("2026-01-15")


def test_the_interpreters_end_stops_a_sandbox_nobody_stopped() -> None:
    """A child process starts one, drops it and exits; a hook registered before the
    sandbox was imported runs after the sandbox's own, and sees it stopped."""
    script = (
        "import atexit\n"
        "def after():\n"
        "    from lyt_toolkit.sandbox import server\n"
        "    print('still running:', len(server._RUNNING), flush=True)\n"
        "atexit.register(after)\n"
        "from lyt_toolkit.sandbox import Sandbox\n"
        "Sandbox.start()\n"
        "print('started', flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["started", "still running: 0"], out.stdout


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"body_timeout": -1}, "body_timeout"),
        ({"body_timeout": 0}, "body_timeout"),
        ({"body_timeout": float("nan")}, "body_timeout"),
        ({"body_timeout": float("inf")}, "body_timeout"),
        ({"body_timeout": "5"}, "body_timeout"),
        ({"head_timeout": -0.5}, "head_timeout"),
        ({"head_timeout": True}, "head_timeout"),
        ({"port": -1}, "port"),
        ({"port": 65536}, "port"),
        ({"port": "8000"}, "port"),
        ({"now": "yesterday"}, "now"),
        ({"seed": "x"}, "seed"),
    ],
    ids=lambda value: repr(value) if not isinstance(value, str) else value,
)
def test_start_refuses_a_bad_argument_naming_it_before_serving(arguments: dict, named: str) -> None:
    serving = {t.name for t in threading.enumerate()}
    with pytest.raises(ValueError, match=rf"^{named}: ") as refused:
        Sandbox.start(**arguments)
    assert repr(next(iter(arguments.values()))) in str(refused.value)
    assert {t.name for t in threading.enumerate()} <= serving  # no server thread was started


def test_a_sandbox_served_on_ipv6_loopback_has_a_bracketed_address_and_answers() -> None:
    from lyt_toolkit.client import LoyaltyClient

    with Sandbox.start(host="::1") as sb:
        assert sb.base_url.startswith("http://[::1]:")
        assert sb.plan()["plan"] == "unlimited"  # the admin helpers reach it too
        with LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client:
            assert client.rewards.list(limit=5).data
