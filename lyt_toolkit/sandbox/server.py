"""Run the sandbox: in-process for tests and notebooks, or as ``lyt sandbox serve``."""

from __future__ import annotations

import atexit
import functools
import gc
import math
import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import uvicorn

from .._deprecation import warn
from .._services import forget_local, hold_local
from ..errors import api_error, error_class
from ..models.errors import error_object
from .app import create_app
from .clock import parse_instant
from .config import SandboxConfig, SandboxCredentials
from .from_snapshot import FOLDER_FORM, SnapshotSource, program_to_hold, sandbox_credentials
from .guard import BODY_TIMEOUT
from .loader import program_from
from .protocol import HEAD_TIMEOUT, protocol_class
from .quota import configured_plan
from .state import SandboxState

MAX_REQUEST_HEAD_BYTES = 2 * 1024 * 1024
"""What the HTTP parser holds of a request line and headers: room enough for a long URL
to reach the app and be answered 414; beyond it the server refuses the request itself."""

KEEP_ALIVE_SECONDS = round(HEAD_TIMEOUT)
"""How long an idle keep-alive connection stays open (the head timeout closes it then too):
twice the 5 s after which an httpx client stops reusing an idle connection, so a client never
sends on a connection the sandbox is closing. At uvicorn's 5 s, both ends timed out together,
and a write sent as the connection closed came back a connection reset, in doubt (a paced
plan's first write after waiting some seconds for its window, say)."""


def server_config(
    app: Any, host: str, port: int, head_timeout: float = HEAD_TIMEOUT, **options: Any
) -> uvicorn.Config:
    """uvicorn settings every sandbox shares: the h11 parser, heads bounded in size and
    time, bounded idle time, parser refusals answered as error objects, and no ``Date``
    of uvicorn's (wall time): the app sends the sandbox clock's (``date_header``)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_class(head_timeout),
        h11_max_incomplete_event_size=MAX_REQUEST_HEAD_BYTES,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        date_header=False,
        **options,
    )


@functools.cache
def _admin_tls() -> ssl.SSLContext:
    """The TLS settings of the admin calls and ``v2_headers``' token request, made once:
    httpx makes them anew for each ``httpx.request`` (reading a CA bundle, tens of
    milliseconds) though a sandbox is served over plain HTTP, and tests make thousands
    of these calls."""
    return ssl.create_default_context()


def _check_serving(port: Any, body_timeout: Any, head_timeout: Any) -> None:
    """``ValueError`` naming ``port`` unless it is 0 (any free port) to 65535, or a timeout
    unless it is a positive, finite number of seconds (else every request would be 408)."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port: must be 0 (a free port) to 65535, got {port!r}")
    for name, seconds in (("body_timeout", body_timeout), ("head_timeout", head_timeout)):
        number = not isinstance(seconds, bool) and isinstance(seconds, int | float)
        if not (number and math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"{name}: must be a positive number of seconds, got {seconds!r}")


def _check_clock(now: Any, seed: Any) -> None:
    """``ValueError`` naming ``now`` unless an ISO 8601 instant, ``seed`` unless an integer."""
    if now is not None:
        try:
            parse_instant(now)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"now: must be an ISO 8601 instant, got {now!r}") from None
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"seed: must be an integer, got {seed!r}")


