"""Counted nouns in messages: ``counted(1, "call")`` is ``1 call``, ``counted(2, "call")``
``2 calls`` (every layer may use it: it imports nothing)."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun plural (``plural``, else ``noun + "s"``) unless the
    count is exactly one."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
