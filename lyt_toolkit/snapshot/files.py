"""Reading a snapshot back from the CSV files and manifest that ``to_csv`` wrote."""

from __future__ import annotations

from pathlib import Path

from ..reports.snapshot_csv import read_frames
from .model import ProgramSnapshot

__all__ = ["read_snapshot"]


def read_snapshot(directory: str | Path) -> ProgramSnapshot:
    """Read a directory written by ``ProgramSnapshot.to_csv`` back into a snapshot.

    Every file's SHA-256 is checked against the manifest first; a missing,
    altered or truncated file raises ``SnapshotFileError`` naming it.
    """
    files = read_frames(directory)
    return ProgramSnapshot.from_frames(files.frames, source=files.source, pulled_at=files.pulled_at)