def _answer(response: Any) -> dict[str, Any]:
    """The JSON of the sandbox's answer (an ``httpx.Response``); for an error, the toolkit's
    exception for its status (``BadRequestError`` for a 400, ...) carrying its error object,
    whose ``details`` name the field refused."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.is_success:
        result: dict[str, Any] = body
        return result
    info = error_object(response.status_code, response.reason_phrase or "Error", body)
    kind = error_class(response.status_code, info.key)
    request = response.request
    raise api_error(
        kind, response.status_code, info, body=body, method=request.method, path=request.url.path
    )


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (an IPv6 address such as ``::1`` included)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((host.strip("[]"), 0))
        return int(sock.getsockname()[1])


def served_url(host: str, port: int) -> str:
    """The base URL of a sandbox served on ``host`` and ``port``: an IPv6 host bracketed."""
    bare = host.strip("[]")
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{bare}:{port}"


_RUNNING: set[Sandbox] = set()
"""Every sandbox ``Sandbox.start`` started and nobody stopped yet: holding them here is
what keeps a sandbox serving after the notebook drops its last name for it."""


@atexit.register
def _stop_running() -> None:
    """At the interpreter's (or kernel's) end, stop what is still running."""
    for sandbox in list(_RUNNING):
        sandbox.stop()


class Sandbox:
    """A sandbox: its base URL, credentials and admin helpers.

    ``Sandbox.start(...)`` serves one in this process until ``stop()``, the end of a
    ``with`` block, or the end of the interpreter, whichever comes first; dropping
    every reference to it does not stop it. ``Sandbox(base_url, credentials)`` only
    names one already running elsewhere (``lyt sandbox serve``); its ``stop()`` does
    nothing. An admin helper the sandbox refuses raises the toolkit's error for the answer
    (``lyt_toolkit.errors.BadRequestError`` for a 400, its ``details`` naming the field).
    """

    def __init__(self, base_url: str, credentials: SandboxCredentials) -> None:
        self.base_url = base_url
        self.credentials = credentials
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._close_store: Callable[[], None] | None = None
        self._stop_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Sandbox(base_url={self.base_url!r})"

    @classmethod
    def start(
        cls,
        data: str | Path | dict[str, Any] | None = None,
        *,
        snapshot: SnapshotSource | None = None,
        now: str | None = None,
        seed: int | None = None,
        db: str | None = None,
        plan: str | None = None,
        credentials: SandboxCredentials | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        body_timeout: float = BODY_TIMEOUT,
        head_timeout: float = HEAD_TIMEOUT,
    ) -> Sandbox:
        """Serve a sandbox with real uvicorn on a free loopback port; return it running.

        It serves until ``sb.stop()``, or the end of ``with Sandbox.start(...) as sb:``,
        or the interpreter's end; never stopped by garbage collection.

        ``snapshot`` (a ``ProgramSnapshot``), instead of ``data``: the sandbox holds that
        program, its clock at the snapshot's ``pulled_at`` (unless ``now`` is given), and
        takes the sandbox credentials, never ``LYT_*`` ones. For a folder its ``to_csv`` or
        ``to_parquet`` wrote, give ``snapshot=read_snapshot(folder)``
        (``lyt_toolkit.snapshot``); the folder itself is deprecated (a ``FutureWarning``;
        removed in 0.5.0).
        ``plan``: the call budget (``"startup"``, ``"100/minute"``, ...; by default the plan
        of the program's first project, else ``"unlimited"``); ``ValueError`` naming
        ``plan`` when it is not one.
        ``body_timeout`` / ``head_timeout``: seconds a request body may stall, and a
        request head may take to arrive, before the request is answered 408.
        ``ValueError`` naming the argument when ``now``, ``seed``, ``port`` or a timeout
        cannot be served with, before anything is loaded. A program file ``data`` names
        that is wrong raises ``ProgramFileError`` (a ``ValueError``; not JSON:
        ``json.JSONDecodeError``) naming it first, ``data PATH: ...``, as ``lyt sandbox
        serve`` names ``--data PATH``.
        """
        _check_serving(port, body_timeout, head_timeout)
        _check_clock(now, seed)
        if snapshot is not None:
            if data is not None:
                raise ValueError("give data or snapshot, not both")
            if isinstance(snapshot, str | Path):
                warn(FOLDER_FORM)
            data = program_to_hold(snapshot)
            credentials = credentials or sandbox_credentials()
        config = SandboxConfig(data=data, db=db, now=now, seed=seed, plan=plan)
        if credentials is not None:
            config.credentials = credentials
        given = None if data is None or isinstance(data, dict) else f"data {data}"
        with program_from(given):  # a file's problems name it, as ``lyt sandbox serve``'s
            app = create_app(config, body_timeout=body_timeout)
        port = port or free_port(host)
        server = uvicorn.Server(
            server_config(
                app,
                host,
                port,
                head_timeout,
                log_level="warning",
                access_log=False,
                lifespan="off",
            )
        )
        sandbox = cls(served_url(host, port), config.credentials)
        sandbox._server = server
        sandbox._close_store = app.state.sandbox.store.close
        sandbox._thread = threading.Thread(target=server.run, name="lyt-sandbox", daemon=True)
        sandbox._thread.start()
        deadline = time.monotonic() + 15
        while not server.started:
            if not sandbox._thread.is_alive() or time.monotonic() > deadline:
                sandbox.stop()
                raise RuntimeError(f"the sandbox did not start on {host}:{port}")
            time.sleep(0.01)
        _RUNNING.add(sandbox)
        hold_local(sandbox.base_url, app.state.holds)  # what its answers say, worked out once
        return sandbox

    @property
    def running(self) -> bool:
        """Whether this process serves it now (``start``ed and not ``stop``ped)."""
        return self in _RUNNING

    def stop(self) -> None:
        """Stop serving and close its store; again, or on one not started here: nothing."""
        with self._stop_lock:
            _RUNNING.discard(self)
            if self._server is not None:
                forget_local(self.base_url)
            server, thread, close_store = self._server, self._thread, self._close_store
            self._server = self._thread = self._close_store = None
            if server is None:
                return
            server.should_exit = True
            if thread is not None:
                thread.join(timeout=10)
            if close_store is not None:
                close_store()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def key_headers(self) -> dict[str, str]:
        """The application key pair, as request headers."""
        return {"X-App-Id": self.credentials.app_id, "X-App-Token": self.credentials.app_token}

    def v2_headers(self, scope: str = "loyalties") -> dict[str, str]:
        """The key pair and a fresh bearer token for ``scope``: what a ``/v2`` call needs."""
        import httpx  # here, not at the top: a served sandbox never sends a request

        keys = self.key_headers()
        response = httpx.post(
            f"{self.base_url}/oauth/token",
            data={"grant_type": "client_credentials", "scope": scope},
            headers=keys,
            verify=_admin_tls(),
        )
        return {**keys, "Authorization": f"Bearer {_answer(response)['access_token']}"}

    # -- admin API --------------------------------------------------------------

    def _admin(self, method: str, path: str, json: dict[str, Any] | None = None) -> dict[str, Any]:
        import httpx  # here, not at the top: a served sandbox never sends a request

        response = httpx.request(
            method,
            f"{self.base_url}/_sandbox{path}",
            json=json,
            headers=self.key_headers(),
            verify=_admin_tls(),
        )
        return _answer(response)

    def now(self) -> str:
        return self._admin("GET", "/clock")["now"]

    def advance_clock(self, seconds: float) -> str:
        return self._admin("POST", "/clock/advance", {"seconds": seconds})["now"]

    def set_clock(self, now: str) -> str:
        return self._admin("POST", "/clock/set", {"now": now})["now"]

    def reset(self) -> None:
        self._admin("POST", "/reset")

    def set_faults(self, **settings: Any) -> dict[str, Any]:
        """E.g. ``set_faults(rate_limit=0.3, unavailable=0.1, retry_after=0, seed=1)``."""
        return self._admin("PUT", "/faults", settings)

    def clear_faults(self) -> None:
        self._admin("DELETE", "/faults")

    def faults(self) -> dict[str, Any]:
        """The faults in force (``set_faults``' settings) and ``answered``: the requests they
        answered 429 (``rate_limit``) and 503 (``unavailable``) since they were set, each
        counted once its answer is sent."""
        return self._admin("GET", "/faults")

    def settle(self) -> int:
        """Settle at once every points activation still in progress (each settles shortly
        after its answer otherwise); how many were."""
        settled: int = self._admin("POST", "/settle")["settled"]
        return settled

    def plan(self) -> dict[str, Any]:
        """The plan in force, its current window (``limit``, ``used``, ``remaining``,
        ``resets_at``) and billing cycle (``cycle_limit``, ``cycle_used``,
        ``cycle_resets_at``)."""
        return self._admin("GET", "/plan")

    def set_plan(self, plan: str, *, cycle_used: int | None = None) -> dict[str, Any]:
        """Put ``plan`` (``"free"``, ``"30/minute"``, ``"unlimited"``, ...) in force at once,
        with its whole budget; the window stays aligned to the sandbox clock. The current
        billing cycle (a calendar month) starts at ``cycle_used`` calls, 0 if not given.
        ``ValueError`` naming ``plan`` when it is not a plan; ``BadRequestError`` naming
        ``cycle_used`` when it is not a whole number from 0, or the plan has no cycle."""
        configured_plan(plan)
        body: dict[str, Any] = {"plan": plan}
        if cycle_used is not None:
            body["cycle_used"] = cycle_used
        return self._admin("PUT", "/plan", body)


def plan_words(status: dict[str, Any]) -> str:
    """The plan in force as ``lyt sandbox serve`` says it: ``plan professional, 5,000 calls
    an hour`` (``status``: ``Budget.status()``), or ``plan unlimited, no call budget``."""
    limit = status["limit"]
    if limit is None:
        return f"plan {status['plan']}, no call budget"
    window = status["window"]
    return f"plan {status['plan']}, {limit:,} calls {'an' if window == 'hour' else 'a'} {window}"


def serve(
    config: SandboxConfig,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    body_timeout: float = BODY_TIMEOUT,
    head_timeout: float = HEAD_TIMEOUT,
    state: SandboxState | None = None,
) -> None:
    """Serve until interrupted, printing the base URL once ready. ``state``: the sandbox
    already loaded from ``config`` (``SandboxState.create``), else loaded here.

    This process is the sandbox's own: what it loads lives until it ends. So the cycle
    collector stays off until the program is loaded (it would scan the growing program
    again and again) and then leaves it alone for good (``gc.freeze``), rather than
    pause the first requests to rescan a large program.
    """
    _check_serving(port, body_timeout, head_timeout)
    gc.disable()  # the caller may have turned it off already, to read the program file
    try:
        app = create_app(config, body_timeout=body_timeout, state=state)
        app.state.holds()  # the digest its answers name, taken before the first one waits
        gc.freeze()
    finally:
        gc.enable()
    server = uvicorn.Server(server_config(app, host, port, head_timeout, log_level="warning"))
    original_startup = server.startup

    async def startup(sockets: Any = None) -> None:
        await original_startup(sockets)
        # --port 0 asks the system for a free port: report the one actually bound.
        bound = [s.getsockname()[1] for srv in server.servers for s in srv.sockets or ()]
        print(
            f"lyt sandbox ready at {served_url(host, bound[0] if bound else port)}"
            f" (app id {config.credentials.app_id}; {plan_words(app.state.budget.status())})",
            flush=True,
        )

    server.startup = startup  # type: ignore[method-assign]
    server.run()
