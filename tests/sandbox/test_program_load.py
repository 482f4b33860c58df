"""Loading a program quickly changes nothing it loads: times, checks and the collector."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit.cli import build_parser, main
from lyt_toolkit.cli.sandbox import _checked_config
from lyt_toolkit.sandbox import loader
from lyt_toolkit.sandbox.loader import (
    ProgramFileError,
    checked_documents,
    load_program,
    resolve_times,
)
from lyt_toolkit.sandbox.state import load_program_source
from lyt_toolkit.sandbox.store import Store
from lyt_toolkit.sandbox.timeexpr import format_timestamp, resolve_tree
from lyt_toolkit.synthetic import generate_program

from .serving import refusing_to_serve

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def test_resolving_a_section_agrees_with_the_walk_whatever_the_spelling() -> None:
    section = [
        {"id": "a", "created_at": "now-1d+2h-30m+5s", "date": "now+13h"},
        {"id": "b", "created_at": " now+1d ", "name": "nowhere", "tags": ["now-2d"]},
        {"id": "c", "created_at": "now", "metadata": {"note": 'say "now-1d"'}},
        {"id": "d", "created_at": "2025-03-01T09:30:00+01:00", "updated_at": None},
    ]
    resolved = resolve_times(section, NOW)
    assert resolved == resolve_tree(section, NOW)
    assert resolved[0]["created_at"] == "2026-01-14T13:30:05.000Z"
    assert resolved[0]["date"] == "2026-01-16"
    assert resolved[1]["name"] == "nowhere" and resolved[1]["tags"] == ["now-2d"]  # not a time
    assert resolved[2]["metadata"] == {"note": 'say "now-1d"'}


@pytest.mark.parametrize(
    ("moment", "spelled"),
    [
        (datetime(5, 1, 1, 1, tzinfo=timezone(timedelta(hours=2))), "0004-12-31T23:00:00.000Z"),
        (datetime(2020, 1, 1, 1, 1, 1, 999999), "2020-01-01T01:01:01.999Z"),
    ],
)
def test_timestamps_keep_four_digit_years_and_truncated_milliseconds(
    moment: datetime, spelled: str
) -> None:
    assert format_timestamp(moment) == spelled


def test_a_load_leaves_the_cycle_collector_running_even_when_it_fails() -> None:
    program = generate_program(rewards=20, benefits=5, members=3, seed=2)
    assert gc.isenabled()
    checked = checked_documents(program, NOW)
    assert len(checked["rewards"]) == 20 and gc.isenabled()
    program["rewards"][3]["costs"][0]["spending"][0]["pionts"] = 1
    store = Store()
    try:
        with pytest.raises(ProgramFileError, match=r"rewards\[3\] .*: unknown key 'costs\[0\]"):
            load_program(store, program, NOW)
    finally:
        store.close()
    assert gc.isenabled()


@pytest.mark.parametrize("collector_on", [True, False])
@pytest.mark.parametrize(
    "option",
    [
        ["--port", "70000"],
        ["--now", "yesterday"],
        ["--plan", "gold"],
        ["--head-timeout", "0"],
        ["--data", "program.json"],  # refused by the load, inside the server's start
    ],
)
def test_serve_refusing_an_option_leaves_the_collector_as_it_found_it(
    option: list[str],
    collector_on: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``main`` called in-process (a test, a user's script) keeps its cycle collector."""
    monkeypatch.chdir(tmp_path)
    Path("program.json").write_text('{"rewards": 5}', encoding="utf-8")
    if not collector_on:
        gc.disable()
    try:
        with refusing_to_serve():
            assert main(["sandbox", "serve", "--port", "0", *option]) == 2
        assert gc.isenabled() is collector_on
    finally:
        gc.enable()
    assert capsys.readouterr().err.startswith(f"lyt sandbox serve: {option[0]}")


