"""The sandbox: a local, stateful implementation of the whole service interface.

Start it in-process with ``Sandbox.start()`` or from the shell with
``lyt sandbox serve``. It imports nothing of the package but ``models`` and ``errors``:
it holds programs, and a snapshot is turned into one on the snapshot's side (see
``from_snapshot``). ``Sandbox`` (the web app and its server) is imported on first use,
so ``lyt sandbox serve`` can load a program while they import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import SandboxConfig, SandboxCredentials
from .loader import ProgramDataWarning

if TYPE_CHECKING:
    from .server import Sandbox

__all__ = ["ProgramDataWarning", "Sandbox", "SandboxConfig", "SandboxCredentials"]


def __getattr__(name: str) -> Any:
    if name == "Sandbox":
        from .server import Sandbox

        return Sandbox
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
