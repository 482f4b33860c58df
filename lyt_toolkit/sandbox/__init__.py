"""The sandbox: a local, stateful implementation of the whole service interface.

Start it in-process with ``Sandbox.start()`` or from the shell with
``lyt sandbox serve``. It imports nothing of the package but ``models``, save
``read_snapshot`` to start from a snapshot folder (see ``from_snapshot``).
"""

from .config import SandboxConfig, SandboxCredentials
from .loader import ProgramDataWarning
from .server import Sandbox

__all__ = ["ProgramDataWarning", "Sandbox", "SandboxConfig", "SandboxCredentials"]
