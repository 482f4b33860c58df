"""Reading a snapshot back from a folder that ``to_csv`` or ``to_parquet`` wrote, and the
program of a snapshot or of such a folder (``snapshot_program``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..reports.snapshot_csv import FORMAT, read_frames, read_snapshot_manifest
from ..reports.snapshot_parquet import PARQUET_FORMAT, read_parquet_frames
from .model import ProgramSnapshot
from .program_file import program_as_read

__all__ = ["read_snapshot", "snapshot_program"]


def read_snapshot(directory: str | Path) -> ProgramSnapshot:
    """Read a folder written by ``ProgramSnapshot.to_csv`` or ``to_parquet`` into a snapshot.

    The manifest says which form the folder holds. Every file's SHA-256 is
    checked against the manifest first; a missing, altered or truncated file
    raises ``SnapshotFileError`` naming it. A snapshot pulled with ``kinds=`` reads back
    with the same ``kinds``, a sampled one with its sample design, a checkpointed one with
    its ``read_times``, a refreshed one with each kind's ``read_at``, and every snapshot
    with the ``provenance`` its manifest records.
    """
    manifest = read_snapshot_manifest(directory, formats=(FORMAT, PARQUET_FORMAT))
    read = read_parquet_frames if manifest["format"] == PARQUET_FORMAT else read_frames
    files = read(directory)
    kinds = files.frames.keys() if files.kinds is None else files.kinds
    frames = {name: files.frames[name] for name in kinds}  # the others are empty: not pulled
    read_at = {kind: when for kind, when in manifest["read_at"].items() if kind in frames}
    read_times = {
        kind: (pd.Timestamp(first), pd.Timestamp(last))
        for kind, (first, last) in files.read_times.items()
    }
    return ProgramSnapshot.from_frames(
        frames,
        source=files.source,
        pulled_at=files.pulled_at,
        sample=files.sample,
        read_at=read_at,
        read_times=read_times,
        provenance=files.provenance,
    )


def snapshot_program(source: ProgramSnapshot | str | Path) -> dict[str, Any]:
    """The ``lyt-program/1`` program of a snapshot, or of the folder its ``to_csv`` or
    ``to_parquet`` wrote, as the dict that reading the file ``to_program`` writes gives:
    what a sandbox holds (``Sandbox.start(data)``).

    A folder that is missing, altered or not a snapshot raises ``SnapshotFileError`` (a
    ``ValueError``) naming the file, one that cannot be read ``OSError``; anything else
    ``TypeError``.
    """
    snapshot = read_snapshot(source) if isinstance(source, str | Path) else source
    if not isinstance(snapshot, ProgramSnapshot):
        raise TypeError(
            "source: expected a ProgramSnapshot or the folder its to_csv wrote,"
            f" not {type(source).__name__}"
        )
    return program_as_read(snapshot)
