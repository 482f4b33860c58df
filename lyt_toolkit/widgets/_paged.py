"""A paged list a panel reads whole: the interface gives no totals, so its calls (one per page
of 100) are known only once it has been walked. ``Walked`` is what a panel knows of them,
``walk`` reads a list within the calls the panel's share holds for it, keeping of each item
only what the panel shows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from .._text import counted
from ..errors import LytError
from ..models.listing import MAX_LIMIT

if TYPE_CHECKING:
    from ..models import Page

__all__ = ["Walked", "stopped", "walk"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Walked:
    """The calls a walk of a list costs as a panel knows it: ``calls``, as its last walk took
    (``exact``), else at least ``calls``: one for a list never walked, one more than the pages
    read for a walk the share stopped."""

    calls: int = 1
    exact: bool = False

    @property
    def note(self) -> str:
        """What follows the calls needed in a shown cost: `` or more`` unless ``exact``."""
        return "" if self.exact else " or more"

    def __str__(self) -> str:
        if self.exact:
            return f"{counted(self.calls, 'page')} of {MAX_LIMIT}, as its last load took"
        if self.calls > 1:
            return f"more than {counted(self.calls - 1, 'page')}: its last load stopped there"
        return f"a call per page of {MAX_LIMIT}, how many known once read"


def walk(
    pages: Iterable[Page[T]], room: int | None, keep: Callable[[T], R]
) -> tuple[list[R], Walked]:
    """``keep`` of every item of ``pages``, read a page (one call) at a time, and the calls the
    walk took: one page's items are held at a time, so a panel keeps what it shows of each,
    not the whole models. A list longer than ``room`` pages (None: no bound) stops before the
    first page beyond them: nothing kept then (``Walked`` not exact; ``stopped`` says why)."""
    kept: list[R] = []
    read = 0
    for page in pages:
        read += 1
        kept.extend(keep(item) for item in page.data)
        if room is not None and read >= room and page.next_cursor and not page.empty:
            return [], Walked(read + 1)
    return kept, Walked(read, exact=True)


def stopped(what: str, walked: Walked, share: float, *, filters: bool = False) -> LytError:
    """The error of a walk of ``what`` that ``walk`` stopped at the panel's ``share``;
    ``filters``: the panel has filters that narrow the list (the error says so)."""
    ways = ["narrow the filters"] if filters else []
    ways.append("wait for the window's reset")
    if share < 1:
        ways.append("set the panel's budget_share = 1.0 to let it take the whole window")
    way = ", or ".join(ways)
    return LytError(
        f"{what} stopped after {counted(walked.calls - 1, 'page')} of {MAX_LIMIT}, more"
        f" following: the next is beyond the panel's share ({share:g}) of the call budget"
        f" left this window; nothing more was sent and the list shown is unchanged."
        f" {way[0].upper()}{way[1:]}"
    )
