"""lyt_toolkit: analyse and administer loyalty programs from Jupyter.

The package talks to the loyalty and promotion service (or to its embedded
sandbox) and turns program data into pandas DataFrames, audits and reports.
"""

__version__ = "0.1.0"

# Public names, imported on first use so `import lyt_toolkit` stays cheap.
_LAZY: dict[str, str] = {
    "LoyaltyClient": "lyt_toolkit.client",
    "AsyncLoyaltyClient": "lyt_toolkit.client",
    "ProgramSnapshot": "lyt_toolkit.frames.snapshot",
    "read_snapshot": "lyt_toolkit.reports.snapshot_csv",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lyt_toolkit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
