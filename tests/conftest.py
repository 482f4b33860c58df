"""Shared fixtures: sandboxes reached only over real HTTP, and clients built for them.

Every test directory serves its own sandbox(es) through ``start_sandbox`` so its
data, and for the client tests their distinctive credentials, stay its own.
``sandbox`` and ``restore`` serve the sandbox tests; a directory that defines a
session fixture ``sb`` gets ``fresh`` (that ``sb`` put back before the test), and a module
or directory that defines ``sb`` gets ``saved`` (its program pulled and saved, once a module).
``fresh_pulled`` is that ``fresh`` sandbox's program as pulled at the test's start, pulled once
a module. ``generated``, a generated program only read, is the second of ``each_program``.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fixture_types import ClientOf
from hypothesis import settings
from shared_tls import TLS

from lyt_toolkit import _secret
from lyt_toolkit._services import HOLDS_HEADER
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox, SandboxCredentials
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.synthetic import generate_program

if TYPE_CHECKING:
    from lyt_toolkit import ProgramSnapshot

# ``import jsonschema`` (tests/sandbox/reference.py) imports rfc3987_syntax where installed, for
# the "iri" and "iri-reference" formats, and it builds 38 grammars: 1.7 s of CPU in every
# process of the suite that imports jsonschema (each worker, the fuzz run). No document the
# tests validate against uses those formats (the reference subsets and the sandbox's own use
# "date", "date-time" and "time"), and the reference checks pass no format checker: jsonschema
# checks what it checked before, without the grammars.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

# Property tests judge behaviour, not speed: on a loaded two-core machine a single example
# can take longer than Hypothesis' default 200 ms deadline without anything being wrong.
# ``make test`` tries the same examples on every run (``derandomize``): a landing is never
# refused for an example no run tried before. ``make explore`` (``--hypothesis-profile
# explore``) tries new ones each run, to look for what the fixed ones miss.
settings.register_profile("lyt", deadline=None, derandomize=True)
settings.register_profile("explore", deadline=None)
settings.load_profile("lyt")

LONGEST_FIRST = (
    "actions/test_edited_csv.py",
    "frames/test_sample.py",
    "sandbox/test_persistence.py",
    "economics/test_what_if.py",
    "snapshot/test_checkpoint.py",
    "actions/test_rehearsal_after.py",
    "actions/test_plan_file_hostile.py",
    "actions/test_apply_processes.py",
    "test_cli_paced.py",
    "whatif/test_resummarise.py",
    "actions/test_plan_file.py",
    "reports/test_spreadsheet_safe.py",
    "widgets/test_edit_panel.py",
    "snapshot/test_pull_budget.py",
    "docs/test_examples.py",
    "actions/test_rehearsal.py",
    "reports/test_economics_cli.py",
)
"""The files that take longest (about 40 s or more each: ``--junitxml``'s per-test times
summed by file, measured 2026-12-04), longest first.

