"""A program's frames pulled together, cross-checked, compared and kept over time.

``ProgramSnapshot.pull(client)`` pulls every kind of program data concurrently
and resolves the card definitions it references (``kinds=`` pulls only some, and
``ProgramSnapshot.estimate`` counts the calls first); ``to_csv`` and
``read_snapshot`` write it out and read it back with the same dtypes (``to_parquet``
too); ``diff`` says what changed between two snapshots and ``SnapshotHistory`` keeps
them over time.
"""

from ..frames.registry import FRAME_NAMES
from ..reports.snapshot_csv import public_url
from .cost import PullCalls, PullEstimate
from .diff import CHANGES, SnapshotDiff
from .files import read_snapshot
from .history import SnapshotHistory
from .model import ProgramSnapshot
from .pull import DEFAULT_CONCURRENCY, ClientSource

__all__ = [
    "CHANGES",
    "DEFAULT_CONCURRENCY",
    "FRAME_NAMES",
    "ClientSource",
    "ProgramSnapshot",
    "PullCalls",
    "PullEstimate",
    "SnapshotDiff",
    "SnapshotHistory",
    "public_url",
    "read_snapshot",
]
