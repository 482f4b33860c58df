"""Which write an item of a plan is: the key an unsaved plan's refusal for good is logged with.

A saved plan's refusals for good are its own by its plan file (``actions.log``); an unsaved
plan has no file, so each such refusal is logged with the key of the write refused
(``write_key``: a sha256 of the plan's action, the item's target and its payload). A run
again with the log leaves a refusal unsent only for an item that is that same write: another
plan holding it too, but not one whose write to that target differs in any value.

A key errs only towards sending: a payload is keyed by a faithful picture of every value in
it (``_plain``), never by a text that could be cut short (a pandas object's ``repr``) or
name no value (an address). A payload with no such picture gets a key no other write has.
"""

from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import json
import secrets
from collections.abc import Mapping
from datetime import date, time
from enum import Enum
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray
from pydantic import BaseModel

from .items import PlanItem

__all__ = ["write_key"]


_NEWOBJ = copyreg.__newobj__  # type: ignore[attr-defined]  # not in typeshed's copyreg
"""What pickle rebuilds an object with from its class (then its arguments)."""


class _Unpictured(TypeError):
    """A value of no faithful picture (``_plain``)."""


def write_key(action: str, item: PlanItem[Any]) -> str:
    """The sha256 (hex) of ``item``'s write: ``action``, its target and its payload's values,
    the same for equal values in any process (``_plain``). No value can be read back from it
    (a payload holds no credential anyway).

    A payload that cannot be pictured so (a value of no picture, or one that refers back to
    itself) gets a key drawn at random, another at every call: that write is never taken for
    one refused for good, so it is sent again on a resume, as before keys existed."""
    try:
        text = _text([action, item.target, item.payload])
    except Exception:  # a key never fails an apply: this write is one of its own
        return secrets.token_hex(hashlib.sha256().digest_size)
    return hashlib.sha256(text.encode()).hexdigest()


def _text(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no spaces, what JSON cannot hold ``_plain``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it, faithfully (every value in it, none cut short) and the
    same for equal values in every process: a model's fields in JSON mode, a dataclass's
    fields and an enum's value, each with its class (two classes of equal fields are two
    writes), a set's members in the order of their text, a date or time in
    ISO format, a NumPy value as Python's, a pandas object as its values, index and dtype
    (``_pandas``), bytes as hex, a class by name; any other value as pickle rebuilds it
    (``_rebuilt``: an object of a plan of one's own, its class and attributes). A value of
    none of these is ``_Unpictured``."""
    if isinstance(value, BaseModel):
        return _of_class(value, value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return _of_class(value, fields)
    if isinstance(value, set | frozenset):
        return sorted(value, key=_text)
    if isinstance(value, Enum):
        return _of_class(value, value.value)
    if isinstance(value, date | time):  # a datetime, a pandas Timestamp too
        return value.isoformat()
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    if isinstance(value, pd.DataFrame | pd.Series | pd.Index | ExtensionArray):
        return _pandas(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bytes | bytearray):
        return {"bytes": value.hex()}
    if isinstance(value, type):
        return {"class": _name(value)}
    return _rebuilt(value)


def _of_class(value: Any, picture: Any) -> dict[str, Any]:
    """``picture`` of ``value`` with the name of its class."""
    return {"class": _name(type(value)), "of": picture}


def _pandas(value: pd.DataFrame | pd.Series | pd.Index | ExtensionArray) -> dict[str, Any]:
    """A pandas object's every value (its ``repr`` shows some only) with its dtype, a
    series's name and index, an index's names, a frame's columns with their labels and
    index."""
    if isinstance(value, pd.DataFrame):
        return {
            "columns": [_pandas(value.iloc[:, at].array) for at in range(value.shape[1])],
            "labels": _pandas(value.columns),
            "index": _pandas(value.index),
        }
    picture = {"dtype": _dtype(value.dtype), "values": value.tolist()}
    if isinstance(value, pd.Series):
        return {**picture, "name": value.name, "index": _pandas(value.index)}
    if isinstance(value, pd.Index):
        return {**picture, "names": list(value.names)}
    return picture


def _dtype(dtype: Any) -> Any:
    """A dtype by name; a categorical one by its categories and order (its name says
    ``category`` only)."""
    if isinstance(dtype, pd.CategoricalDtype):
        return {"categories": _pandas(dtype.categories), "ordered": dtype.ordered}
    return str(dtype)


def _rebuilt(value: Any) -> dict[str, Any]:
    """What pickle rebuilds ``value`` from (``__reduce_ex__``), which pictures it faithfully:
    the callable by name, its arguments, the state (an object's attributes) and items; a
    module's global (a singleton such as ``pandas.NA``) by name. ``_Unpictured`` for a value
    pickle cannot take."""
    try:
        reduced = value.__reduce_ex__(2)
    except Exception as exc:
        raise _Unpictured(type(value).__name__) from exc
    if isinstance(reduced, str):
        return {"global": f"{type(value).__module__}.{reduced}"}
    rebuild, args, *rest = reduced
    state, items, pairs = [*rest, None, None, None][:3]
    if rebuild is _NEWOBJ:  # a class, then its arguments
        rebuild, *args = args
    return {
        "rebuild": _name(rebuild),
        "args": list(args),
        "state": state,
        "items": None if items is None else list(items),
        "pairs": None if pairs is None else [list(pair) for pair in pairs],
    }


def _name(named: Any) -> str:
    """A class's or function's module and qualified name."""
    return f"{named.__module__}.{named.__qualname__}"
