"""A file the toolkit wrote, read back as a user may have left it: a plan file, a snapshot's
manifest, a checkpoint's.

``open_regular`` opens a regular file only (``open_append`` to append to, never through a
link, symbolic or hard, and never glued to a last line a crash cut short): a folder, a pipe
or a device (``/dev/zero`` through a symbolic link) is refused without waiting on it (opened
non-blocking, checked once open: the file checked is the file read). ``regular_bytes`` reads
one up to a limit, and ``json_file`` parses it as UTF-8 JSON: another encoding (UTF-16, NUL
bytes), a key given twice in one object, nesting Python cannot parse, an integer of
thousands of digits and a lone surrogate's escape (``"\\ud800"``, no text) are refused.
Every refusal is one line starting with the path, raised as the caller's error.
What a message quotes of a file (``shown``, ``shown_names``, ``clipped``, ``first_line``) has
every secret a client of the process holds and every token the environment or ``.env`` sets
masked, then any other ``Bearer <token>`` masked whole (``_secret.quoted``), and only then is
cut short (a token cut in two would not be found): a file handed over may hold a configured
token pasted bare, anyone's bearer token, or a value of thousands of characters.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

from ._secret import quoted
from ._unicode import lone_surrogate

__all__ = [
    "LongInteger",
    "clipped",
    "first_line",
    "json_file",
    "linked",
    "open_append",
    "open_regular",
    "refuse_links",
    "regular_bytes",
    "shown",
    "shown_names",
]

Failure = Callable[[str], Exception]
"""The caller's error, made from a message."""

_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_APPEND = (
    os.O_RDWR  # not O_WRONLY, whose open of a pipe waits for a reader
    | os.O_APPEND
    | os.O_CREAT
    | _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)  # a device's open does not wait either
    | getattr(os, "O_BINARY", 0)
)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A surrogate's escape: only a file holding one can decode to a lone surrogate."""
_LONGEST_INTEGER = 40
"""Digits an integer may have before it is a ``LongInteger`` (never converted: slow)."""


def clipped(text: str, width: int = 60) -> str:
    """``text``, every secret held or configured and any bearer token in it masked, cut to
    ``width`` characters."""
    text = quoted(text)
    return text if len(text) <= width else f"{text[: width - 3]}..."


def shown(value: Any, width: int = 60) -> str:
    """``repr(value)``, every secret held or configured and any bearer token in it masked,
    cut to ``width`` characters: what a message quotes."""
    return clipped(repr(value), width)


def shown_names(values: Iterable[Any], most: int = 5) -> str:
    """The first ``most`` of ``values``, each ``shown``, then how many more: names a file
    gives (columns, keys), quoted in one message however many it gives."""
    names = list(values)
    said = ", ".join(shown(name) for name in names[:most])
    return said if len(names) <= most else f"{said} and {len(names) - most} more"


def first_line(exc: BaseException, width: int = 120) -> str:
    """The first line of what ``exc`` says (its type's name when it says nothing), cut to
    ``width`` characters, every secret held or configured and any bearer token in it masked:
    a reason quoted in one line."""
    text = quoted(str(exc)).strip()
    return clipped(text.splitlines()[0], width) if text else type(exc).__name__


