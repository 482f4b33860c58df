"""A ``--db`` sandbox across restarts and kills: nothing acknowledged is lost, no ID repeats."""

from __future__ import annotations

import contextlib
import random
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.state import IncompleteDatabase
from lyt_toolkit.sandbox.store import ROWS_PER_INSERT, DuplicateId, Store
from lyt_toolkit.synthetic import write_program

from .helpers import v2_client, walk
from .serving import KEYS, benefit_body, demo_env, serve_command, serve_refused, served, v2_headers

NOW = "2026-01-15T12:00:00Z"
SEED = 7


def _nth_id(seed: int, n: int, prefix: str) -> str:
    """The ``n``-th ID (1-based) a generator seeded with ``seed`` mints."""
    generator = random.Random(seed)
    for _ in range(n - 1):
        generator.getrandbits(64)
    return f"{prefix}{generator.getrandbits(64):016x}"


WEBHOOKS = [
    ("proj_NwMain01", "wh_NwMainLoyalty01"),
    ("proj_NwMain01", "wh_NwMainCustomers02"),
    ("proj_NwStage01", "wh_NwStageAll01"),
]


def test_restarts_keep_every_acknowledged_benefit_and_reuse_no_id(tmp_path: Path) -> None:
    """Each run creates a benefit and deletes a webhook (so the row count repeats), then
    pages through the benefits (minting cursors); a last run only pages."""
    db = str(tmp_path / "sandbox.sqlite")
    created: dict[str, str] = {}
    for run in range(len(WEBHOOKS) + 1):
        with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
            if run < len(WEBHOOKS):
                response = api.post("/v2/loyalties/benefits", json=benefit_body(f"Run {run}"))
                assert response.status_code == 200, response.text
                assert response.json()["id"] not in created
                created[response.json()["id"]] = f"Run {run}"
                project, webhook = WEBHOOKS[run]
                creds = sb.credentials
                deleted = httpx.delete(
                    f"{sb.base_url}/management/v1/projects/{project}/webhooks/{webhook}",
                    headers={
                        "X-Management-Id": creds.management_id,
                        "X-Management-Token": creds.management_token,
                    },
                    verify=TLS,
                )
                assert deleted.status_code == 204, deleted.text
            listed = walk(api, "/v2/loyalties/benefits", [("limit", 5)])  # mints cursors
            names = {b["id"]: b["name"] for b in listed}
            assert {i: names.get(i) for i in created} == created


def test_the_same_seed_on_a_fresh_database_gives_the_same_ids(tmp_path: Path) -> None:
    first_ids = []
    for name in ("one.sqlite", "two.sqlite"):
        with Sandbox.start(db=str(tmp_path / name), seed=SEED, now=NOW) as sb, v2_client(sb) as api:
            response = api.post("/v2/loyalties/benefits", json=benefit_body("Seeded"))
            first_ids.append(response.json()["id"])
    assert first_ids == [_nth_id(SEED, 1, "lben_")] * 2


def test_a_create_never_overwrites_the_row_holding_its_id(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, seed=SEED, now=NOW):
        pass
    store = Store(db)
    planted = {**store.all("benefits")[0], "id": _nth_id(SEED, 1, "lben_"), "name": "Planted"}
    store.put("benefits", planted)
    store.close()
    with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        response = api.post("/v2/loyalties/benefits", json=benefit_body("Newcomer"))
        assert response.status_code != 200
        assert api.get(f"/v2/loyalties/benefits/{planted['id']}").json()["name"] == "Planted"


def test_many_rows_go_in_whole_statements_and_a_repeated_id_writes_none() -> None:
    store = Store()
    count = 2 * ROWS_PER_INSERT + 3  # two whole statements and the rest one by one
    docs = [({"id": f"lben_{i:04x}", "name": f"B{i}"}, "", True) for i in range(count)]
    store.insert_many("benefits", docs)
    assert [doc["id"] for doc in store.all("benefits")] == [doc["id"] for doc, _, _ in docs]
    more = [({"id": f"lben_x{i}"}, "", True) for i in range(2 * ROWS_PER_INSERT)]
    more[ROWS_PER_INSERT + 1] = docs[5]  # taken, in the second statement
    with pytest.raises(DuplicateId, match="benefits: already exists"):
        store.insert_many("benefits", more)
    assert store.size() == count


