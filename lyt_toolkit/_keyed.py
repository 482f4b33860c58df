"""Registries keyed by an attribute of their entries: ``keyed("kind", a, b)`` is
``{a.kind: a, b.kind: b}``, in the order given (every layer may use it: it imports nothing)."""

from __future__ import annotations

from typing import TypeVar

__all__ = ["keyed"]

T = TypeVar("T")


def keyed(attribute: str, *entries: T) -> dict[str, T]:
    """Each entry under its ``attribute``, in the order given; two entries with one key
    raise ``ValueError`` (a dict display would silently keep the last)."""
    registry: dict[str, T] = {}
    for entry in entries:
        key = getattr(entry, attribute)
        if key in registry:
            raise ValueError(f"two entries have the {attribute} {key!r}")
        registry[key] = entry
    return registry
