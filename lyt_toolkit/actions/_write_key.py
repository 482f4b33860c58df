"""Which write an item of a plan is: the key an unsaved plan's refusal for good is logged with.

A saved plan's refusals for good are its own by its plan file (``actions.log``); an unsaved
plan has no file, so each such refusal is logged with the key of the write refused
(``write_key``: a sha256 of the plan's action, the item's target and its payload). A run
again with the log leaves a refusal unsent only for an item that is that same write: another
plan holding it too, but not one whose write to that target differs in any value.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from datetime import date, time
from enum import Enum
from typing import Any

import numpy as np
from pydantic import BaseModel

from .items import PlanItem

__all__ = ["write_key"]


def write_key(action: str, item: PlanItem[Any]) -> str:
    """The sha256 (hex) of ``item``'s write: ``action``, its target and its payload's values,
    the same for equal values in any process (``_plain``). No value can be read back from it
    (a payload holds no credential anyway)."""
    return hashlib.sha256(_text([action, item.target, item.payload]).encode()).hexdigest()


def _text(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no spaces, what JSON cannot hold ``_plain``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it, the same for equal values in every process: a model's
    fields in JSON mode, a dataclass's fields, a set's members in the order of their text,
    an enum's value, a date or time in ISO format, a NumPy value as Python's; an object of no
    ``repr`` of its own (whose default names its address) its attributes; else its ``repr``
    (a value of a plan of one's own)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, set | frozenset):
        return sorted(value, key=_text)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, date | time):  # a datetime, a pandas Timestamp too
        return value.isoformat()
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        return dict(value)
    if type(value).__repr__ is object.__repr__:
        return value.__getstate__()
    return repr(value)
