"""The strings of a program file that are not text: a lone surrogate (``"\\ud800"``), which
JSON escapes and Python holds but no answer, log line or database can carry.

The loader refuses such a file before it checks anything else, each problem naming the
record and field (``rewards[0] rew_1: name: holds a lone surrogate, not UTF-8 text``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic_core import to_json

from .._unicode import encodable, lone_surrogate, shown

NOT_TEXT = "holds a lone surrogate, not UTF-8 text"

_CHUNK = 1000
"""Records serialized together to learn whether any holds a lone surrogate: only a chunk
that does is walked string by string."""


def lone_surrogate_problems(program: Mapping[Any, Any], sections: frozenset[str]) -> Iterator[str]:
    """One problem per record (or top-level value) of ``program`` holding a lone surrogate,
    a value or a key: where it is, then its first such field. ``sections``: the keys whose
    value is a list of records."""
    for key, value in program.items():
        if key in sections and isinstance(value, list):
            yield from _section_problems(shown(key), value)
            continue
        where = lone_surrogate({key: value})
        if where is not None:
            yield f"{where}: {NOT_TEXT}"


def _section_problems(name: str, section: list[Any]) -> Iterator[str]:
    for start in range(0, len(section), _CHUNK):
        chunk = section[start : start + _CHUNK]
        try:
            to_json(chunk)  # in native code: fast, and it fails on a lone surrogate
            continue
        except ValueError:
            pass
        for i, record in enumerate(chunk, start):
            field = lone_surrogate(record)
            if field is None:
                continue
            if field == "body":  # the record is a string
                yield f"{name}[{i}]: {NOT_TEXT}"
                continue
            record_id = record.get("id") if isinstance(record, dict) else None
            named = f" {record_id}" if isinstance(record_id, str) and encodable(record_id) else ""
            yield f"{name}[{i}]{named}: {field}: {NOT_TEXT}"