``pytest -n 2 --dist loadfile`` hands out whole files in the order they are collected, so
these go first and the many short files fill the workers' ends; were one of these handed
out last, one worker would run it alone while the others idle. A file missing here only
runs later; nothing is left out. (xdist's own reordering, by number of tests, is turned
off: it put a file of few long tests, as ``test_lowest.py`` was before it moved to the
Makefile's second stream, among the last.)
"""


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # A shell starts a background job (``make test &``) with Ctrl-C ignored, and every
        # process it starts inherits that: the tests that press Ctrl-C on a ``lyt`` process
        # need it heard, so the tests' processes hear it again.
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (the modules of the package, its libraries and the tests) is
    frozen, as a ``lyt`` process freezes what its start-up built: the collector's scans skip
    it from then on; what the tests make stays collectable. Measured on three heavy files
    (2026-12-07, gc callbacks): 4.6 -> 2.8 s of collection in a 100 s run."""
    gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """xdist runs one test per ID: a repeated one (schemathesis gives each operation of a
    document its function's ID) would silently leave the others unrun, so the run stops."""
    counts = Counter(ids)
    repeated = sorted(nodeid for nodeid, count in counts.items() if count > 1)
    if repeated:
        raise pytest.UsageError(
            f"test IDs repeat, and xdist would run one of each: {', '.join(repeated)}; run "
            "their files without -n (the Makefile's FUZZ)"
        )


def _files_by_length(items: list[pytest.Item]) -> dict[Path, int]:
    """Each file's rank: its place in ``LONGEST_FIRST``, then the others by number of
    tests."""
    here = Path(__file__).parent
    counts: dict[Path, int] = {}
    for item in items:
        counts[item.path] = counts.get(item.path, 0) + 1
    ranked = [here / name for name in LONGEST_FIRST]
    ranked += sorted((f for f in counts if f not in ranked), key=lambda f: -counts[f])
    return {path: rank for rank, path in enumerate(ranked)}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput"):  # not an xdist worker: the order is left as it is
        return
    rank = _files_by_length(items)
    items.sort(key=lambda item: rank.get(item.path, len(rank)))  # stable: in-file order kept


NOW = "2026-01-15T12:00:00Z"
"""The clock sandboxes start at (the demo program's own default)."""


@pytest.fixture(autouse=True)
def _no_secret_of_another_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts holding no client's secret (``_secret.HELD``, which every
    ``LytError`` masks): one test's short token (``"token"``) would otherwise mask that word
    in the messages of every test after it in the process. A client a test (or a
    function-scoped fixture) makes holds its secrets again; a session-scoped one's are not
    held during the test (its own scrubber still masks them in what it raises)."""
    monkeypatch.setattr(_secret, "HELD", _secret.HeldSecrets())


@contextmanager
def _start_sandbox(
    data: str | Path | dict[str, Any] | None = None,
    *,
    now: str | None = NOW,
    seed: int | None = 7,
    credentials: SandboxCredentials | None = None,
) -> Iterator[Sandbox]:
    with Sandbox.start(data, now=now, seed=seed, credentials=credentials) as sb:
        yield sb


def _client_for(sb: Sandbox, **kwargs: Any) -> LoyaltyClient:
    return LoyaltyClient(
        base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs(), **kwargs
    )


@contextmanager
def _hearing_no_holds(sb: Sandbox) -> Iterator[LoyaltyClient]:
    """A client of ``sb`` that hears no ``Lyt-Sandbox-Holds``, as a client of the service
    itself does (it sends none)."""

    def unsaid(response: httpx.Response) -> None:
        response.headers.pop(HOLDS_HEADER, None)

    with (
        httpx.Client(event_hooks={"response": [unsaid]}, verify=TLS) as http,
        _client_for(sb, http_client=http) as client,
    ):
        yield client


_CHANGED: set[Sandbox] = set()
"""The sandboxes a ``fresh`` test may have changed since they were last put back."""


def _put_back(sb: Sandbox) -> None:
    """No faults, the clock at ``NOW``, then the program reloaded at that clock."""
    sb.clear_faults()
    sb.set_clock(NOW)
    sb.reset()
    _CHANGED.discard(sb)


@pytest.fixture(scope="session")
def start_sandbox() -> Callable[..., AbstractContextManager[Sandbox]]:
    """``with start_sandbox(data=None, now=NOW, seed=7, credentials=None) as sb``.

    The bundled demo unless ``data`` is given; ``now=None`` runs on the real clock.
    """
    return _start_sandbox


@pytest.fixture(scope="session")
def hearing_no_holds() -> ClientOf:
    """``with hearing_no_holds(sb) as client:`` a client of ``sb`` that hears no
    ``Lyt-Sandbox-Holds`` (as of the service itself)."""
    return _hearing_no_holds


@pytest.fixture(scope="session")
def make_client() -> Callable[..., LoyaltyClient]:
    """``make_client(sb, **client_kwargs)``: a client connected to sandbox ``sb``."""
    return _client_for


def _lyt_env(sb: Sandbox) -> dict[str, str]:
    """The environment that points ``lyt`` at sandbox ``sb`` (no progress bars)."""
    env = {"LYT_PROGRESS": "off", "LYT_BASE_URL": sb.base_url}
    env.update({f"LYT_{k.upper()}": v for k, v in asdict(sb.credentials).items()})
    return env


BACKGROUND = ["sh", "-c", "trap '' INT; exec \"$@\"", "sh"]
"""A command's prefix starting it as a shell script's background job (``lyt ... &``): with
Ctrl-C (SIGINT) ignored, so SIGTERM is what stops it."""


def _lyt_process(
    sb: Sandbox, cwd: Path, *args: str, progress: str, background: bool
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*(BACKGROUND if background else []), sys.executable, "-m", "lyt_toolkit.cli", *args],
        cwd=cwd,
        env={**os.environ, **_lyt_env(sb), "LYT_PROGRESS": progress},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextmanager
def _lyt_processes() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``lyt_process``'s starter; those still running when the block ends are killed."""
    started: list[subprocess.Popen[str]] = []

    def start(
        sb: Sandbox, cwd: Path, *args: str, progress: str = "off", background: bool = False
    ) -> subprocess.Popen[str]:
        started.append(_lyt_process(sb, cwd, *args, progress=progress, background=background))
        return started[-1]

    try:
        yield start
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


