"""Writing a file safely (a report, a plan file): to a temporary name in the same folder,
then renamed.

The rename (``os.replace``) replaces whatever the target path held, a symlink
included, so a file is never written through a link planted in the output
folder, and a reader never sees a half-written file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["FILE_MODE", "replacing"]

FILE_MODE = 0o644
"""Permissions of a written file (the temporary file starts private)."""


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A fresh temporary path beside ``path``; renamed onto ``path`` when the block succeeds.

    On failure the temporary file is removed and ``path`` is left as it was.
    """
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
