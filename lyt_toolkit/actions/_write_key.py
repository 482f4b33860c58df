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
from typing import Any

from pydantic import BaseModel

from .items import PlanItem

__all__ = ["write_key"]


def write_key(action: str, item: PlanItem[Any]) -> str:
    """The sha256 (hex) of ``item``'s write: ``action``, its target and its payload's values.
    No value can be read back from it (a payload holds no credential anyway)."""
    write = [action, item.target, item.payload]
    text = json.dumps(write, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it, the same in every process: a model's or a dataclass's
    fields, a set's members in order; else its ``repr`` (a value of a plan of one's own)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return repr(value)
