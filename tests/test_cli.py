"""The ``lyt`` command's sandbox subcommands, run the way a user runs them."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sandbox.serving import refusing_to_serve, serve_refused
from shared_tls import TLS

from lyt_toolkit.cli import main
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, SandboxCredentials

_DEMO = SandboxCredentials(**DEFAULT_CREDENTIALS)  # what a child with no LYT_* variables uses
KEYS = {"X-App-Id": _DEMO.app_id, "X-App-Token": _DEMO.app_token}


@contextmanager
def _serve(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run ``lyt sandbox serve`` in a child process until its ready line appears.

    ``--port 0`` lets the server pick a free port and print it, so no other process
    can take the port between choosing and binding it.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("LYT_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "ready at" in line, line
        yield line, proc
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # waits, and closes its pipe


def _rewards(base_url: str) -> list[dict]:
    headers = _headers(base_url)
    response = httpx.get(
        f"{base_url}/v2/loyalties/rewards", params={"limit": 100}, headers=headers, verify=TLS
    )
    response.raise_for_status()
    return response.json()["data"]


def test_generate_writes_a_program_the_sandbox_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "big.json"
    args = ["sandbox", "generate", "--out", str(out), "--rewards", "40", "--benefits", "15"]
    args += ["--members", "6", "--pending-buckets", "9", "--programs", "2", "--seed", "3"]
    assert main(args) == 0
    said = capsys.readouterr().out  # what was generated, not only where (earlier: "wrote OUT")
    assert said == (
        f"wrote {out}: 2 programs, 6 members, 6 cards, 9 pending buckets, 40 rewards,"
        " 15 benefits, 10 card definitions, 10 tier structures, seed 3\n"
    )
    program = json.loads(out.read_text())
    assert len(program["rewards"]) == 40 and len(program["benefits"]) == 15
    assert len(program["cards"]) == 6 and len(program["pending_buckets"]) == 9
    assert len(program["programs"]) == 2

    argv = ("--data", str(out), "--now", "2026-01-15T12:00:00Z", "--seed", "1")
    with _serve(*argv, "--plan", "professional") as (line, _):
        # the budget in force (earlier: "(app id sandbox-app-id)" alone)
        assert line.endswith("; plan professional, 5,000 calls an hour)\n"), line
        base_url = line.split("ready at ")[1].split()[0]
        assert base_url.startswith("http://127.0.0.1:")
        assert {r["id"] for r in _rewards(base_url)} == {r["id"] for r in program["rewards"]}


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--data", "/nonexistent/program.json"], "--data"),
        (["--now", "yesterday-ish"], "--now"),
        (["--port", "99999"], "--port"),
    ],
)
def test_serve_refuses_bad_options_naming_them(
    args: list[str], field: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run in this process (``python -m lyt_toolkit.cli`` exits with what ``main`` returns; an
    exception escaping it would fail the test): no interpreter started for a refusal."""
    stderr = serve_refused(monkeypatch, capsys, *args)
    assert field in stderr
    assert "Traceback" not in stderr


