"""Reading a snapshot back from a folder that ``to_csv`` or ``to_parquet`` wrote."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..reports.snapshot_csv import FORMAT, read_frames, read_snapshot_manifest
from ..reports.snapshot_parquet import PARQUET_FORMAT, read_parquet_frames
from .model import ProgramSnapshot

__all__ = ["read_snapshot"]


def read_snapshot(directory: str | Path) -> ProgramSnapshot:
    """Read a folder written by ``ProgramSnapshot.to_csv`` or ``to_parquet`` into a snapshot.

    The manifest says which form the folder holds. Every file's SHA-256 is
    checked against the manifest first; a missing, altered or truncated file
    raises ``SnapshotFileError`` naming it. A snapshot pulled with ``kinds=`` reads back
    with the same ``kinds``, a sampled one with its sample design, a checkpointed one with
    its ``read_times``.
    """
    manifest = read_snapshot_manifest(directory, formats=(FORMAT, PARQUET_FORMAT))
    read = read_parquet_frames if manifest["format"] == PARQUET_FORMAT else read_frames
    files = read(directory)
    kinds = files.frames.keys() if files.kinds is None else files.kinds
    frames = {name: files.frames[name] for name in kinds}  # the others are empty: not pulled
    read_times = {
        kind: (pd.Timestamp(first), pd.Timestamp(last))
        for kind, (first, last) in files.read_times.items()
    }
    return ProgramSnapshot.from_frames(
        frames,
        source=files.source,
        pulled_at=files.pulled_at,
        sample=files.sample,
        read_times=read_times,
    )
