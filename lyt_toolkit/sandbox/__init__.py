"""The sandbox: a local, stateful implementation of the whole service interface.

Start it in-process with ``Sandbox.start()`` or from the shell with
``lyt sandbox serve``. It imports nothing of the package but ``models`` and ``errors``:
it holds programs, and a snapshot is turned into one on the snapshot's side (see
``from_snapshot``).
"""

from .config import SandboxConfig, SandboxCredentials
from .loader import ProgramDataWarning
from .server import Sandbox

__all__ = ["ProgramDataWarning", "Sandbox", "SandboxConfig", "SandboxCredentials"]
