"""A program file parses to what ``json`` makes of it, or fails as ``json`` fails."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit.sandbox.state import load_program_source

TEXTS = [
    b'{"n": 123456789012345678901234567890, "m": -9223372036854775809}',
    b'{"f": [0.1, 5e-324, 1.7976931348623157e308, 1E400, -0.0, 1e16, 123456789.123456789e-5]}',
    b'{"x": NaN, "y": Infinity, "z": -Infinity}',
    b'{"a": 1, "a": 2}',
    b'{"s": "\\ud800", "t": "\\ud83d\\ude00", "u": "caf\xc3\xa9"}',
    b"\xef\xbb\xbf{}",
    b'{"a":\r\n 1,}',
    b'{"a": "\xff"}',
    b'{"a": "\xed\xa0\x80"}',
    b'{"deep": ' + b"[" * 300 + b"]" * 300 + b"}",
    b"[1] x",
]


def _outcome(parse: Any) -> Any:
    try:
        return json.dumps(parse(), allow_nan=True)
    except Exception as exc:  # the failure itself is compared
        return type(exc), str(exc)


@pytest.mark.parametrize("text", TEXTS)
def test_a_file_parses_or_fails_as_json_would(text: bytes, tmp_path: Path) -> None:
    path = tmp_path / "program.json"
    path.write_bytes(text)
    expected = _outcome(lambda: json.loads(path.read_text(encoding="utf-8")))
    assert _outcome(lambda: load_program_source(path)) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False) | st.integers(), max_size=20))
def test_numbers_parse_as_json_parses_them(numbers: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "program.json"
        path.write_text(json.dumps({"numbers": numbers}), encoding="utf-8")
        parsed = load_program_source(path)["numbers"]
    assert [repr(n) for n in parsed] == [repr(n) for n in numbers]
