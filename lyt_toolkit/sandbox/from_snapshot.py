"""Starting a sandbox from a snapshot: the program it holds and the credentials it takes.

A snapshot writes its own program file (``to_program``), so the sandbox takes
it by that one method and never imports the snapshot package; only a folder
exported by ``to_csv`` needs ``read_snapshot`` to become a snapshot first. That
single import, made when a folder is given, is the sandbox's one exception to
importing only models and errors (declared in pyproject.toml).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Protocol

from .config import DEFAULT_CREDENTIALS, SandboxCredentials


class ProgramWriter(Protocol):
    """What a sandbox can start from: anything that writes a ``lyt-program/1`` file,
    such as a ``ProgramSnapshot``."""

    def to_program(self, path: str | Path) -> Any: ...


SnapshotSource = ProgramWriter | str | Path
"""A snapshot, or the folder ``ProgramSnapshot.to_csv`` wrote."""


def snapshot_program(snapshot: SnapshotSource) -> dict[str, Any]:
    """The program dict of a snapshot or of an exported snapshot folder.

    A folder that is missing, altered or not a snapshot raises ``ValueError``
    (``SnapshotFileError``) naming the file; anything else without ``to_program``
    raises ``TypeError``.
    """
    if isinstance(snapshot, str | Path):
        from ..snapshot.files import read_snapshot  # the declared exception, see the docstring

        snapshot = read_snapshot(snapshot)
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


def sandbox_credentials() -> SandboxCredentials:
    """The documented sandbox key pairs, never the ``LYT_*`` variables: where a snapshot
    was pulled those name the real service, and a rehearsal must not accept them."""
    return SandboxCredentials(**DEFAULT_CREDENTIALS)
