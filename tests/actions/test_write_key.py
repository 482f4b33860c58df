"""The key of an unsaved plan's write (``_write_key.write_key``) errs only towards sending:
two writes of different values never share one, even where a value's text is cut short (a
long pandas object) or names no value (an object's own ``repr``), nor two of different
classes of equal fields; a payload of no faithful
picture, or one referring back to itself, gets a key of its own at every call instead of
failing the apply. Equal values built anew still share theirs (the same write)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit.actions import PlanItem
from lyt_toolkit.actions._write_key import write_key


def _key(payload: Any) -> str:
    return write_key("own_action", PlanItem("target", "own write", payload=payload))


def _long_series(changed: int) -> pd.Series:
    """A thousand points, the 500th ``changed``: its ``repr`` shows neither."""
    points = pd.Series(range(1000), name="points")
    points[500] = changed
    return points


class _Points:
    """A value of a plan of one's own whose ``repr`` names no value."""

    def __init__(self, points: int) -> None:
        self.points = points

    def __repr__(self) -> str:
        return "<points>"


@dataclass(frozen=True)
class _Grant:
    points: int


@dataclass(frozen=True)
class _Revoke:
    """A write of another kind whose fields are a ``_Grant``'s."""

    points: int


class _Loop:
    """An object of no ``repr`` of its own whose attribute refers back to itself."""

    def __init__(self) -> None:
        self.me = self


def _frame(changed: int) -> pd.DataFrame:
    return pd.DataFrame({"member": range(1000), "points": _long_series(changed).to_numpy()})


ALIKE = {
    "a long series": (_long_series(1), _long_series(2)),
    "a long frame": (_frame(1), _frame(2)),
    "an own repr": (_Points(1), _Points(2)),
    "categories": (pd.Categorical(["a"], ["a", "b"]), pd.Categorical(["a"], ["a", "c"])),
    "a long list of own reprs": ([_Points(0)] * 99 + [_Points(1)], [_Points(0)] * 100),
    "two classes of equal fields": (_Grant(10), _Revoke(10)),
}


@pytest.mark.parametrize("one, other", ALIKE.values(), ids=ALIKE)
def test_values_whose_text_is_alike_are_other_writes(one: Any, other: Any) -> None:
    assert _key(one) != _key(other)


@pytest.mark.parametrize("one, _", ALIKE.values(), ids=ALIKE)
def test_equal_values_built_anew_are_the_same_write(one: Any, _: Any) -> None:
    built_anew = one.copy() if hasattr(one, "copy") else type(one)(one.points)
    assert _key(one) == _key(built_anew)


NO_PICTURE = {
    "refers back to itself": _Loop(),
    "not to be pickled": {"lock": threading.Lock()},
    "keys JSON cannot hold": {("a", 1): 1},
}


@pytest.mark.parametrize("payload", NO_PICTURE.values(), ids=NO_PICTURE)
def test_a_payload_of_no_picture_is_a_write_of_its_own_at_every_call(payload: Any) -> None:
    one, again = _key(payload), _key(payload)  # no error: the apply goes on
    assert one != again  # never the key of a write refused for good: sent again
    assert len(one) == len(again) == 64  # as a sha256's