def test_serve_reads_the_program_file_once_and_loads_what_it_read(tmp_path: Path) -> None:
    program: dict[str, Any] = generate_program(rewards=3, benefits=2, members=1, seed=4)
    path = tmp_path / "program.json"
    path.write_text(json.dumps(program), encoding="utf-8")
    args = build_parser().parse_args(["sandbox", "serve", "--data", str(path)])
    config = _checked_config(args)
    assert config.data == program == load_program_source(path)
    assert load_program_source(config.data) is config.data  # no second read or parse


def test_chunks_change_nothing_a_load_finds_or_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records go through the load a chunk at a time: every chunk size gives the same rows,
    and problems keep the record's place in its section across chunk boundaries."""
    program = generate_program(rewards=25, benefits=7, members=4, seed=5)
    whole = checked_documents(program, NOW)
    monkeypatch.setattr(loader, "CHUNK", 3)
    assert checked_documents(program, NOW) == whole

    program["rewards"][10] = {**program["rewards"][4]}  # the same ID, in another chunk
    program["rewards"][20]["stauts"] = "ACTIVE"
    program["benefits"][5]["type"] = 7
    with pytest.raises(ProgramFileError) as caught:
        checked_documents(program, NOW)
    lines = str(caught.value).splitlines()
    rewards = program["rewards"]
    assert lines[:2] == [
        f"rewards[10] {rewards[4]['id']}: the same id as rewards[4]",
        f"rewards[20] {rewards[20]['id']}: unknown key 'stauts'",
    ]
    assert lines[2].startswith(f"benefits[5] {program['benefits'][5]['id']}: type: ")


def test_a_refused_load_stores_nothing_though_earlier_chunks_were_stored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    program = generate_program(rewards=12, benefits=3, members=2, seed=6)
    program["rewards"][11]["name"] = ["not", "a", "name"]
    monkeypatch.setattr(loader, "CHUNK", 4)
    store = Store()
    try:
        with pytest.raises(ProgramFileError, match=r"rewards\[11\] .*: name: "):
            load_program(store, program, NOW)
        assert store.size() == 0
    finally:
        store.close()


def _web_modules_after_a_load(create_arguments: str) -> str:
    """The web framework's packages a fresh process has imported once it has loaded the
    demo program as ``lyt sandbox serve`` does (``SandboxState.create``)."""
    code = (
        "import sys\n"
        "from lyt_toolkit.cli import sandbox\n"
        "from lyt_toolkit.sandbox.state import SandboxState\n"
        f"SandboxState.create(sandbox.SandboxConfig(){create_arguments})\n"
        "web = {'fastapi', 'starlette', 'uvicorn', 'asyncio'}\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & web))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_program_loads_before_the_web_app_is_imported() -> None:
    """``lyt sandbox serve`` loads the program with no web framework imported, so that
    FastAPI, Starlette and uvicorn import while SQLite builds the load's indexes."""
    assert _web_modules_after_a_load("") == "[]"
    loaded = _web_modules_after_a_load(", alongside=sandbox._import_server")
    assert loaded == "['asyncio', 'fastapi', 'starlette', 'uvicorn']"


def test_serve_freezes_what_it_loaded_and_never_imports_an_http_client() -> None:
    """``lyt sandbox serve`` keeps the collector off its program for good (no pause to
    rescan it on the first requests), leaves the collector on, and sends no requests, so
    it starts without httpx."""
    code = (
        "import gc, sys, uvicorn\n"
        "from lyt_toolkit.sandbox import server\n"
        "from lyt_toolkit.synthetic import generate_program\n"
        "uvicorn.Server.run = lambda self, *a, **k: print(gc.isenabled(), gc.get_freeze_count())\n"
        "program = generate_program(rewards=200, benefits=5, members=3, seed=2)\n"
        "server.serve(server.SandboxConfig(data=program), port=0)\n"
        "print('httpx' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    enabled, frozen, httpx_imported = done.stdout.split()
    assert enabled == "True" and int(frozen) > 10_000 and httpx_imported == "False"
