"""A program file holding a lone surrogate (``"\\ud800"``: JSON escapes one, Python holds it,
no answer or database can carry it) is refused at load on one line per record naming the
record and field, by ``lyt sandbox serve`` with exit 2 and no traceback, and by
``Sandbox.start``; so is a program ``now`` that is not an instant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit.cli import main
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.loader import FORMAT, ProgramFileError

from .serving import refusing_to_serve

LONE = "\ud800"
NOT_TEXT = "holds a lone surrogate, not UTF-8 text"


def _file(tmp_path: Path, program: dict[str, Any]) -> Path:
    """``program`` written as JSON, each lone surrogate as its escape (``\\ud800``)."""
    path = tmp_path / "program.json"
    path.write_text(json.dumps({"format": FORMAT, **program}), encoding="ascii")
    assert b"\\ud800" in path.read_bytes()
    return path


def _serve(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``lyt sandbox serve --data path`` in this process: its exit code and stderr."""
    with refusing_to_serve():
        code = main(["sandbox", "serve", "--port", "0", "--data", str(path)])
    return code, capsys.readouterr().err


def test_serve_refuses_a_lone_surrogate_in_a_reward_name_naming_file_record_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, {"rewards": [{"id": "rew_1", "name": LONE, "type": "MATERIAL"}]})
    code, err = _serve(path, capsys)
    assert err.splitlines() == [
        f"lyt sandbox serve: --data {path}: rewards[0] rew_1: name: {NOT_TEXT}"
    ]
    assert code == 2


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        (
            {"products": [{"id": "prod_1", "name": f"a{LONE}"}]},
            f"products[0] prod_1: name: {NOT_TEXT}",
        ),
        ({"products": [{"id": f"prod_{LONE}"}]}, f"products[0]: id: {NOT_TEXT}"),
        (
            {"benefits": [{"id": "ben_1", "metadata": {LONE: 1}}]},
            f"benefits[0] ben_1: metadata.\\ud800: {NOT_TEXT}",
        ),
        ({"skus": [{"id": "a"}, LONE]}, f"skus[1]: {NOT_TEXT}"),
        ({"deliberately_missing": ["x", LONE]}, f"deliberately_missing[1]: {NOT_TEXT}"),
        ({"description": LONE}, f"description: {NOT_TEXT}"),
    ],
    ids=["value", "id", "key", "record", "missing-id", "description"],
)
def test_sandbox_start_refuses_a_lone_surrogate_naming_where_it_is(
    tmp_path: Path, program: dict[str, Any], expected: str
) -> None:
    path = _file(tmp_path, program)
    with pytest.raises(ProgramFileError) as refused:
        Sandbox.start(data=str(path))
    assert str(refused.value).splitlines() == [f"data {path}: {expected}"]


def test_every_record_holding_one_is_named_before_any_other_problem() -> None:
    rewards = [{"id": f"rew_{i}", "name": LONE if i % 2 else "ok"} for i in range(4)]
    with pytest.raises(ProgramFileError) as refused:
        Sandbox.start(data={"rewards": rewards, "unknown": 1})
    assert str(refused.value).splitlines() == [
        f"rewards[1] rew_1: name: {NOT_TEXT}",
        f"rewards[3] rew_3: name: {NOT_TEXT}",
    ]


@pytest.mark.parametrize("now", [LONE, "yesterday", 5])
def test_serve_refuses_a_program_now_that_is_not_an_instant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], now: object
) -> None:
    path = tmp_path / "now.json"
    path.write_text(json.dumps({"format": FORMAT, "now": now}), encoding="ascii")
    code, err = _serve(path, capsys)
    said = repr(now)
    assert err.splitlines() == [
        f"lyt sandbox serve: --data {path}: now: {said} is not an ISO 8601 instant"
    ]
    assert code == 2
