"""Deprecated since 0.5.0, removed in 0.6.0: the estimate lives in
``lyt_toolkit.fill.estimate``.

Importing this module warns; it re-exports what it held from the new home, and
``estimate_pull`` takes its options as keywords, as it did here.
"""

from collections.abc import Iterable
from typing import Any

from .._deprecation import deprecation, warn
from ..client import LoyaltyClient
from ..fill import estimate as _fill
from .cost import PullEstimate
from .defaults import EstimateOptions

__all__ = ["estimate_pull"]


def estimate_pull(
    client: LoyaltyClient, kinds: Iterable[str] | None = None, **options: Any
) -> PullEstimate:
    """``lyt_toolkit.fill.estimate_pull(client, EstimateOptions(kinds=kinds, **options))``:
    the keywords (``cards_per_member``, ``read_members``, ``budget_share``) are
    ``EstimateOptions``' fields."""
    return _fill.estimate_pull(client, EstimateOptions(kinds=kinds, **options))


warn(deprecation("lyt_toolkit.snapshot.estimate"))
