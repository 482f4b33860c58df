"""Deprecated since 0.5.0, removed in 0.6.0: the pull lives in ``lyt_toolkit.fill.pull``.

Importing this module warns; it re-exports what it held from the new homes, and
``pull_frames`` takes its options as keywords, as it did here.
"""

from typing import Any

from .._deprecation import deprecation, warn
from ..fill import pull as _fill
from ..fill.pull import ClientSource, Pulled, sample_of, settings_of
from .clock import service_instant, utc_now
from .defaults import DEFAULT_CONCURRENCY, PullOptions, SampleSource

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


async def pull_frames(client: ClientSource, **options: Any) -> Pulled:
    """``lyt_toolkit.fill.pull_frames(client, PullOptions(**options))``: the keywords
    (``progress``, ``concurrency``, ``kinds``, …) are ``PullOptions``' fields."""
    return await _fill.pull_frames(client, PullOptions(**options))


warn(deprecation("lyt_toolkit.snapshot.pull"))
