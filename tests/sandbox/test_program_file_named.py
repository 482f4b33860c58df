"""``Sandbox.start(data=PATH)`` refusing a program file names the file first, as ``lyt sandbox
serve --data PATH`` does, the error's type kept: ``ProgramFileError`` (a ``ValueError``), and
``json.JSONDecodeError`` for a file that is not JSON. Nothing is served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.loader import ProgramFileError

FORMAT = "lyt-program/1"


def test_a_program_file_with_a_problem_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "my_program.json"
    path.write_text(json.dumps({"format": FORMAT, "rewardz": []}), encoding="utf-8")
    for given in (path, str(path)):
        with pytest.raises(ProgramFileError) as refused:
            Sandbox.start(data=given)
        # before: "unknown sections: rewardz" alone
        assert str(refused.value) == f"data {path}: unknown sections: rewardz"


def test_a_file_not_json_or_not_an_object_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "cut_short.json"
    path.write_text('{"format": ', encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as not_json:
        Sandbox.start(data=path)
    # before: "Expecting value: line 1 column 12 (char 11)"
    assert str(not_json.value).startswith(f"data {path}: Expecting value: line 1"), not_json.value

    path = tmp_path / "a_list.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(ProgramFileError) as not_object:  # before: AttributeError
        Sandbox.start(data=path)
    assert str(not_object.value) == f"data {path}: must hold a JSON object"
