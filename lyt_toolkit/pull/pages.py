"""A list page parsed but not validated, the form the frame pulls read pages in."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

__all__ = ["PlainPage"]


class PlainPage:
    """One list page parsed from JSON but not validated: its items as plain dicts.

    ``next_cursor`` and ``empty`` are known before ``data`` is parsed, so the next page
    can be requested first; ``models()`` validates the page into models (raising the
    errors a validating decoder raises) for a page whose items are not all in the
    plain form the model-free frame path reads. ``content``: the page's bytes, for a
    decoder that reads them itself (None: the page was parsed at once).
    """

    def __init__(
        self,
        next_cursor: str | None,
        models: Callable[[], Any],
        *,
        data: list[Any] | None = None,
        parse: Callable[[], list[Any]] | None = None,
        empty: bool | None = None,
        content: bytes | None = None,
    ) -> None:
        self.next_cursor = next_cursor
        self.content = content
        self.models = models
        self._parse = parse
        if data is not None:
            self.data = data
        self.empty = (not data) if empty is None else empty

    @cached_property
    def data(self) -> list[Any]:
        """The items, parsed on first use (an odd answer raises the validating decoder's
        error here)."""
        assert self._parse is not None
        return self._parse()
