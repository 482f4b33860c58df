"""Reads an observer shares between the items of a preview, each sent once: a preview reads
from several threads at once, and a plain cache lets two threads that miss it together both
read (a plan of buckets two to a card read each card's list and member twice). What the
interface lists many a call (rewards by ID, benefits by name) is read a listing of the plan's
keys at a time (``ReadInChunks``), and counted so (``chunk_reads``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

__all__ = ["ReadInChunks", "ReadOnce", "chunk_reads", "chunks"]

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


class ReadInChunks(Generic[V]):
    """What one listing of many keys reads, for a plan's keys read ``per_read`` a listing,
    each listing once (``ReadOnce``): a key's listing holds the keys next to it in ``keys``
    (the plan's order); a key not among them is read alone."""

    def __init__(
        self, keys: Sequence[str], per_read: int, read: Callable[[Sequence[str]], V]
    ) -> None:
        self._chunks = chunks(keys, per_read)
        self._read = read
        self._once: ReadOnce[tuple[str, ...], V] = ReadOnce()

    def get(self, key: str) -> V:
        """What the listing holding ``key`` read (read now if no thread did yet)."""
        chunk = self._chunks.get(key, (key,))
        return self._once.get(chunk, lambda: self._read(chunk))


def chunks(keys: Sequence[str], per_read: int) -> dict[str, tuple[str, ...]]:
    """Key -> the listing of ``keys`` holding it: ``per_read`` keys a listing, in order."""
    found: dict[str, tuple[str, ...]] = {}
    for start in range(0, len(keys), per_read):
        chunk = tuple(keys[start : start + per_read])
        found.update(dict.fromkeys(chunk, chunk))
    return found


def chunk_reads(keys: Sequence[str], per_read: int, asked: Iterable[str]) -> int:
    """The listings ``ReadInChunks(keys, per_read, ...)`` sends for the keys ``asked``."""
    held = chunks(keys, per_read)
    return len({held.get(key, (key,)) for key in asked})
