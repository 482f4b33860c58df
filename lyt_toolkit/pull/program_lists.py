"""The program's top-level lists, declared once beside the member tree.

Rewards, benefits, card definitions and tier structures are each one list walked to its
end at the largest page. ``PROGRAM_LISTS`` says, for each, the client's resource group,
the frames it feeds and how its pages are read (rewards model-free, decoded natively;
the others as models). The snapshot pull and its cost estimate both walk these lists
from this one declaration, so what a pull sends and what its estimate counts cannot
name different lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..models.listing import MAX_LIMIT

__all__ = ["PROGRAM_LISTS", "ListPart", "ProgramList", "program_lists"]

ListPart = Literal["rewards", "benefits", "card_definitions", "tier_structures"]


@dataclass(frozen=True)
class ProgramList:
    """One top-level list: the client's resource group ``part`` and the frames it feeds."""

    part: ListPart
    feeds: frozenset[str]
    plain: bool = False
    """Whether a pull reads its pages model-free (``plain_pages``) rather than as models."""

    def pages(self, client: Any, *, models: bool = False) -> Any:
        """The walk of this list with ``client`` (sync or async), at the largest page:
        model-free pages where the list is ``plain``, unless ``models`` asks for models."""
        group = getattr(client, self.part)
        read = group.plain_pages if self.plain and not models else group.pages
        return read(limit=MAX_LIMIT)


PROGRAM_LISTS: tuple[ProgramList, ...] = (
    ProgramList("rewards", frozenset({"rewards", "reward_costs"}), plain=True),
    ProgramList("benefits", frozenset({"benefits"})),
    ProgramList("card_definitions", frozenset({"card_definitions"})),
    ProgramList("tier_structures", frozenset({"tier_structures"})),
)


def program_lists(kinds: Iterable[str]) -> list[ProgramList]:
    """The lists a pull of the frames ``kinds`` walks, in declaration order."""
    wanted = set(kinds)
    return [listed for listed in PROGRAM_LISTS if listed.feeds & wanted]
