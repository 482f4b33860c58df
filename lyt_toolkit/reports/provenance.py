"""A snapshot's ``provenance`` as its manifest records it: how the snapshot was made.

The code that makes a snapshot (a pull, a paced pull over several windows, a refresh of some
kinds) may record how in ``ProgramSnapshot.provenance``: when each kind was read, its first
and last call, what was refreshed. The manifest keeps that mapping under ``provenance``,
whatever its keys, so it survives ``to_parquet``/``to_csv`` and ``read_snapshot`` and a
``SnapshotHistory``'s ``append`` and ``load``. It is written as JSON; instants become ISO 8601
text in UTC (``2026-01-15T12:00:00.000000Z``), tuples lists and NumPy numbers plain ones, so
what reads back is the JSON form of what was written.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import pandas as pd

from ..errors import LytError

__all__ = ["PROVENANCE", "ProvenanceError", "json_provenance"]

PROVENANCE = "provenance"
"""The manifest key holding a snapshot's provenance (absent when there is none)."""

_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


class ProvenanceError(LytError, ValueError):
    """A snapshot's provenance holds a value JSON cannot hold."""


def json_provenance(provenance: object) -> dict[str, Any]:
    """``provenance`` as the manifest writes it: a JSON object (text keys; text, numbers,
    true/false, null, lists and objects), each instant as ISO 8601 text (UTC, ``Z``), each
    date as ``YYYY-MM-DD``. Anything else is a ``ProvenanceError`` naming where it is."""
    if provenance is None:
        return {}
    if not isinstance(provenance, Mapping):
        raise ProvenanceError(f"provenance must be a mapping, not {type(provenance).__name__}")
    out = _json_value(provenance, PROVENANCE)
    assert isinstance(out, dict)
    return out


def _json_value(value: object, where: str) -> object:
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, datetime):
        stamp = pd.Timestamp(value)
        stamp = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
        return stamp.strftime(_DATE_FORMAT)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ProvenanceError(f"{where}: the keys of a provenance mapping must be text")
        return {k: _json_value(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise ProvenanceError(
        f"{where}: a {type(value).__name__} cannot be written to a manifest (provenance holds "
        "text, numbers, true/false, None, instants, dates, lists and mappings)"
    )
