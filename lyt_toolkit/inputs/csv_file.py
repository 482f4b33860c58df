"""A bulk input CSV file read as text cells, or refused with one line naming the file.

The file must be UTF-8 (a byte order mark is allowed) and comma separated,
with a header row. Every cell stays text: numbers are parsed later, exactly,
by the column that holds them (``frames.parse``: the rules of every typed
value). Rows are numbered as in a spreadsheet below the header: row 1 is the
first line after it (blank lines count, a quoted value spanning lines is one
row). A trailing comma on every line adds no column. Anything the file cannot
be read as raises ``InputFileError``, never a codec or parser exception.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._json_file import shown, shown_names
from .._unicode import encodable
from ..errors import LytError

__all__ = ["CsvTable", "InputFileError", "parse_csv", "read_csv_table", "read_text"]

_UTF16_32_BOMS = (
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)
_OTHER_DELIMITERS = (";", "\t", "|")


class InputFileError(LytError, ValueError):
    """A bulk input file that cannot be read at all; the message names the file."""


@dataclass(frozen=True)
class CsvTable:
    """A CSV file's header and its non-blank rows, each with its row number (1: first data row)."""

    label: str
    header: list[str]
    rows: list[tuple[int, list[str]]]


def _decode(data: bytes, label: str) -> str:
    if data.startswith(_UTF16_32_BOMS):
        raise InputFileError(f"{label}: the file is UTF-16 or UTF-32; save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from None
    if "\x00" in text:
        raise InputFileError(f"{label}: the file holds NUL bytes (UTF-16?); save it as UTF-8")
    return text


def read_text(source: Any) -> tuple[str, str]:
    """``(label, text)`` of a path, CSV text, bytes or an open file; the label names it."""
    if isinstance(source, bytes | bytearray | memoryview):
        return "the CSV", _decode(bytes(source), "the CSV")
    if isinstance(source, str) and "\n" in source:
        return "the CSV text", source.removeprefix("\ufeff")
    if isinstance(source, str | os.PathLike):
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        return str(path), _decode(data, str(path))
    if isinstance(source, io.IOBase) or hasattr(source, "read"):
        label = str(getattr(source, "name", "the CSV file"))
        content = source.read()
        if isinstance(content, bytes | bytearray):
            return label, _decode(bytes(content), label)
        return label, str(content).removeprefix("\ufeff")
    raise TypeError(
        f"expected a path, CSV text, bytes or an open file, not {type(source).__name__}"
    )


def _header(fields: list[str], label: str) -> list[str]:
    header = list(fields)
    while header and not header[-1].strip():
        header.pop()  # a trailing comma adds no column
    if len(header) == 1:
        for sep in _OTHER_DELIMITERS:
            if sep in header[0]:
                name = "tab" if sep == "\t" else repr(sep)
                raise InputFileError(
                    f"{label}: the header is separated by {name}, not commas; "
                    "save the file as comma-separated CSV"
                )
    for number, name in enumerate(header, start=1):
        if not name.strip():
            raise InputFileError(f"{label}: column {number} of the header has no name")
    repeated = sorted({n for n in header if header.count(n) > 1})
    if repeated:
        raise InputFileError(f"{label}: column(s) {shown_names(repeated)} appear more than once")
    return header


def parse_csv(text: str, label: str) -> CsvTable:
    """The header and rows of CSV ``text``; ``InputFileError`` names ``label`` and the row."""
    if not text.strip():
        raise InputFileError(f"{label}: the file is empty; expected a header row")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    number = 0
    untext = not encodable(text)  # text given as text (not bytes) may hold a lone surrogate
    try:
        for fields in reader:
            if untext:
                _check_text(fields, header, number + 1, label)
            if header is None:
                if not any(f.strip() for f in fields):
                    continue  # blank lines before the header
                header = _header(fields, label)
                continue
            number += 1
            if not any(f.strip() for f in fields):
                continue
            extra = fields[len(header) :]
            if any(f.strip() for f in extra):
                raise InputFileError(
                    f"{label}: row {number} has {len(fields)} values, the header "
                    f"{len(header)} columns (quote a value that holds a comma)"
                )
            cells = fields[: len(header)]
            rows.append((number, cells + [""] * (len(header) - len(cells))))
    except csv.Error as exc:
        where = f"row {number + 1}" if header is not None else "the header"
        reason = "a quoted value is never closed" if "end of data" in str(exc) else str(exc)
        raise InputFileError(f"{label}: {where}: {reason}") from None
    if header is None:
        raise InputFileError(f"{label}: the file is empty; expected a header row")
    return CsvTable(label, header, rows)


def _check_text(fields: list[str], header: list[str] | None, number: int, label: str) -> None:
    """Refuse a cell holding a lone surrogate, naming its row (``number``) and column."""
    for i, field in enumerate(fields):
        if not encodable(field):
            column = shown(header[i]) if header and i < len(header) else f"{i + 1}"
            where = f"row {number}, column {column}" if header else f"the header, column {i + 1}"
            raise InputFileError(f"{label}: {where}: holds a lone surrogate, not UTF-8 text")


def read_csv_table(source: Any) -> CsvTable:
    """Read and parse a CSV source (a path, its text, its bytes or an open file)."""
    label, text = read_text(source)
    return parse_csv(text, label)
