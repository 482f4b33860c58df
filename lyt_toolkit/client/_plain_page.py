"""List pages parsed but not validated, for the model-free frame path.

``plain_page_decoder(Model)`` decodes one list page into a ``PlainPage``: its
items as parsed JSON, read into frame columns without models, and ``models()``
to validate it when an item is not in the plain form. The next request of a
walk needs only the page's cursor, so when the answer ends in the envelope's
usual layout (``"cursor": {"next": ..., "expires_at": ...}, "object": "list"}``,
the items first) the cursor and whether there are items are read from the
bytes, and the body is parsed later, by whoever reads ``data``: in a pull, the
caller, while the next page is already on its way. Parsing checks the envelope
and that cursor again; an answer in any other layout is parsed at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx
from pydantic_core import from_json

from ..errors import APIResponseValidationError, LytError
from ..pull.pages import PlainPage
from ._core import ODD_VALUE_ERRORS, decoder, odd_answer

__all__ = ["PlainPage", "plain_page_decoder"]

_TAIL = re.compile(
    rb'"cursor"\s*:\s*(?:null|\{\s*"next"\s*:\s*(?:null|"(?P<next>[A-Za-z0-9_.~-]+)")'
    rb'\s*(?:,\s*"expires_at"\s*:\s*(?:null|"[0-9TZ:.+-]*"))?\s*\})'
    rb'\s*(?:,\s*"object"\s*:\s*"list"\s*)?\}\s*\Z'
)
"""The end of a list page whose last members are its cursor (and ``"object"``)."""

_HEAD = re.compile(rb'\A\s*\{\s*"data"\s*:\s*\[\s*(?P<empty>\])?')
"""The start of a list page whose first member is its items."""

_TAIL_BYTES = 400
"""How far from the end the cursor is looked for."""


def _plain_envelope(body: Any) -> tuple[list[Any], str | None] | None:
    """The items and next cursor of a list page in its plain form, else None."""
    from ..pull.json_values import NotPlain, instant

    if type(body) is not dict or not body.keys() <= {"data", "cursor", "object"}:
        return None
    data, cursor = body.get("data"), body.get("cursor")
    if type(data) is not list or type(body.get("object", "")) is not str:
        return None
    if cursor is None:
        return data, None
    if type(cursor) is not dict or not cursor.keys() <= {"next", "expires_at"}:
        return None
    following = cursor.get("next")
    try:
        instant(cursor.get("expires_at"))
    except NotPlain:
        return None
    return (data, following) if following is None or type(following) is str else None


def plain_page_decoder(model: Any) -> Callable[[httpx.Response], PlainPage]:
    """A ``Call.decode`` for a list page of ``model`` items that parses without validating.

    A page whose envelope is not plain is validated, as ``decoder`` would: at once, or,
    for a page whose cursor was read from its bytes, when its ``data`` is first read.
    """
    from ..models import Page

    validating = decoder(Page[model])

    def validated(response: httpx.Response) -> Any:
        try:
            return validating(response)
        except LytError:
            raise
        except ODD_VALUE_ERRORS as exc:
            raise odd_answer(response, exc) from None

    def items(response: httpx.Response, cursor: str | None = None, *, lazy: bool) -> Any:
        """The parsed items of a page (models when its envelope is not plain), and its
        next cursor; for a ``lazy`` page, one that must agree with ``cursor``."""
        try:
            envelope = _plain_envelope(from_json(response.content))
        except ODD_VALUE_ERRORS:
            envelope = None
        if envelope is None:
            page = validating(response)
            found, following = page.data, page.next_cursor
        else:
            found, following = envelope
        if lazy and following != cursor:
            method, where = response.request.method, response.request.url.path
            raise APIResponseValidationError(
                f"{method} {where}: the page's cursor.next is not the one at its end",
                status=response.status_code,
                method=method,
                path=where,
            )
        return found, following

    def decode(response: httpx.Response) -> PlainPage:
        content = response.content
        models = partial(validated, response)
        head = _HEAD.match(content)
        tail = _TAIL.search(content, max(0, len(content) - _TAIL_BYTES)) if head else None
        if head is not None and tail is not None:  # the cursor is at the end: parse later
            cursor = tail["next"].decode() if tail["next"] else None

            def parse() -> list[Any]:
                found: list[Any] = items(response, cursor, lazy=True)[0]
                return found

            empty = head["empty"] is not None
            return PlainPage(cursor, models, parse=parse, empty=empty, content=content)
        data, following = items(response, lazy=False)
        return PlainPage(following, models, data=data)

    return decode
