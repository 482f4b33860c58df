"""A control's value as its changes set it, for code that runs in a worker thread."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

__all__ = ["Taken"]

Value = TypeVar("Value")


class Taken(Generic[Value]):
    """The ``value`` of ``control`` as its last change set it, taken by an observer in the
    thread that made the change: the kernel's for the user's changes, a load's ``_shows``
    for its own. A worker (a load, a batch, its end) reads :attr:`value`, never the control.
    Made before any other observer of the control, so that those see the new value here."""

    def __init__(self, control: Any) -> None:
        self.value: Value = control.value
        control.observe(self._changed, names="value")

    def _changed(self, change: dict[str, Any]) -> None:
        self.value = change["new"]