def test_a_cursor_token_already_taken_is_skipped(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        first = api.get("/v2/loyalties/benefits", params={"limit": 5}).json()["cursor"]["next"]
    prefix = first.rstrip("0123456789abcdef")
    assert first == _nth_id(SEED + 1, 1, prefix)
    taken = _nth_id(SEED + 1, 2, prefix)
    store = Store(db)
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO cursors VALUES (?, 'other', 'x', '[]', '9999-01-01T00:00:00.000Z')",
            (taken,),
        )
    store.close()
    with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        response = api.get("/v2/loyalties/benefits", params={"limit": 5})
        assert response.status_code == 200, response.text
        assert response.json()["cursor"]["next"] not in (first, taken)


def test_a_database_whose_load_never_finished_is_refused_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "half.sqlite"
    store = Store(str(db))
    store.insert("rewards", {"id": "lrew_c0ffee0001", "name": "Only one"})
    store.close()
    stderr = serve_refused(monkeypatch, capsys, "--db", str(db))
    assert stderr.count("\n") == 1 and str(db) in stderr, stderr
    assert "Traceback" not in stderr


def test_sandbox_start_refuses_a_half_loaded_database(tmp_path: Path) -> None:
    db = tmp_path / "half.sqlite"
    store = Store(str(db))
    store.insert("rewards", {"id": "lrew_c0ffee0001", "name": "Only one"})
    store.close()
    with pytest.raises(IncompleteDatabase, match=r"half\.sqlite"), Sandbox.start(db=str(db)):
        pass


