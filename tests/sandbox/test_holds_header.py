"""Every answer of a sandbox names what it holds (``Lyt-Sandbox-Holds``): the same in every
process serving the same program from the same database, never a credential nor a path, and
read back by the client as sent; last the instance of its state, kept with a database file,
new in memory and on a reset."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import httpx
from shared_tls import TLS

from lyt_toolkit._services import HOLDS_HEADER, forget_local, held_instance, held_reads
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, SandboxConfig, held_program
from lyt_toolkit.synthetic import generate_program

from .serving import KEYS, served

TOKEN = {"grant_type": "client_credentials", "scope": "loyalties"}


def _said(base_url: str) -> list[str]:
    """What a token answer, a list answer and a refusal (no bearer) of ``base_url`` say it
    holds."""
    token = httpx.post(f"{base_url}/oauth/token", data=TOKEN, headers=KEYS, timeout=10, verify=TLS)
    bearer = {**KEYS, "Authorization": f"Bearer {token.json()['access_token']}"}
    listed = httpx.get(f"{base_url}/v2/loyalties/rewards", headers=bearer, timeout=10, verify=TLS)
    refused = httpx.get(f"{base_url}/v2/loyalties/rewards", headers=KEYS, timeout=10, verify=TLS)
    assert (token.status_code, listed.status_code, refused.status_code) == (200, 200, 401)
    return [answer.headers[HOLDS_HEADER] for answer in (token, listed, refused)]


def test_every_process_serving_the_same_program_says_the_same(tmp_path: Path) -> None:
    program = tmp_path / "program.json"
    generated = generate_program(members=3, rewards=2, seed=4)
    program.write_text(json.dumps(generated))
    demo = "sandbox of the bundled demo program, seed 7"
    with served("--seed", "7") as (first, _), served("--seed", "7") as (second, _):
        assert first != second  # two ports
        said, other = _said(first), _said(second)
        assert [held_reads(s) for s in said] == [held_reads(s) for s in other] == [demo] * 3
        # two databases in memory: two states, each named alike on every answer
        assert len(set(said)) == len(set(other)) == 1 and said[0] != other[0]
    args = ("--data", str(program), "--seed", "3")
    with served(*args) as (first, _), served(*args) as (second, _):
        said = [held_reads(s) for s in _said(first)]
        # the file as ``lyt sandbox serve`` reads it: its program, not its bytes
        reads = [held_reads(s) for s in _said(second)]
        assert said == reads == [held_program(SandboxConfig(data=generated, seed=3))] * 3
    assert said[0].startswith("sandbox of program ") and ", seed 3" in said[0]
    assert not any(secret in said[0] for secret in DEFAULT_CREDENTIALS.values())


def _database(db: str) -> str:
    """How a sandbox names the database file ``db``: a digest of its canonical path."""
    return f"database {hashlib.sha256(os.fsencode(os.path.realpath(db))).hexdigest()[:12]}"


def test_the_database_is_named_by_a_digest_of_its_path_never_by_the_path(
    tmp_path: Path,
) -> None:
    """The header goes with every answer, a refusal too, and into a checkpoint's manifest:
    it tells two databases apart without saying where either is."""
    db = str(tmp_path / "bäse 100%.sqlite")  # not ASCII, and a "%"
    with served("--db", db, "--seed", "7", "--now", "2026-01-15T12:00:00Z") as (base_url, _):
        refused = httpx.get(
            f"{base_url}/v2/loyalties/rewards", headers=KEYS, timeout=10, verify=TLS
        )
    assert refused.status_code == 401
    sent = dict(refused.headers.raw)[HOLDS_HEADER.lower().encode()]
    said = held_program(SandboxConfig(db=db, seed=7, now="2026-01-15T12:00:00Z"))
    # the same in this process as in the one serving it
    assert held_reads(sent.decode("ascii")) == said
    assert said.endswith(f", seed 7, clock 2026-01-15T12:00:00.000Z, {_database(db)}")
    assert str(tmp_path).encode() not in sent and b"se 100" not in sent
    other = held_program(SandboxConfig(db=str(tmp_path / "other.sqlite"), seed=7))
    assert other.endswith(_database(str(tmp_path / "other.sqlite"))) and other[-12:] != said[-12:]


def test_the_client_reads_back_what_the_sandbox_holds_as_sent(tmp_path: Path) -> None:
    db = str(tmp_path / "bäse.sqlite")
    with Sandbox.start(db=db, seed=7, now="2026-01-15T12:00:00+00:00") as sb:
        forget_local(sb.base_url)
        with LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client:
            assert client._service_holds is None  # nothing heard yet
            client.fetch_token()
            holds = client._service_holds
    # the clock as an instant: however it was spelled, the same holder
    assert holds is not None and str(tmp_path) not in holds
    assert held_reads(holds) == held_program(
        SandboxConfig(db=db, seed=7, now="2026-01-15T12:00:00Z")
    )


def test_a_database_path_that_is_not_utf8_is_named_not_a_500(tmp_path: Path) -> None:
    # a file name's byte that is not UTF-8, as Python spells it: a lone surrogate
    db = os.fsdecode(os.fsencode(tmp_path) + b"/b\xffse.sqlite")
    with Sandbox.start(db=db, seed=7) as sb:
        forget_local(sb.base_url)
        answer = httpx.get(
            f"{sb.base_url}/v2/loyalties/rewards", headers=KEYS, timeout=10, verify=TLS
        )
        assert answer.status_code == 401  # no bearer: refused, not a 500
        with LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client:
            client.fetch_token()
            holds = client._service_holds
    assert holds == answer.headers[HOLDS_HEADER]
    assert held_reads(holds).endswith(f", seed 7, {_database(db)}")
    assert holds.isascii() and holds.isprintable()  # text a checkpoint's manifest can hold


def test_what_a_sandbox_holds_is_printable_ascii_whatever_it_was_given(tmp_path: Path) -> None:
    """No part needs encoding in a header: the clock is its instant, a path a digest."""
    gone = tmp_path / "prögram.json"  # a program file gone since it was loaded
    said = held_program(
        SandboxConfig(data=gone, db=str(tmp_path / "d\tb.sqlite"), now=" 2026-01-15T13:00+01:00\n")
    )
    assert said.isascii() and said.isprintable() and str(tmp_path) not in said
    assert (
        said.startswith("sandbox of program file ") and ", clock 2026-01-15T12:00:00.000Z," in said
    )


def test_the_database_is_named_by_the_file_its_path_reaches_through_links(
    tmp_path: Path,
) -> None:
    """Two spellings of one file through a symbolic link name the same database; a path
    whose ``..`` follows a link names the file it reaches, not the one its text suggests."""
    real, elsewhere = tmp_path / "real" / "sub", tmp_path / "elsewhere"
    real.mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "link").symlink_to(real, target_is_directory=True)

    def named(db: Path | str) -> str:
        return held_program(SandboxConfig(db=str(db), seed=7))

    assert named(elsewhere / "link" / "db.sqlite") == named(real / "db.sqlite")
    # "elsewhere/link/../db.sqlite" is real/db.sqlite, not elsewhere/db.sqlite
    through = f"{elsewhere}/link/../db.sqlite"
    assert named(through) == named(tmp_path / "real" / "db.sqlite")
    assert named(through) != named(elsewhere / "db.sqlite")


def test_the_state_s_instance_is_kept_with_its_database_file_and_new_on_a_reset(
    tmp_path: Path,
) -> None:
    """A sandbox served again from its database file holds the state it left there; one
    served afresh (in memory, another file) or reset holds another, its reads alike. The
    file is served by two processes in turn; the others here."""
    db = str(tmp_path / "sandbox.sqlite")

    def instance(base_url: str) -> tuple[str, str]:
        said = _said(base_url)
        assert len(set(said)) == 1
        return held_reads(said[0]), str(held_instance(said[0]))

    def served_by_a_process() -> tuple[str, str]:
        with served("--seed", "7", "--db", db) as (base_url, _):
            return instance(base_url)

    def served_here(db: str | None) -> tuple[str, str]:
        with Sandbox.start(db=db, seed=7) as sb:
            forget_local(sb.base_url)
            return instance(sb.base_url)

    first, again = served_by_a_process(), served_by_a_process()
    memory, other = served_here(None), served_here(db + "2")
    assert first == again and len(first[1]) == 16 and int(first[1], 16) >= 0
    assert memory[0] == "sandbox of the bundled demo program, seed 7"
    assert len({first[1], memory[1], other[1]}) == 3
    with Sandbox.start(db=db, seed=7) as sb:
        forget_local(sb.base_url)
        assert held_instance(_said(sb.base_url)[0]) == first[1]
        sb.reset()  # the program loaded again: every write gone
        after = _said(sb.base_url)
    assert held_reads(after[0]) == first[0] and held_instance(after[0]) not in {first[1], None}
