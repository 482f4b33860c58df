"""Starting a sandbox from a snapshot: the program it holds and the credentials it takes.

The sandbox holds programs and reads no snapshot. A snapshot writes its own program
file (``to_program``), so the sandbox takes it by that one method; a folder exported
by ``to_csv`` is the snapshot package's to read: ``lyt_toolkit.snapshot.snapshot_program``
turns it into the program, or ``read_snapshot`` into a snapshot to start from.

``Sandbox.start(snapshot=FOLDER)`` is deprecated (removed in 0.5.0): it warns and reads
the folder with what the snapshot package provided when imported
(``lyt_toolkit._deprecation.provide``), and raises a ``RuntimeError`` naming the new
route when that package was never imported.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Protocol

from .._deprecation import deprecation, provided
from .config import DEFAULT_CREDENTIALS, SandboxCredentials

FOLDER_FORM = deprecation("lyt_toolkit.sandbox.Sandbox.start(snapshot=FOLDER)")
"""The deprecated folder form of ``Sandbox.start(snapshot=...)``."""


class ProgramWriter(Protocol):
    """What a sandbox can start from: anything that writes a ``lyt-program/1`` file,
    such as a ``ProgramSnapshot``."""

    def to_program(self, path: str | Path) -> Any: ...


SnapshotSource = ProgramWriter | str | Path
"""A snapshot, or (deprecated) the folder ``ProgramSnapshot.to_csv`` wrote."""


def program_to_hold(snapshot: SnapshotSource) -> dict[str, Any]:
    """The program dict of a snapshot (anything with ``to_program``), or of an exported
    snapshot folder through the deprecated folder form (see the module docstring; the
    caller warns).

    A folder that is missing, altered or not a snapshot raises ``ValueError``
    (``SnapshotFileError``) naming the file; anything else without ``to_program``
    raises ``TypeError``.
    """
    if isinstance(snapshot, str | Path):
        return folder_program(snapshot)
    if not callable(getattr(snapshot, "to_program", None)):
        raise TypeError(
            "snapshot: expected a ProgramSnapshot or the folder its to_csv wrote,"
            f" not {type(snapshot).__name__}"
        )
    with tempfile.TemporaryDirectory(prefix="lyt-snapshot-") as folder:
        path = Path(folder) / "program.json"
        snapshot.to_program(path)
        program: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return program


def folder_program(folder: str | Path) -> dict[str, Any]:
    """The program of an exported snapshot folder, read by the snapshot package's
    ``snapshot_program`` if importing that package provided it; else a ``RuntimeError``
    naming the route that needs nothing provided."""
    read = provided(FOLDER_FORM.name)
    if read is None:
        raise RuntimeError(
            f"snapshot={str(folder)!r}: the sandbox reads no snapshot folder; use "
            "Sandbox.start(snapshot=read_snapshot(folder)), with "
            "`from lyt_toolkit.snapshot import read_snapshot`"
        )
    program: dict[str, Any] = read(folder)
    return program


def sandbox_credentials() -> SandboxCredentials:
    """The documented sandbox key pairs, never the ``LYT_*`` variables: where a snapshot
    was pulled those name the real service, and a rehearsal must not accept them."""
    return SandboxCredentials(**DEFAULT_CREDENTIALS)