@pytest.fixture
def lyt_process() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``lyt_process(sb, cwd, *args)``: ``lyt ARGS`` started as a process of its own in
    ``cwd``, configured for sandbox ``sb`` through the environment (no progress bars, unless
    ``progress=`` gives ``LYT_PROGRESS`` another value), its output captured as text, as a
    user's shell runs it (``background=True``: as a script's background job, Ctrl-C ignored,
    ``BACKGROUND``). One still running when the test ends (a failed test's) is killed,
    not left behind."""
    with _lyt_processes() as start:
        yield start


@pytest.fixture(scope="module")
def module_lyt_process() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``lyt_process`` for a module-scoped fixture: a run several tests read the result of
    (one still running when the module ends is killed)."""
    with _lyt_processes() as start:
        yield start


def _point_lyt(monkeypatch: pytest.MonkeyPatch, sb: Sandbox, cwd: Path) -> None:
    """``lyt`` run in this process talks to ``sb`` from ``cwd``, while ``monkeypatch`` holds."""
    monkeypatch.chdir(cwd)
    for key, value in _lyt_env(sb).items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def configure_lyt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[Sandbox], None]:
    """``configure_lyt(sb)``: ``lyt`` run in this test (``main([...])``) talks to sandbox ``sb``,
    from ``tmp_path`` (no ``.env`` from the working copy), without progress bars."""

    def configure(sb: Sandbox) -> None:
        _point_lyt(monkeypatch, sb, tmp_path)

    return configure


@contextmanager
def _lyt_configured(sb: Sandbox, cwd: Path) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _point_lyt(monkeypatch, sb, cwd)
        yield


@pytest.fixture(scope="session")
def lyt_configured() -> Callable[[Sandbox, Path], AbstractContextManager[None]]:
    """``with lyt_configured(sb, cwd):`` ``configure_lyt`` for a module-scoped fixture: ``lyt``
    run in this process (``main([...])``) talks to ``sb`` from ``cwd`` inside the block."""
    return _lyt_configured


@pytest.fixture(scope="session")
def generated() -> Iterator[Sandbox]:
    """A generated program of 230 rewards (five pages of 50) on its own clock, for reads only;
    the second program of ``each_program``."""
    program = generate_program(
        rewards=230, benefits=130, card_definitions=10, tier_structures=10, members=10, seed=3
    )
    with _start_sandbox(program, now=program["now"]) as sb:
        yield sb


@pytest.fixture(scope="module")
def running() -> Iterator[Sandbox]:
    """The demo program on a running clock, its budget windows resetting by themselves (a
    module's own: its tests set its plan and clock)."""
    program = json.loads(DEMO_PROGRAM.read_text())
    del program["now"]
    with _start_sandbox(program, now=None) as sb:
        yield sb


