"""The instants a snapshot is stamped with: this machine's UTC time, or the service's."""

from __future__ import annotations

import pandas as pd

__all__ = ["service_instant", "utc_now"]


def service_instant(seconds: float) -> pd.Timestamp | None:
    """Unix ``seconds`` of the service's clock as a UTC timestamp, or None when they give no
    instant pandas can hold."""
    try:
        return pd.Timestamp(seconds, unit="s", tz="UTC")
    except (OverflowError, TypeError, ValueError):
        return None


def utc_now() -> pd.Timestamp:
    """This machine's time in UTC."""
    return pd.Timestamp.now(tz="UTC")
