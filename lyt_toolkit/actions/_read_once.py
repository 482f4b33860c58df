"""Reads an observer shares between the items of a preview, each sent once: a preview reads
from several threads at once, and a plain cache lets two threads that miss it together both
read (a plan of buckets two to a card read each card's list and member twice)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["ReadOnce"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ReadOnce(Generic[K, V]):
    """Each key's value, read by the first thread that asks for it; a thread asking for a key
    under way waits for that read. A read that raises keeps nothing (the next asks again)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[K, threading.Lock] = {}
        self._values: dict[K, V] = {}

    def get(self, key: K, read: Callable[[], V]) -> V:
        """``key``'s value, ``read()`` once for all the threads asking."""
        with self._lock:
            reading = self._reading.setdefault(key, threading.Lock())
        with reading:
            if key not in self._values:
                self._values[key] = read()
            return self._values[key]
