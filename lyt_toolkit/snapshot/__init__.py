"""A program's frames pulled together, cross-checked, compared and kept over time.

``ProgramSnapshot.pull(client)`` pulls every kind of program data concurrently
and resolves the card definitions it references (``kinds=`` pulls only some, and
``ProgramSnapshot.estimate`` counts the calls first); ``to_csv`` and
``read_snapshot`` write it out and read it back with the same dtypes (``to_parquet``
too); ``diff`` says what changed between two snapshots and ``SnapshotHistory`` keeps
them over time. ``snapshot_program`` turns a snapshot, or an exported folder, into the
program a sandbox holds.
"""

from .._deprecation import provide
from ..frames.registry import FRAME_NAMES
from ..reports.snapshot_csv import public_url
from .cost import PullCalls, PullEstimate
from .diff import CHANGES, SnapshotDiff
from .files import read_snapshot
from .history import SnapshotHistory
from .model import ProgramSnapshot
from .program_file import snapshot_program
from .pull import DEFAULT_CONCURRENCY, ClientSource

# The deprecated Sandbox.start(snapshot=FOLDER) reads the folder this way (the sandbox
# imports no snapshot code); goes with it in 0.5.0.
provide("lyt_toolkit.sandbox.Sandbox.start(snapshot=FOLDER)", snapshot_program)

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
    "snapshot_program",
]
