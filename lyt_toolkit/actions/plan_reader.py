"""A plan file's bytes to its checked JSON document, and the typed keys taken out of it.

Every problem is one ``PlanFileError`` line naming the file and, where there is one, the
key: no regular file (a pipe, a device), a file over ``MAX_BYTES``, another encoding
(UTF-16, a cp1252 byte), a key given twice in one object, nesting no plan has, a number a
plan cannot hold (NaN, an infinity, an integer beyond 64 bits), a value of the wrong type.
Values quoted in a message are cut short, and configured tokens and bearer tokens masked.
The values are checked in one pass over the bytes (text escaping no surrogate, UTF-8
throughout) and one over the parsed values; only a file that may hold a value no plan holds
is walked key by key, to name the first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._json_file import LongInteger, clipped, json_file, shown
from .._secret import mask_bearer
from ..errors import LytError

__all__ = ["PlanFileError", "Reader", "read_document", "shown"]

MAX_BYTES = 256 * 2**20
"""The largest plan file read (a plan of a billing cycle's 100,000 calls is about 70 MB)."""
MAX_DEPTH = 8
"""Nesting a plan file holds at most (a call's cell is at depth 4)."""
_INT64 = (-(2**63), 2**63 - 1)
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # a byte ``surrogateescape`` kept
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


class PlanFileError(LytError, ValueError):
    """A plan file that cannot be read: names the file and the key; a token quoted from the
    file shows as ``***`` (``LytError``: a client's, or one the environment or ``.env`` sets,
    as a plan file is read before any client may be made), any other bearer token as
    ``Bearer ***``."""

    def __init__(self, message: str) -> None:
        super().__init__(mask_bearer(message))


def read_document(path: Path) -> tuple[dict[str, Any], bytes]:
    """The JSON object in the file at ``path`` (checked throughout, see the module) and
    the file's bytes."""
    document, raw = json_file(
        path, limit=MAX_BYTES, what="plan file", error=PlanFileError, keep_bytes=True
    )
    if not isinstance(document, dict):
        raise PlanFileError(f"{path}: expected a JSON object, not {_type_name(type(document))}")
    if not (_plain_text(raw) and _plain_values(document)):
        _check_values(Reader(path), document)  # names the first value no plan holds
    return document, raw


KeyPath = tuple[str | int, ...]
"""Where a value is in the document: its keys and list positions, spelled (``_spelled``)
only in a refusal: a plan file holds hundreds of thousands of values."""


def _plain_text(raw: bytes) -> bool:
    """Whether no text in the file can hold a surrogate: its bytes are UTF-8 throughout
    and escape none (a pair escaping one character, too: ``_check_values`` decides)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _ESCAPED_SURROGATE.search(raw) is None


def _plain_values(document: dict[str, Any]) -> bool:
    """Whether the document, text aside, holds only values a plan holds: nested at most
    ``MAX_DEPTH``, its integers within 64 bits, its numbers finite. One pass, level by
    level, spelling no key: a plan file holds hundreds of thousands of values."""
    level: list[Any] = [document]
    for _ in range(MAX_DEPTH + 1):
        deeper: list[Any] = []
        for value in level:
            kind = type(value)
            if kind is dict:
                deeper += value.values()
            elif kind is list:
                deeper += value
            elif kind is int:
                if not _INT64[0] <= value <= _INT64[1]:
                    return False
            elif kind is float:
                if not math.isfinite(value):
                    return False
            elif kind is LongInteger:
                return False
        if not deeper:
            return True
        level = deeper
    return False


def _check_values(read: Reader, document: dict[str, Any]) -> None:
    """Refuse the first value (in the file's order) no plan holds, naming its key."""
    stack: list[tuple[KeyPath, Any]] = [((), document)]
    while stack:
        at, value = stack.pop()
        if len(at) > MAX_DEPTH:
            raise read.fail(_spelled(at), "nested deeper than a plan is")
        if isinstance(value, str):
            _check_text(read, at, value)
        elif isinstance(value, LongInteger):
            problem = f"an integer of {value.digits} digits is beyond 64 bits"
            raise read.fail(_spelled(at), problem)
        elif isinstance(value, float) and not math.isfinite(value):
            raise read.fail(_spelled(at), f"{value} is not a number a plan holds")
        elif isinstance(value, int) and not isinstance(value, bool):
            if not _INT64[0] <= value <= _INT64[1]:
                raise read.fail(_spelled(at), f"{shown(value)} is beyond a 64-bit integer")
        elif isinstance(value, dict):
            for key in value:
                _check_text(read, (*at, key), key)
            stack += [((*at, k), v) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [((*at, n), v) for n, v in reversed(list(enumerate(value)))]


def _check_text(read: Reader, at: KeyPath, text: str) -> None:
    """Refuse text holding a byte that was not UTF-8 (kept by ``surrogateescape``) or a
    lone surrogate escape (``\\udc00``): neither is text a service takes."""
    if found := _NOT_UTF8.search(text):
        byte = ord(found[0]) - 0xDC00
        problem = f"not UTF-8 text (byte 0x{byte:02X}): save the file as UTF-8"
        raise read.fail(_spelled(at), problem)
    if _SURROGATE.search(text):
        raise read.fail(_spelled(at), "holds a lone surrogate escape, not text")


def _spelled(at: KeyPath) -> str:
    """``at`` as a refusal names it: ``calls.name[3].key``, each key masked and cut short."""
    text = ""
    for part in at:
        text = f"{text}[{part}]" if isinstance(part, int) else _step(text, part)
    return text


def _step(at: str, key: str) -> str:
    name = clipped(key, 40)
    return f"{at}.{name}" if at else name


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """``isinstance``, true or false not counted as an integer."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)


def _holds_texts(row: Any, texts: tuple[str, ...], optional: tuple[str, ...]) -> bool:
    """Whether ``row`` is an object holding the strings ``texts`` and, when given, the
    strings ``optional``: ``Reader.records``' check, refusing nothing."""
    return (
        type(row) is dict
        and all(type(row.get(text)) is str for text in texts)
        and all(type(row.get(text)) in (str, type(None)) for text in optional)
    )


class Reader:
    """Takes keys out of the parsed document; ``PlanFileError`` names the file and key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> PlanFileError:
        return PlanFileError(f"{self.path}: key {key!r}: {problem}")

    def get(
        self, holder: Mapping[str, Any], key: str, kind: type | tuple[type, ...], at: str
    ) -> Any:
        """``holder[key]``, of ``kind``: missing or another type is refused."""
        if key not in holder:
            raise self.fail(_step(at, key), "missing")
        value = holder[key]
        if not _is(value, kind):
            problem = f"expected {_type_name(kind)}, not {_type_name(type(value))}"
            raise self.fail(_step(at, key), problem)
        return value

    def optional(
        self, holder: Mapping[str, Any], key: str, kind: type | tuple[type, ...], at: str
    ) -> Any:
        """``holder[key]`` of ``kind``, or ``None`` when missing or null."""
        if holder.get(key) is None:
            return None
        return self.get(holder, key, kind, at)

    def records(
        self,
        holder: Mapping[str, Any],
        key: str,
        texts: Iterable[str],
        optional: Iterable[str] = (),
    ) -> list[dict[str, Any]]:
        """The list of objects at ``key``, each holding the strings ``texts`` and, when
        given, the strings ``optional``."""
        rows = self.get(holder, key, list, "")
        texts, optional = tuple(texts), tuple(optional)
        if all(_holds_texts(row, texts, optional) for row in rows):
            return rows  # one pass; the loop below names what is not
        for number, row in enumerate(rows):
            at = f"{key}[{number}]"
            if not isinstance(row, dict):
                raise self.fail(at, f"expected an object, not {_type_name(type(row))}")
            for text in texts:
                self.get(row, text, str, at)
            for text in optional:
                self.optional(row, text, str, at)
        return rows

    def cells(self, rows: list[Any], at: str, columns: Iterable[str]) -> list[dict[str, Any]]:
        """``rows``, each an object of text, number, true/false or null cells in
        ``columns`` only: what a call's rows hold."""
        known = set(columns)
        for number, row in enumerate(rows):
            if not isinstance(row, dict):
                raise self.fail(
                    f"{at}[{number}]", f"expected an object, not {_type_name(type(row))}"
                )
            for column, cell in row.items():
                if column not in known:
                    raise self.fail(
                        _step(f"{at}[{number}]", column), "not a column of this call's rows"
                    )
                if isinstance(cell, dict | list):
                    problem = f"expected a text or a number, not {_type_name(type(cell))}"
                    raise self.fail(_step(f"{at}[{number}]", column), problem)
        return rows