@pytest.fixture(params=["demo", "generated"])
def each_program(request: pytest.FixtureRequest) -> Sandbox:
    """The test's directory's (or module's) ``demo`` sandbox, then its ``generated`` one: the
    test runs on each."""
    sandbox: Sandbox = request.getfixturevalue(request.param)
    return sandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """The demo program on a fixed clock; tests that change it ask for ``restore``."""
    with _start_sandbox() as sb:
        yield sb


@pytest.fixture
def restore(sandbox: Sandbox) -> Iterator[Sandbox]:
    """The shared sandbox, put back to the demo data, clock and no faults afterwards."""
    yield sandbox
    _put_back(sandbox)


@pytest.fixture
def fresh(sb: Sandbox) -> Sandbox:
    """The directory's own sandbox ``sb``, put back before the test.

    Not again after it: whatever uses ``sb`` next puts it back first (a ``fresh`` test,
    ``fresh_pulled``'s pull; ``saved`` when a ``fresh`` test may have changed it): one reload
    a test, not two.
    """
    _put_back(sb)
    _CHANGED.add(sb)
    return sb


@pytest.fixture(scope="module")
def _fresh_pulled(sb: Sandbox) -> ProgramSnapshot:
    """``sb`` put back, then pulled whole: once a module."""
    from lyt_toolkit import ProgramSnapshot  # the snapshot package, only where it is needed

    _put_back(sb)
    with _client_for(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture
def fresh_pulled(_fresh_pulled: ProgramSnapshot, fresh: Sandbox) -> ProgramSnapshot:
    """What a pull of ``fresh`` gives at the test's start (it is put back to the same program
    and clock every time): pulled once a module, a copy of its own for each test."""
    return copy.deepcopy(_fresh_pulled)


@pytest.fixture(scope="module")
def saved(sb: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``sb``'s program pulled with a checkpoint (``checkpoint``), then saved
    as CSV (``csv``) and as Parquet (``parquet``): for tests to copy and spoil."""
    from lyt_toolkit import ProgramSnapshot  # the snapshot package, only where it is needed

    root = tmp_path_factory.mktemp("saved")
    if sb in _CHANGED:
        _put_back(sb)
    with _client_for(sb) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False, checkpoint=root / "checkpoint")
    snapshot.to_csv(root / "csv")
    snapshot.to_parquet(root / "parquet")
    return root


@pytest.fixture(scope="session")
def key_headers(sandbox: Sandbox) -> dict[str, str]:
    """The application key pair."""
    creds = sandbox.credentials
    return {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token}


@pytest.fixture(scope="session")
def management_headers(sandbox: Sandbox) -> dict[str, str]:
    creds = sandbox.credentials
    return {"X-Management-Id": creds.management_id, "X-Management-Token": creds.management_token}


@pytest.fixture(scope="session")
def issue_token(sandbox: Sandbox, key_headers: dict[str, str]) -> Callable[..., dict[str, Any]]:
    """``issue_token(scope="loyalties")`` -> the access token object."""

    def issue(scope: str = "loyalties") -> dict[str, Any]:
        response = httpx.post(
            f"{sandbox.base_url}/oauth/token",
            data={"grant_type": "client_credentials", "scope": scope},
            headers=key_headers,
            verify=TLS,
        )
        assert response.status_code == 200, response.text
        return response.json()

    return issue


@pytest.fixture
def v2_headers(key_headers: dict[str, str], issue_token: Callable[..., Any]) -> dict[str, str]:
    """Key pair plus a fresh loyalties bearer token: what every ``/v2`` request needs."""
    return {**key_headers, "Authorization": f"Bearer {issue_token()['access_token']}"}


@pytest.fixture
def api(sandbox: Sandbox, v2_headers: dict[str, str]) -> Iterator[httpx.Client]:
    """An HTTP client on the sandbox carrying ``/v2`` credentials."""
    with httpx.Client(
        base_url=sandbox.base_url, headers=v2_headers, timeout=10, verify=TLS
    ) as client:
        yield client