def test_generate_describes_its_program_with_separators_from_1000(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The program file's ``description`` writes its counts as the toolkit's texts do
    (``1,200 members``, where it read ``1200 members``), and ``1 program`` for one (it read
    ``1 program(s)``)."""
    out = tmp_path / "big.json"
    args = ["sandbox", "generate", "--out", str(out), "--rewards", "1000", "--benefits", "2"]
    args += ["--members", "1200", "--pending-buckets", "1500", "--programs", "1", "--seed", "3"]
    assert main(args) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["description"] == (
        "Synthetic program (seed 3): 1,000 rewards, 2 benefits, 10 card definitions, 10 tier"
        " structures, 1,200 members over 1 program, 1,500 pending buckets."
    )


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--rewards", "-5"], "--rewards: must be at least 0, got -5"),
        (["--programs", "0"], "--programs: must be at least 1, got 0"),
        (["--card-definitions", "1"], "--card-definitions: must be at least 2, got 1"),
        (["--pending-buckets", "-1"], "--pending-buckets: must be at least 0, got -1"),
        (
            ["--members", "0", "--pending-buckets", "3"],
            "--pending-buckets: needs --members above 0 to hold them",
        ),
    ],
)
def test_generate_refuses_bad_counts_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], reason: str
) -> None:
    out = tmp_path / "big.json"
    assert main(["sandbox", "generate", "--out", str(out), *args]) == 2
    assert capsys.readouterr().err == f"lyt sandbox generate: {reason}\n"
    assert not out.exists()


def test_generate_to_an_unwritable_path_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker / "big.json"
    assert main(["sandbox", "generate", "--out", str(out), "--rewards", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lyt sandbox generate: --out: cannot write {out}")
    assert len(err.strip().splitlines()) == 1


def test_serve_with_a_db_file_resumes_where_it_left_off(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite"
    with _serve("--db", str(db), "--seed", "2") as (line, _):
        base_url = line.split("ready at ")[1].split()[0]
        active = next(r for r in _rewards(base_url) if r["status"] == "ACTIVE")
        headers = _headers(base_url)
        drafted = httpx.post(
            f"{base_url}/v2/loyalties/rewards/{active['id']}/draft", headers=headers, verify=TLS
        )
        assert drafted.status_code == 200
        first = _create_benefit(base_url, "Resumed bonus one")
    assert db.exists()
    with _serve("--db", str(db), "--seed", "2") as (line, _):
        base_url = line.split("ready at ")[1].split()[0]
        statuses = {r["id"]: r["status"] for r in _rewards(base_url)}
        assert statuses[active["id"]] == "DRAFT"  # the change survived the restart
        second = _create_benefit(base_url, "Resumed bonus two")
        assert second["id"] != first["id"]  # the same seed mints no ID twice
        listed = httpx.get(
            f"{base_url}/v2/loyalties/benefits",
            params={"filters[name][conditions][$starts_with]": "Resumed bonus"},
            headers=_headers(base_url),
            verify=TLS,
        ).json()["data"]
        assert {b["id"] for b in listed} == {first["id"], second["id"]}


def _headers(base_url: str) -> dict[str, str]:
    token = httpx.post(
        f"{base_url}/oauth/token",
        data={"grant_type": "client_credentials", "scope": "loyalties"},
        headers=KEYS,
        verify=TLS,
    ).json()["access_token"]
    return {**KEYS, "Authorization": f"Bearer {token}"}


def _create_benefit(base_url: str, name: str) -> dict:
    body = {
        "name": name,
        "type": "POINTS",
        "points": {"value": 5, "card_definition_id": "lcdef_c0ffee0001"},
    }
    response = httpx.post(
        f"{base_url}/v2/loyalties/benefits", json=body, headers=_headers(base_url), verify=TLS
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_a_resumed_db_settles_activations_a_stopped_sandbox_left_open(tmp_path: Path) -> None:
    from lyt_toolkit.sandbox import Sandbox
    from lyt_toolkit.sandbox.store import Store

    db = tmp_path / "sandbox.sqlite"
    with Sandbox.start(db=str(db), now="2026-01-15T12:00:00Z"):
        pass
    # What a sandbox stopped mid-activation leaves behind: a PENDING transaction and
    # the marker that the activation is still settling.
    store = Store(str(db))
    bucket = store.get("pending_buckets", "lcppb_c0ffee0001")
    assert bucket is not None and bucket["status"] == "PENDING"
    transaction = {
        "id": "lctx_00000000000000aa",
        "card_id": bucket["card_id"],
        "program_id": bucket["program_id"],
        "member_id": bucket["member_id"],
        "card_definition_id": bucket["card_definition_id"],
        "card_type": "INDIVIDUAL",
        "type": "PENDING_POINTS_ACTIVATED",
        "details": {"bucket": {"id": bucket["id"], "points": bucket["points"]}},
        "status": "PENDING",
        "created_at": "2026-01-15T12:00:00.000Z",
        "updated_at": None,
        "object": "card_transaction",
    }
    store.put("card_transactions", transaction, scope=bucket["card_id"])
    store.put("settling_activations", {"id": bucket["id"], "transaction_id": transaction["id"]})
    store.close()

    with Sandbox.start(db=str(db), now="2026-01-15T12:00:00Z") as sb:
        path = (
            f"/v2/loyalties/programs/{bucket['program_id']}/members/{bucket['member_id']}"
            f"/cards/{bucket['card_id']}/pending-points"
        )
        headers = _headers(sb.base_url)
        buckets = httpx.get(sb.base_url + path, headers=headers, verify=TLS).json()["data"]
        assert bucket["id"] not in {b["id"] for b in buckets}  # settled: no longer PENDING
        again = httpx.post(
            f"{sb.base_url}{path}/{bucket['id']}/activate", headers=headers, verify=TLS
        )
        assert again.status_code == 423
        assert "not PENDING" in again.json()["details"]
    store = Store(str(db))
    settled = store.get("pending_buckets", "lcppb_c0ffee0001")
    store.close()
    assert settled is not None and settled["status"] == "ACTIVATED"


def test_a_reader_that_goes_away_gets_no_traceback() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `lyt audit --rules | head` once head has exited
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lyt_toolkit.cli", "audit", "--rules"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert proc.stderr == ""


_SERVE = [sys.executable, "-m", "lyt_toolkit.cli", "sandbox", "serve"]


def _serve_on(host: str, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*_SERVE, "--port", "0", "--host", host, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _demo_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("LYT_")}


OWN_CREDENTIALS = {
    "LYT_APP_ID": "rehearsal-app",
    "LYT_APP_TOKEN": "rehearsal-app-secret-1",
    "LYT_MANAGEMENT_ID": "rehearsal-mgmt",
    "LYT_MANAGEMENT_TOKEN": "rehearsal-mgmt-secret-2",
}
"""The sandbox's credentials set in the environment, none of them the demo's."""


def _own_credentials_env() -> dict[str, str]:
    return {**_demo_env(), **OWN_CREDENTIALS}


def _ready_then_stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The ready line, and what the child wrote to stderr up to it, once it has stopped."""
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    return line, err


def _refused_beyond_loopback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str]
) -> tuple[str, str]:
    """What ``lyt sandbox serve --host 0.0.0.0``, run in this process with no ``LYT_*``
    variable but ``env``'s, prints (stdout, stderr): it must refuse, exit 2, before serving
    (``refusing_to_serve``: it fails, not hangs, should it serve). A refusal needs no
    interpreter of its own."""
    for name in [name for name in os.environ if name.startswith("LYT_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    with refusing_to_serve():  # before: it served
        assert main(["sandbox", "serve", "--port", "0", "--host", "0.0.0.0"]) == 2
    return capsys.readouterr()


def test_serve_beyond_loopback_with_the_demo_credentials_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _refused_beyond_loopback(monkeypatch, capsys, {})
    assert out == ""
    assert err.count("\n") == 1 and "--host 0.0.0.0" in err and "LYT_APP_TOKEN" in err
    assert "--unsafe-public-demo-credentials" in err
    assert _DEMO.app_token not in err and _DEMO.management_token not in err


def test_serve_beyond_loopback_with_the_unsafe_option_warns_on_stderr() -> None:
    proc = _serve_on("0.0.0.0", "--unsafe-public-demo-credentials", env=_demo_env())
    line, err = _ready_then_stop(proc)
    assert "ready at" in line and "warning" not in line
    assert "warning: binding 0.0.0.0" in err and "PUBLIC DEMO CREDENTIALS" in err


def test_serve_beyond_loopback_with_own_credentials_warns_on_stderr() -> None:
    proc = _serve_on("0.0.0.0", env=_own_credentials_env())
    line, err = _ready_then_stop(proc)
    assert "ready at" in line and "warning" not in line
    assert "warning: binding 0.0.0.0" in err and "DEMO" not in err
    assert "rehearsal-app-secret-1" not in err + line


def test_serve_beyond_loopback_with_some_demo_credentials_left_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = dict(OWN_CREDENTIALS)
    del env["LYT_MANAGEMENT_TOKEN"]  # the management pair falls back to the demo value
    _, err = _refused_beyond_loopback(monkeypatch, capsys, env)
    assert "LYT_MANAGEMENT_TOKEN" in err and "LYT_APP_TOKEN" not in err


def test_serve_on_loopback_prints_its_base_url_with_the_port_it_bound_and_no_warning() -> None:
    """``--port 0`` (the last ``--port`` wins): the ready line gives the port bound, never
    ``:0``, and never a token; the sandbox answers there; nothing is warned on loopback. One
    process serves these checks (earlier three tests, each with a process of its own)."""
    proc = _serve_on("127.0.0.1", "--port", "0", env=_demo_env())
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
        assert "ready at" in line, line
        base_url = line.split("ready at ")[1].split()[0]
        assert base_url.startswith("http://127.0.0.1:") and not base_url.endswith(":0")
        assert len(_rewards(base_url)) > 10
    finally:
        proc.terminate()
        rest, err = proc.communicate(timeout=30)
    said = line + rest + err
    assert _DEMO.app_token not in said and _DEMO.management_token not in said
    assert "warning" not in err


@pytest.mark.parametrize("enabled", [True, False])
def test_serve_leaves_the_cycle_collector_as_it_found_it(
    enabled: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lyt sandbox serve`` imports and loads without the collector, called in-process too."""
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with refusing_to_serve():
            assert main(["sandbox", "serve", "--port", "70000"]) == 2
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert "--port" in capsys.readouterr().err
