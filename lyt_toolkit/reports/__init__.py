"""Reports: a snapshot's frames as CSV files with a manifest, and reading them back."""

from .snapshot_csv import (
    FORMAT,
    MANIFEST,
    SnapshotFileError,
    read_manifest,
    read_snapshot,
    write_snapshot,
)

__all__ = [
    "FORMAT",
    "MANIFEST",
    "SnapshotFileError",
    "read_manifest",
    "read_snapshot",
    "write_snapshot",
]