def test_a_sandbox_killed_during_its_first_load_loads_afresh_next_time(tmp_path: Path) -> None:
    program, db = tmp_path / "big.json", tmp_path / "sandbox.sqlite"
    write_program(program, seed=1, rewards=20000, benefits=2000)
    proc = subprocess.Popen(
        serve_command("--data", str(program), "--db", str(db)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=demo_env(),
    )
    wal = Path(f"{db}-wal")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if wal.exists() and wal.stat().st_size > 1_000_000:  # the load is under way
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Sandbox.start(str(program), db=str(db)) as sb:  # served next time, in this process
        headers = v2_headers(sb.base_url)
        response = httpx.get(
            f"{sb.base_url}/v2/loyalties/rewards", params={"limit": 1}, headers=headers, verify=TLS
        )
        assert response.status_code == 200
    with sqlite3.connect(db) as conn:
        counts = dict(conn.execute("SELECT kind, COUNT(*) FROM resources GROUP BY kind").fetchall())
    assert counts["rewards"] == 20000 and counts["benefits"] == 2000


def _write_until_killed(base_url: str, acknowledged: dict[str, str], prefix: str) -> list[str]:
    """Create benefits until the server goes away; note each acknowledged one."""
    problems: list[str] = []
    headers = v2_headers(base_url)
    with httpx.Client(base_url=base_url, headers=headers, timeout=30, verify=TLS) as client:
        for i in range(100_000):
            name = f"{prefix} {i}"
            try:
                response = client.post("/v2/loyalties/benefits", json=benefit_body(name))
            except httpx.TransportError:
                return problems
            if response.status_code != 200:
                problems.append(response.text)
                return problems
            acknowledged[response.json()["id"]] = name
    return problems


def test_kills_while_writing_lose_no_acknowledged_benefit(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    acknowledged: dict[str, str] = {}
    problems: list[str] = []
    for kill in range(5):
        with served("--db", db, "--seed", str(SEED)) as (base_url, proc):
            before = len(acknowledged)
            writer = threading.Thread(
                target=lambda url=base_url, name=f"Kill {kill}": problems.extend(
                    _write_until_killed(url, acknowledged, name)
                )
            )
            writer.start()
            deadline = time.monotonic() + 60
            while len(acknowledged) < before + 20 + 7 * kill and time.monotonic() < deadline:
                time.sleep(0.001)
            proc.send_signal(signal.SIGKILL)  # while the writer is mid-request
            writer.join(timeout=60)
    assert problems == []
    with Sandbox.start(db=db, seed=SEED) as sb:  # served again, in this process
        api = httpx.Client(
            base_url=sb.base_url, headers=v2_headers(sb.base_url), timeout=30, verify=TLS
        )
        with api:
            stored = {b["id"]: b["name"] for b in walk(api, "/v2/loyalties/benefits")}
    lost = {i: n for i, n in acknowledged.items() if stored.get(i) != n}
    assert len(acknowledged) >= 5 * 20 and lost == {}


def test_a_sandbox_killed_during_a_reset_resumes_a_whole_program(tmp_path: Path) -> None:
    program, db = tmp_path / "big.json", tmp_path / "sandbox.sqlite"
    write_program(program, seed=1, rewards=20000, benefits=2000)
    wal = Path(f"{db}-wal")
    with served("--data", str(program), "--db", str(db)) as (base_url, proc):
        written = wal.stat().st_mtime_ns
        reset = threading.Thread(
            target=lambda: _ignore_transport_errors(
                lambda: httpx.post(
                    f"{base_url}/_sandbox/reset", headers=KEYS, timeout=120, verify=TLS
                )
            )
        )
        reset.start()
        deadline = time.monotonic() + 60
        while wal.stat().st_mtime_ns == written and time.monotonic() < deadline:
            time.sleep(0.002)  # until the reset writes
        proc.send_signal(signal.SIGKILL)
        reset.join(timeout=60)
    with Sandbox.start(str(program), db=str(db)) as sb:  # served again, in this process
        response = httpx.get(
            f"{sb.base_url}/v2/loyalties/rewards",
            params={"limit": 1},
            headers=v2_headers(sb.base_url),
            verify=TLS,
        )
        assert response.status_code == 200
    with sqlite3.connect(db) as conn:
        counts = dict(conn.execute("SELECT kind, COUNT(*) FROM resources GROUP BY kind").fetchall())
    assert counts["rewards"] == 20000 and counts["benefits"] == 2000


def _ignore_transport_errors(call: Callable[[], object]) -> None:
    with contextlib.suppress(httpx.TransportError):
        call()


def test_a_db_file_runs_in_wal_mode_and_waits_for_another_writer(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite"
    with Sandbox.start(db=str(db), seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock a moment
        release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
        release.start()
        response = api.post("/v2/loyalties/benefits", json=benefit_body("Waited"))
        release.join()
        other.close()
        assert response.status_code == 200, response.text


def test_a_database_written_when_the_sandbox_listed_every_bucket_lists_pending_ones_only(
    tmp_path: Path,
) -> None:
    """A ``--db`` file loaded by a build that listed a card's ACTIVATED and CANCELED buckets
    too is resumed listing its PENDING buckets only, as the service does."""
    db = str(tmp_path / "sandbox.sqlite")
    card = "/v2/loyalties/programs/lprg_c0ffee0001/members/lmbr_c0ffee0001/cards/lcrd_c0ffee0001"
    with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        fresh = {b["id"]: b["status"] for b in walk(api, f"{card}/pending-points", [])}
    assert set(fresh.values()) == {"PENDING"}
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # as an older build left it
        conn.execute("UPDATE resources SET listed = 1 WHERE kind = 'pending_buckets'")
    with Sandbox.start(db=db, seed=SEED, now=NOW) as sb, v2_client(sb) as api:
        resumed = {b["id"]: b["status"] for b in walk(api, f"{card}/pending-points", [])}
    assert resumed == fresh
