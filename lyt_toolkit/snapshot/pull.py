"""Deprecated since 0.5.0, removed in 0.6.0: the pull lives in ``lyt_toolkit.fill.pull``.

Importing this module warns; it re-exports what it held from the new homes.
"""

from .._deprecation import deprecation, warn
from ..fill.pull import ClientSource, Pulled, pull_frames, sample_of, settings_of
from .clock import service_instant, utc_now
from .defaults import DEFAULT_CONCURRENCY, SampleSource

__all__ = [
    "DEFAULT_CONCURRENCY",
    "ClientSource",
    "Pulled",
    "SampleSource",
    "pull_frames",
    "sample_of",
    "service_instant",
    "settings_of",
    "utc_now",
]

warn(deprecation("lyt_toolkit.snapshot.pull"))
