"""The one-writer lock of plan files and action logs (it lives in ``lyt_toolkit._lock``, shared
with checkpointed pulls)."""

from .._lock import LockFileError, LockHeldError, held, lock_path

__all__ = ["LockFileError", "LockHeldError", "held", "lock_path"]
