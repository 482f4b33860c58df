"""A snapshot's frames as CSV files plus ``manifest.json``, and back again with the same dtypes.

CSV carries no types, so the manifest does: for each frame its file, row
count, SHA-256 and every column's dtype (with the full category list for
categoricals). Reading reads each file once, verifies the hash of those bytes
and parses the same bytes (a file swapped meanwhile is not read), and
rebuilds the columns with the recorded dtypes, so ``read_frames(d)`` (and
``lyt_toolkit.read_snapshot(d)``, built on it) gives frames equal to the ones
written. The manifest records the service's base URL and the pull time, never
a credential.

File conventions: UTF-8, comma separated, header row, ``\\r\\n`` line ends
(RFC 4180, so a field holding any line break, a bare ``\\r`` too, is quoted);
missing values are empty fields; instants are ISO 8601 UTC with microseconds
and ``Z`` (``2026-01-15T12:00:00.000000Z``); flags are ``True``/``False``.
Text and category cells a spreadsheet would run as a formula (first character
``=``, ``+``, ``-``, ``@``, tab or carriage return) are written with a leading
``'`` (``reports.cells``); the manifest's ``text_escaping`` entry records it and
reading removes it again. Each file is written to a temporary name in the
folder and renamed into place, never through a symlink.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import pandas as pd

from .._deprecation import deprecation, module_getattr
from .._json_file import clipped, first_line, json_file, open_regular, shown, shown_names
from .._text import counted, figure
from .._url import public_url as _public_url
from .._version import __version__
from .._write import replacing
from ..errors import LytError
from ..frames.registry import FRAME_NAMES
from ..frames.sample import SampleDesign
from ..frames.schema import DATETIME
from ._typed_csv import parse_csv, refused_value
from .cells import ESCAPING, escape_frame, unescape
from .provenance import PROVENANCE, json_provenance

__all__ = [
    "ESCAPING_KEY",
    "FORMAT",
    "MANIFEST",
    "SAMPLE_DRAWN",
    "SAMPLE_PARTS",
    "SnapshotFileError",
    "SnapshotFiles",
    "SnapshotFrames",
    "category_dtype",
    "column_schema",
    "read_csv_frame",
    "read_frames",
    "read_manifest",
    "read_snapshot_manifest",
    "sha256_of",
    "write_csv",
    "write_snapshot",
]

FORMAT = "lyt-snapshot/1"
MANIFEST = "manifest.json"
_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
PLAIN_DTYPES = {"str", "string", "Int64", "Float64", "boolean"}
_TEXT_DTYPES = ("str", "string", "category")
_LINE_END = "\r\n"
ESCAPING_KEY = "text_escaping"

MAX_MANIFEST = 64 * 2**20
"""The largest manifest read (a whole program's is tens of kilobytes: its dtypes, no rows)."""

SAMPLE_PARTS = ("strata", "units")
"""The frames of a sample design a sampled snapshot's folder holds (``sample_<part>``)."""

SAMPLE_DRAWN: dict[str, type] = {"n": int, "bands": int, "allocation": str}
"""What the manifest's ``sample`` keeps of the ``Sample`` the design was drawn by, besides its
``seed`` and ``by``. A folder written before they were kept lacks them: its design reads back
with ``n`` None (its size stands for it) and ``Sample``'s default ``bands`` and
``allocation``."""


class SnapshotFileError(LytError, ValueError):
    """A snapshot directory is incomplete, altered or not a snapshot at all."""


class SnapshotFrames(Protocol):
    """What is written: named frames, where they came from and when (a ``ProgramSnapshot``)."""

    @property
    def source(self) -> str: ...

    @property
    def pulled_at(self) -> pd.Timestamp: ...

    def frames(self) -> Mapping[str, pd.DataFrame]: ...


@dataclass(frozen=True)
class SnapshotFiles:
    """What a snapshot directory holds: its frames, their source and pull time."""

    frames: dict[str, pd.DataFrame]
    source: str
    pulled_at: str | None
    kinds: tuple[str, ...] | None = None
    """The kinds the snapshot was pulled with (None: every kind, or written before kinds were
    recorded)."""
    sample: SampleDesign | None = None
    """The sample design of a sampled snapshot (None: every member was read)."""
    provenance: dict[str, Any] = field(default_factory=dict)
    """How the snapshot was made, as its manifest's ``provenance`` records it (empty: not
    recorded); see ``reports.provenance``."""
    read_times: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Per kind, when its first and last answer came (a checkpointed pull; empty otherwise)."""


def column_schema(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Each column's name and dtype as the manifest records them."""
    out: list[dict[str, Any]] = []
    for name, dtype in frame.dtypes.items():
        entry: dict[str, Any] = {"name": str(name), "dtype": _dtype_name(dtype)}
        if isinstance(dtype, pd.CategoricalDtype):
            entry["categories"] = [str(c) for c in dtype.categories]
            if dtype.ordered:
                entry["ordered"] = True
        out.append(entry)
    return out


def _dtype_name(dtype: object) -> str:
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if isinstance(dtype, pd.DatetimeTZDtype):
        return DATETIME
    name = str(dtype)
    if name not in PLAIN_DTYPES:
        raise SnapshotFileError(f"cannot export a column of dtype {name}")
    return name


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex (what a manifest records)."""
    with path.open("rb") as file:
        return _sha256(file)


def _sha256(file: BinaryIO) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: file.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def write_snapshot(snapshot: SnapshotFrames, directory: str | Path) -> list[Path]:
    """Write every frame as ``<name>.csv`` and then ``manifest.json``; returns the paths."""
    return write_folder(
        snapshot,
        directory,
        suffix=".csv",
        write_frame=write_csv,
        format=FORMAT,
        extra={ESCAPING_KEY: ESCAPING},
    )


def write_folder(
    snapshot: SnapshotFrames,
    directory: str | Path,
    *,
    suffix: str,
    write_frame: Callable[[pd.DataFrame, Path], None],
    format: str,
    extra: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Every frame as ``<name><suffix>`` through ``write_frame``, then the manifest naming
    ``format`` (plus ``extra`` keys); returns the paths, the manifest last."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    entries: dict[str, Any] = {}
    for name, frame in snapshot.frames().items():
        path = out / f"{name}{suffix}"
        write_frame(frame, path)
        written.append(path)
        entries[name] = {
            "file": path.name,
            "rows": len(frame),
            "sha256": sha256_of(path),
            "columns": column_schema(frame),
        }
    kinds = getattr(snapshot, "kinds", None)  # written only for a partial snapshot
    kinds = None if kinds is None or set(FRAME_NAMES) <= set(kinds) else kinds
    design = getattr(snapshot, "sample", None)  # written only for a sampled snapshot
    sample: dict[str, Any] = {}
    if isinstance(design, SampleDesign):
        sample = {"seed": design.seed, "by": list(design.by), **_drawn(design)}
        for part in SAMPLE_PARTS:
            path = out / f"sample_{part}{suffix}"
            part_frame = getattr(design, part)
            write_frame(part_frame, path)
            written.append(path)
            sample[part] = {
                "file": path.name,
                "rows": len(part_frame),
                "sha256": sha256_of(path),
                "columns": column_schema(part_frame),
            }
    read_at = _read_at(snapshot)
    read_times = {
        kind: [first.strftime(_DATE_FORMAT), last.strftime(_DATE_FORMAT)]
        for kind, (first, last) in getattr(snapshot, "read_times", {}).items()
    }
    provenance = json_provenance(getattr(snapshot, "provenance", None))
    manifest = {
        "format": format,
        "generator": f"lyt_toolkit {__version__}",
        "source": _public_url(snapshot.source),
        "pulled_at": snapshot.pulled_at.strftime(_DATE_FORMAT),
        **({} if kinds is None else {"kinds": [n for n in FRAME_NAMES if n in kinds]}),
        **({"sample": sample} if sample else {}),
        **({"read_at": read_at} if read_at else {}),
        **({"read_times": read_times} if read_times else {}),
        **({PROVENANCE: provenance} if provenance else {}),
        **(extra or {}),
        "frames": entries,
    }
    path = out / MANIFEST
    with replacing(path) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    written.append(path)
    return written


def _read_at(snapshot: SnapshotFrames) -> dict[str, str]:
    """Each kind's read time, as the manifest spells it; empty (not written) when every
    kind was read at ``pulled_at``, as one pull reads them."""
    stamps: Mapping[str, pd.Timestamp] = getattr(snapshot, "read_at", None) or {}
    if all(when == snapshot.pulled_at for when in stamps.values()):
        return {}
    return {kind: stamps[kind].strftime(_DATE_FORMAT) for kind in FRAME_NAMES if kind in stamps}


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """One frame as a CSV file in the snapshot conventions (text cells escaped, CRLF)."""
    with replacing(path) as tmp:
        escape_frame(frame).to_csv(
            tmp, index=False, date_format=_DATE_FORMAT, lineterminator=_LINE_END
        )


def read_manifest(
    directory: str | Path, *, formats: tuple[str, ...] = (FORMAT,), file: str = MANIFEST
) -> dict[str, Any]:
    """The parsed manifest (``file``) of a directory, checked to be one of ``formats``: read
    as ``_json_file.json_file`` reads (no folder, pipe or device, at most ``MAX_MANIFEST``
    bytes of UTF-8 JSON, each key once)."""
    path = Path(directory) / file
    what = "a snapshot" if file == MANIFEST else "an audit report"
    if not os.path.lexists(path):
        raise SnapshotFileError(f"{path} is missing: not {what} directory")
    kind = "snapshot manifest" if file == MANIFEST else "audit report manifest"
    manifest, _ = json_file(path, limit=MAX_MANIFEST, what=kind, error=SnapshotFileError)
    if not isinstance(manifest, dict) or manifest.get("format") not in formats:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        expected = " or ".join(repr(f) for f in formats)
        raise SnapshotFileError(f"{path}: format {shown(found)} is not {expected}")
    return manifest


def read_snapshot_manifest(
    directory: str | Path, *, formats: tuple[str, ...] = (FORMAT,)
) -> dict[str, Any]:
    """``read_manifest`` of a snapshot folder, every key the readers use checked: a broken one
    is a ``SnapshotFileError`` naming the file and the key. ``pulled_at`` comes back in the
    written spelling (UTC, microseconds, ``Z``)."""
    path = Path(directory) / MANIFEST
    manifest = read_manifest(directory, formats=formats)
    pulled_at = _pulled_at(path, manifest.get("pulled_at"))
    _check_frames(path, manifest)
    _check_sample(path, manifest)
    _check_read_times(path, manifest)
    if not isinstance(manifest.get(PROVENANCE, {}), dict):
        raise _broken(path, PROVENANCE, "must be an object")
    return {**manifest, "pulled_at": pulled_at, "read_at": _checked_read_at(path, manifest)}


def _checked_read_at(path: Path, manifest: Mapping[str, Any]) -> dict[str, str]:
    """A manifest's ``read_at`` (kind -> ISO 8601 instant, each kind one of its frames), in
    the written spelling; empty when absent (every kind read at ``pulled_at``)."""
    read_at = manifest.get("read_at", {})
    if not isinstance(read_at, dict):
        raise _broken(path, "read_at", "must be an object naming each kind's read time")
    if unknown := sorted(set(read_at) - set(manifest["frames"])):
        raise _broken(path, "read_at", f"names frames the manifest lacks: {shown_names(unknown)}")
    return {kind: _pulled_at(path, value, key=f"read_at.{kind}") for kind, value in read_at.items()}


def _check_read_times(path: Path, manifest: Mapping[str, Any]) -> None:
    """``read_times``, when present: per frame kind, two ISO 8601 instants."""
    times = manifest.get("read_times", {})
    if not isinstance(times, dict):
        raise _broken(path, "read_times", "must be an object of frame kinds")
    for kind, span in times.items():
        if kind not in FRAME_NAMES:
            raise _broken(path, "read_times", f"{shown(kind)} is not a frame kind")
        where = f"read_times.{kind}"
        if not (isinstance(span, list) and len(span) == 2):
            raise _broken(path, where, "must be [first, last]")
        for value in span:
            _pulled_at(path, value, key=where)


def _check_sample(path: Path, manifest: Mapping[str, Any]) -> None:
    """A sampled snapshot's ``sample`` entry: its seed, ``by``, what it has of
    ``SAMPLE_DRAWN`` (a ``Sample`` would take them) and each part's file entry."""
    if "sample" not in manifest:
        return
    sample = manifest["sample"]
    _check_keys(path, "sample", sample, {"seed": int, "by": list})
    _check_keys(path, "sample", sample, {k: t for k, t in SAMPLE_DRAWN.items() if k in sample})
    try:
        _sample_design(sample, {part: pd.DataFrame() for part in SAMPLE_PARTS})
    except ValueError as exc:
        raise _broken(path, "sample", first_line(exc, 200)) from None
    for part in SAMPLE_PARTS:
        _check_keys(path, f"sample.{part}", sample.get(part), _ENTRY_KEYS)
        if Path(sample[part]["file"]).name != sample[part]["file"]:
            raise _broken(path, f"sample.{part}.file", "must be a file name in the folder")


_ENTRY_KEYS: dict[str, type] = {"file": str, "rows": int, "sha256": str, "columns": list}
_COLUMN_KEYS: dict[str, type] = {"name": str, "dtype": str}
_KIND_NAMES = {str: "text", int: "a whole number", list: "a list"}


def _pulled_at(path: Path, value: object, *, key: str = "pulled_at") -> str:
    """A manifest's ``pulled_at`` (or other instant, ``key``) in the written spelling, if it
    is an ISO 8601 instant."""
    try:
        if not isinstance(value, str):
            raise TypeError(value)
        stamp = pd.Timestamp(datetime.fromisoformat(value))
    except (TypeError, ValueError):
        raise _broken(path, key, f"{shown(value)} is not an ISO 8601 instant") from None
    stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
    return stamp.strftime(_DATE_FORMAT)


def _check_frames(path: Path, manifest: Mapping[str, Any]) -> None:
    """``source`` and every frame entry of a snapshot manifest are what the readers need."""
    if not isinstance(manifest.get("source", ""), str):
        raise _broken(path, "source", "must be text")
    frames = manifest.get("frames")
    if not isinstance(frames, dict):
        raise _broken(path, "frames", "must be an object naming each frame's entry")
    unknown = set(frames) - set(FRAME_NAMES)
    if unknown:
        raise SnapshotFileError(f"{path}: unknown frames {shown_names(sorted(unknown))}")
    kinds = manifest.get("kinds", list(frames))  # absent: every kind the manifest lists
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise _broken(path, "kinds", "must be a list of frame names")
    if lacking := sorted(set(kinds) - set(frames)):
        raise _broken(path, "kinds", f"names frames the manifest lacks: {shown_names(lacking)}")
    for name, entry in frames.items():
        _check_keys(path, f"frames.{name}", entry, _ENTRY_KEYS)
        if Path(entry["file"]).name != entry["file"] or entry["file"] in ("", ".", ".."):
            raise _broken(path, f"frames.{name}.file", "must be a file name in the folder")
        if entry["rows"] < 0:
            raise _broken(path, f"frames.{name}.rows", "must not be negative")
        for i, column in enumerate(entry["columns"]):
            where = f"frames.{name}.columns[{i}]"
            _check_keys(path, where, column, _COLUMN_KEYS)
            categories = column.get("categories", [])
            if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
                raise _broken(path, f"{where}.categories", "must be a list of text")
            if len(set(categories)) != len(categories):
                raise _broken(path, f"{where}.categories", "repeats a category")
            if not isinstance(column.get("ordered", False), bool):
                raise _broken(path, f"{where}.ordered", "must be true or false")


def _check_keys(path: Path, where: str, value: object, keys: Mapping[str, type]) -> None:
    """``value`` is an object holding each of ``keys`` with a value of its type (not a bool)."""
    if not isinstance(value, dict):
        raise _broken(path, where, "must be an object")
    for key, kind in keys.items():
        if key not in value:
            raise _broken(path, f"{where}.{key}", "missing")
        if not isinstance(value[key], kind) or isinstance(value[key], bool):
            raise _broken(path, f"{where}.{key}", f"must be {_KIND_NAMES[kind]}")


def _broken(path: Path, key: str, problem: str) -> SnapshotFileError:
    return SnapshotFileError(f"{path}: {key}: {problem}")


def edited_hint(directory: Path) -> str:
    """What a checksum refusal of a CSV snapshot adds: how to plan from ``directory`` as an
    edited copy of an export, in Python and from a shell."""
    return (
        "; if it was edited on purpose, plan from the edited copy: "
        "ChangePlan.from_frames(read_snapshot(SNAPSHOT_DIR), "
        f"read_edited_frames({str(directory)!r}))"
        f" or lyt plan --base SNAPSHOT_DIR --edited {directory}"
    )


def checked_bytes(
    directory: Path, entry: Mapping[str, Any], *, hint: str = ""
) -> tuple[Path, bytes]:
    """The path and bytes of the file a manifest entry names, once it exists and the SHA-256
    of those bytes matches the entry's (a mismatch refused, ``hint`` appended; the hashes
    shown by their first 12 digits). The file is read once: the caller parses the bytes
    checked, never the file again, which may have been swapped meanwhile."""
    path = directory / entry["file"]
    try:  # a folder, a pipe or a device in its place is refused, not waited on
        with open_regular(path, what="file of a snapshot", error=SnapshotFileError) as file:
            raw = file.read()
    except FileNotFoundError:
        raise SnapshotFileError(f"{path} is listed in the manifest but missing") from None
    except OSError as exc:
        raise SnapshotFileError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    actual = hashlib.sha256(raw).hexdigest()
    if actual != entry["sha256"]:
        raise SnapshotFileError(
            f"{path} was changed after export: its sha256 {actual[:12]}... is not the "
            f"manifest's {clipped(str(entry['sha256']), 15)}{hint}"
        )
    return path, raw


def check_shape(path: Path, frame: pd.DataFrame, entry: Mapping[str, Any]) -> None:
    """Refuse a frame whose columns or row count differ from its manifest entry, naming the
    first column that differs."""
    names, found = [c["name"] for c in entry["columns"]], list(frame.columns)
    if found != names:
        pairs = enumerate(zip(found, names, strict=False))
        at = next((i for i, (a, b) in pairs if a != b), min(len(found), len(names)))
        if at == len(found):
            what = f"{shown(names[at])} is missing"
        elif at == len(names):
            what = f"{shown(found[at])} is not listed"
        else:
            what = f"{shown(found[at])}, not {shown(names[at])}"
        raise SnapshotFileError(
            f"{path}: columns differ from those listed for it from column {at + 1}: {what}"
        )
    if len(frame) != entry["rows"]:
        raise SnapshotFileError(
            f"{path}: {counted(len(frame), 'row')}, the manifest says {figure(entry['rows'])}"
        )


def read_csv_frame(directory: Path, entry: Mapping[str, Any], escaped: bool) -> pd.DataFrame:
    """The CSV file a manifest entry names, hash checked, with the entry's columns and dtypes."""
    path, raw = checked_bytes(directory, entry, hint=edited_hint(directory))
    columns = entry["columns"]
    dtypes: dict[str, Any] = {}
    for col in columns:
        kind = col["dtype"]
        if kind in (DATETIME, "category"):  # a category once restored and checked
            dtypes[col["name"]] = "str"
        elif kind in PLAIN_DTYPES:
            dtypes[col["name"]] = kind
        else:
            raise SnapshotFileError(
                f"{path}: column {shown(col['name'])} has unknown dtype {shown(kind)}"
            )
    if entry["rows"] == 0:
        header, no_rows = _header_only(json.dumps(columns))
        if raw == header:  # nothing to parse: each column list's frame is built once
            return no_rows.copy()
    try:
        frame = parse_csv(raw, dtypes)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        # the file's layout or encoding: pandas says where, never a value
        reason = first_line(exc)
        raise SnapshotFileError(f"{path}: cannot be read as a snapshot CSV ({reason})") from None
    except (ValueError, TypeError, OverflowError):  # a value: pandas' message quotes it
        raise _refused(path, raw, dtypes) from None
    check_shape(path, frame, entry)
    return _restore(path, frame, columns, escaped)


@functools.lru_cache(maxsize=64)
def _header_only(columns: str) -> tuple[bytes, pd.DataFrame]:
    """For a manifest entry's ``columns`` (as JSON): the bytes of its CSV without rows, as
    ``write_csv`` writes it, and the frame reading it gives, with the columns' dtypes: built
    without pandas' parser, which makes a Series and a conversion per column."""
    listed = json.loads(columns)
    names = [c["name"] for c in listed]
    header = pd.DataFrame(columns=names).to_csv(index=False, lineterminator=_LINE_END)
    arrays = {
        c["name"]: pd.array([], dtype=category_dtype(c) if c["dtype"] == "category" else c["dtype"])
        for c in listed
    }
    return header.encode("utf-8"), pd.DataFrame(arrays)


def _refused(path: Path, raw: bytes, dtypes: Mapping[str, Any]) -> SnapshotFileError:
    """A value of ``raw`` not of its column's dtype, refused naming the column, the row and
    the kind of value the column holds (the value is not quoted)."""
    found = refused_value(raw, dtypes)
    if found is None:
        return SnapshotFileError(
            f"{path}: cannot be read as a snapshot CSV (a value that is not of its column's dtype)"
        )
    name, row, kind = found
    return SnapshotFileError(
        f"{path}: column {shown(name)}, row {row}: a value that is not {kind}"
        f" (dtype {shown(dtypes[name])})"
    )


def _restore(
    path: Path, frame: pd.DataFrame, columns: list[dict[str, Any]], escaped: bool
) -> pd.DataFrame:
    """Instants parsed, escaped text undone and categories rebuilt, as the manifest records."""
    for col in columns:
        key = col["name"]
        if col["dtype"] == DATETIME:
            try:
                values = pd.to_datetime(frame[key], utc=True, format="ISO8601")
            except (ValueError, OverflowError):  # the value is not quoted
                raise SnapshotFileError(
                    f"{path}: cannot be read as a snapshot CSV (column {shown(key)}: a value that"
                    " is not an ISO 8601 instant)"
                ) from None
            frame[key] = values.astype(DATETIME)
        elif col["dtype"] in _TEXT_DTYPES:
            text = unescape(frame[key]) if escaped else frame[key]
            if col["dtype"] == "category":
                text = as_categories(path, key, text, category_dtype(col))
            frame[key] = text
    return frame


def as_categories(
    path: Path, name: str, values: pd.Series, dtype: pd.CategoricalDtype
) -> pd.Series:
    """``values`` as the categorical ``dtype``; a value outside its categories is refused
    naming the row and column, not turned into a missing value (the value is not quoted).
    Each value is looked up once: its code is its category's position."""
    codes = dtype.categories.get_indexer(pd.Index(values))
    lost = (codes == -1) & values.notna().to_numpy()
    if lost.any():
        row = int(lost.argmax()) + 1
        raise SnapshotFileError(
            f"{path}: column {shown(name)}, row {row}: a value that is not one of the column's"
            " categories in the manifest"
        )
    categorical = pd.Categorical.from_codes(codes, dtype=dtype)
    return pd.Series(categorical, index=values.index, name=values.name)


def category_dtype(column: Mapping[str, Any]) -> pd.CategoricalDtype:
    """The categorical dtype a manifest's column entry declares."""
    return _category_dtype(tuple(column.get("categories", [])), column.get("ordered", False))


@functools.lru_cache(maxsize=256)
def _category_dtype(categories: tuple[str, ...], ordered: bool) -> pd.CategoricalDtype:
    """One dtype per category list (a dtype cannot change): making one checks every category
    (some 0.3 ms), and a program's export declares the same lists in every read."""
    return pd.CategoricalDtype(list(categories), ordered=ordered)


def read_frames(directory: str | Path) -> SnapshotFiles:
    """Read a directory written by ``write_snapshot``: its frames, source and pull time.

    Every file's SHA-256 is checked against the manifest first; a missing,
    altered or truncated file raises ``SnapshotFileError`` naming it.
    """
    base = Path(directory)
    manifest = read_snapshot_manifest(base)
    entries = manifest["frames"]
    escaped = ESCAPING_KEY in manifest  # snapshots written before escaping have none
    frames = {name: read_csv_frame(base, entry, escaped) for name, entry in entries.items()}
    return files_of(manifest, frames, lambda entry: read_csv_frame(base, entry, escaped))


def files_of(
    manifest: Mapping[str, Any],
    frames: dict[str, pd.DataFrame],
    read_part: Callable[[Mapping[str, Any]], pd.DataFrame] | None = None,
) -> SnapshotFiles:
    """What a checked snapshot manifest says of ``frames``: their source, pull time and kinds,
    and the sample design, its parts read by ``read_part`` (given a manifest entry)."""
    kinds = manifest.get("kinds")
    sample = manifest.get("sample")
    design = None
    if sample is not None and read_part is not None:
        design = _sample_design(sample, {part: read_part(sample[part]) for part in SAMPLE_PARTS})
    return SnapshotFiles(
        frames,
        manifest.get("source", ""),
        manifest.get("pulled_at"),
        None if kinds is None else tuple(kinds),
        design,
        provenance=dict(manifest.get(PROVENANCE, {})),
        read_times={
            kind: (first, last) for kind, (first, last) in manifest.get("read_times", {}).items()
        },
    )


def _sample_design(sample: Mapping[str, Any], parts: Mapping[str, pd.DataFrame]) -> SampleDesign:
    """The sample design a manifest's ``sample`` entry describes, its ``parts`` (``strata``,
    ``units``) given; what it lacks of ``SAMPLE_DRAWN`` takes the defaults (see there)."""
    drawn: dict[str, Any] = {key: sample[key] for key in SAMPLE_DRAWN if key in sample}
    return SampleDesign(
        sample["seed"], tuple(sample["by"]), parts["strata"], parts["units"], **drawn
    )


def _drawn(design: SampleDesign) -> dict[str, Any]:
    """``SAMPLE_DRAWN`` of ``design`` as the manifest keeps them (``n`` only when known)."""
    kept = {key: getattr(design, key) for key in SAMPLE_DRAWN}
    return {key: value for key, value in kept.items() if value is not None}


__getattr__ = module_getattr(
    __name__,
    {"public_url": (deprecation(f"{__name__}.public_url"), lambda: _public_url)},
)