def open_regular(path: Path, *, what: str, error: Failure) -> BinaryIO:
    """``path`` opened for reading when it is a regular file; a folder, a pipe or a device is
    ``error`` naming it, as is one that cannot be opened (``FileNotFoundError`` passes)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise error(f"{path}: cannot be read: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise error(f"{path}: cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe or a device"
        raise error(f"{path}: is {kind}, not a {what}")
    return os.fdopen(fd, "rb")


def open_append(path: Path, *, what: str, error: Failure) -> int:
    """``path`` opened to append to (and read), made when missing, when it is a regular
    file of one name; a symbolic link in its place (never followed: ``O_NOFOLLOW`` where the
    platform has it), a hard link (``refuse_links``), a folder, a pipe or a device is
    ``error`` naming it. A last line a crash cut short is ended first: the next line is not
    glued to it (and lost with it)."""
    if not _NOFOLLOW:  # the best a platform without it can do
        refuse_links(path, what=what, error=error)
    try:
        fd = os.open(path, _APPEND, 0o644)
    except OSError as exc:
        if os.path.islink(path):  # O_NOFOLLOW refused it (ELOOP; EMLINK on FreeBSD)
            raise error(linked(path, what)) from None
        raise error(f"{path}: cannot be opened to append to: {exc.strerror}") from None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise error(f"{path}: is a pipe or a device, not a {what}")
        if (refusal := _linked(path, found, what)) is not None:
            raise error(refusal)
        if found.st_size:
            os.lseek(fd, found.st_size - 1, os.SEEK_SET)  # writes still go to the end
            if os.read(fd, 1) != b"\n":
                os.write(fd, b"\n")
    except BaseException:
        os.close(fd)
        raise
    return fd


def refuse_links(path: Path, *, what: str, error: Failure) -> None:
    """``error`` when ``path`` is a symbolic link, or a regular file of more than one name
    (a hard link), where a ``what`` is appended to: appended to, the file a link names (any
    file: a user's notes, a dotfile) would change. Nothing there passes."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise error(f"{path}: cannot be read: {exc.strerror}") from None
    if (refusal := _linked(path, found, what)) is not None:
        raise error(refusal)


def _linked(path: Path, found: os.stat_result, what: str) -> str | None:
    """The refusal of a link at ``path`` (``found`` its ``lstat``, or an open file's
    ``fstat``), where a ``what`` is appended to; None when it is no link."""
    if stat.S_ISLNK(found.st_mode):
        return linked(path, what)
    if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
        return (
            f"{path}: is a hard link (one of {found.st_nlink} names of one file); a {what} is"
            " appended to only under a name of its own, never through a link (its other names"
            " would change too): give it a path of its own, or copy it there"
        )
    return None


def linked(path: Path, what: str) -> str:
    """The refusal of a symbolic link at ``path``, where a ``what`` is appended to."""
    return (
        f"{path}: is a symbolic link; a {what} is appended to only in place, never through"
        " a link (it could name any file): give its own path"
    )


def regular_bytes(path: Path, *, limit: int, what: str, error: Failure) -> bytes:
    """The bytes of the regular file at ``path`` (``open_regular``), at most ``limit`` of
    them: a larger file is refused, unread."""
    try:
        file = open_regular(path, what=what, error=error)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    with file:
        try:
            size = os.fstat(file.fileno()).st_size
            # unread when larger; else to the limit at most, should it grow meanwhile
            raw = b"" if size > limit else file.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot be read: {exc.strerror}") from None
    if size > limit or len(raw) > limit:
        raise error(f"{path}: over {limit // 2**20} MiB; no {what} is that large")
    return raw


class LongInteger:
    """A JSON integer too long for any file the toolkit writes (kept unconverted)."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))


def _integer(text: str) -> int | LongInteger:
    return int(text) if len(text) <= _LONGEST_INTEGER else LongInteger(text)


class _Twice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's keys, each once (a reader of the file would see the first)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Twice(key)
        found[key] = value
    return found


def json_file(
    path: Path, *, limit: int, what: str, error: Failure, keep_bytes: bool = False
) -> tuple[Any, bytes]:
    """The JSON document in the file at ``path`` (``regular_bytes``) and the file's bytes.

    An integer of more than 40 digits is a ``LongInteger`` for the caller to refuse naming
    its key. Bytes that are not UTF-8 are refused, or with ``keep_bytes`` kept as
    ``surrogateescape`` gives them, for the caller to name the key holding them; so is a
    lone surrogate's escape (``"\\ud800"``), the first key holding one named.
    """
    raw = regular_bytes(path, limit=limit, what=what, error=error)
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            raise error(f"{path}: saved as {encoding}; a {what} is UTF-8 JSON")
    if b"\x00" in raw:
        raise error(f"{path}: holds NUL bytes (UTF-16?); a {what} is UTF-8 JSON")
    try:
        text = raw.decode("utf-8-sig", errors="surrogateescape" if keep_bytes else "strict")
    except UnicodeDecodeError as exc:
        byte = raw[exc.start]
        raise error(
            f"{path}: is not UTF-8 text (byte 0x{byte:02X} at offset {exc.start}); a {what} is"
            " UTF-8 JSON"
        ) from None
    try:
        document = json.loads(text, object_pairs_hook=_unique, parse_int=_integer)
    except _Twice as exc:
        raise error(f"{path}: key {shown(exc.key)}: given twice in one object") from None
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    except RecursionError:
        raise error(f"{path}: not a {what}: nested too deeply") from None
    if not keep_bytes and _SURROGATE_ESCAPE.search(raw):
        where = lone_surrogate(document)
        if where is not None:
            field = "" if where == "body" else f"key {clipped(where)}: "
            raise error(f"{path}: {field}holds a lone surrogate, not UTF-8 text")
    return document, raw
