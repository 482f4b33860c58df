"""List envelopes: cursor pages (loyalty API) and counted lists (v1 and management)."""

from __future__ import annotations

from typing import Generic, TypeVar

from .common import ApiModel, Timestamp

__all__ = ["CountedList", "Cursor", "Page"]

T = TypeVar("T")


class Cursor(ApiModel):
    """Where the next page starts, and until when that position stays valid."""

    next: str | None = None
    expires_at: Timestamp | None = None


class Page(ApiModel, Generic[T]):
    """One page of a loyalty list; ``cursor`` is null on the last page."""

    data: list[T]
    cursor: Cursor | None = None
    object: str = "list"

    @property
    def next_cursor(self) -> str | None:
        """The value to pass to fetch the following page, if any."""
        return self.cursor.next if self.cursor else None

    @property
    def empty(self) -> bool:
        """True for a page without items."""
        return not self.data


class CountedList(ApiModel, Generic[T]):
    """A complete list with a total, as the v1 and management APIs return it."""

    object: str = "list"
    data_ref: str = "data"
    data: list[T]
    total: int
