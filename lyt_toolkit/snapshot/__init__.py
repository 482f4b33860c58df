"""A program's frames pulled together, cross-checked, compared and kept over time.

``ProgramSnapshot`` is a record of frames. ``ProgramSnapshot.pull(client)`` fills one
over HTTP through ``lyt_toolkit.fill`` (imported only when called, so this package loads no
HTTP client): every kind of program data concurrently, with the card definitions it
references (``kinds=`` pulls only some, and ``ProgramSnapshot.estimate`` counts the calls
first); ``to_csv`` and ``read_snapshot`` write it out and read it back with the same
dtypes (``to_parquet`` too); ``diff`` says what changed between two snapshots and
``SnapshotHistory`` keeps them over time. ``refresh`` brings a snapshot up to date by what
is new (``refresh_cost`` prices it first). ``snapshot_program`` turns a snapshot, or an
exported folder, into the program a sandbox holds.
"""

from typing import TYPE_CHECKING

from .._deprecation import provide
from .._url import public_url
from ..frames.registry import FRAME_NAMES
from .cost import ProjectedLists, PullCalls, PullEstimate
from .defaults import DEFAULT_CONCURRENCY
from .diff import CHANGES, SnapshotDiff
from .files import read_snapshot, snapshot_program
from .history import SnapshotHistory
from .model import ProgramSnapshot
from .refresh_cost import RefreshChoice, RefreshCost

if TYPE_CHECKING:
    from ..fill.pull import ClientSource

# The deprecated Sandbox.start(snapshot=FOLDER) reads the folder this way (the sandbox
# imports no snapshot code); goes with it in 0.5.0.
provide("lyt_toolkit.sandbox.Sandbox.start(snapshot=FOLDER)", snapshot_program)

__all__ = [
    "CHANGES",
    "DEFAULT_CONCURRENCY",
    "FRAME_NAMES",
    "ClientSource",
    "ProgramSnapshot",
    "ProjectedLists",
    "PullCalls",
    "PullEstimate",
    "RefreshChoice",
    "RefreshCost",
    "SnapshotDiff",
    "SnapshotHistory",
    "public_url",
    "read_snapshot",
    "snapshot_program",
]


def __getattr__(name: str) -> object:
    """``ClientSource`` names the client types, so it is read from ``lyt_toolkit.fill`` on
    first use: importing the snapshot loads no HTTP client."""
    if name == "ClientSource":
        from ..fill.pull import ClientSource

        return ClientSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
