"""lyt_toolkit: analyse and administer loyalty programs from Jupyter.

The package talks to the loyalty and promotion service (or to its embedded
sandbox) and turns program data into pandas DataFrames, audits and reports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

# Public names, imported on first use so `import lyt_toolkit` stays cheap. A type
# checker reads the explicit imports below instead; keep the two lists in step.
if TYPE_CHECKING:
    from . import (
        actions,
        audit,
        client,
        errors,
        fill,
        frames,
        inputs,
        models,
        reports,
        snapshot,
        whatif,
        widgets,
    )
    from .client import AsyncLoyaltyClient, LoyaltyClient
    from .frames.sample import Sample
    from .snapshot import ProgramSnapshot, read_snapshot

_LAZY: dict[str, str] = {
    "AsyncLoyaltyClient": "lyt_toolkit.client",
    "LoyaltyClient": "lyt_toolkit.client",
    "ProgramSnapshot": "lyt_toolkit.snapshot",
    "Sample": "lyt_toolkit.frames.sample",
    "read_snapshot": "lyt_toolkit.snapshot",
}

# Subpackages reachable as attributes after a bare `import lyt_toolkit`
# (`lyt_toolkit.audit.run(...)`), imported on first use.
_SUBPACKAGES = frozenset(
    {
        "actions",
        "audit",
        "client",
        "errors",
        "fill",
        "frames",
        "inputs",
        "models",
        "reports",
        "snapshot",
        "whatif",
        "widgets",
    }
)

__all__ = [
    "AsyncLoyaltyClient",
    "LoyaltyClient",
    "ProgramSnapshot",
    "Sample",
    "__version__",
    "read_snapshot",
]


def __getattr__(name: str) -> object:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"lyt_toolkit.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lyt_toolkit' has no attribute {name!r}")
    found = getattr(importlib.import_module(module), name)
    if module == "lyt_toolkit.snapshot":
        # Keeps the deprecated SnapshotDiff.findings working after `from lyt_toolkit import
        # ProgramSnapshot`; goes with it in 0.5.0 (use audit.findings_between(before, after)).
        importlib.import_module("lyt_toolkit.audit")
    return found


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBPACKAGES})
