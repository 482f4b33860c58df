"""What every resource group shares: access to the transport and the list plumbing.

A resource module describes each operation once as a ``Call`` (path, query,
body, response model) and exposes it twice, through a sync and an async class
whose methods only send that call. The async classes are written by hand; the sync
ones are generated from them (``scripts/unasync.py``, checked by ``make lint``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from ..._unicode import lone_surrogate
from ...errors import RequestValidationError
from ...models.ids import matches
from ...models.listing import ListSpec
from ...models.numbers import first_problem
from .._core import Call, decoder
from .._plain_page import plain_page_decoder
from .._query import ListParams, ListQuery
from ..allowance import DEFAULT_SHARE
from ..pagination import aiter_items, aiter_pages, iter_items, iter_pages
from ._frame_share import frame_share

if TYPE_CHECKING:
    import pandas as pd

    from ..._progress import Progress
    from ...models import Page
    from .._transport import AsyncTransport, SyncTransport

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def check_id(prefix: str, value: str, name: str) -> str:
    """Reject a malformed loyalty ID before it becomes part of a URL."""
    if not isinstance(value, str) or not matches(prefix, value):
        raise RequestValidationError(
            f"{name} must look like {prefix}<hex digits>, got {value!r}", field=name
        )
    return value


def check_text(value: str, name: str) -> str:
    """Reject an empty or non-string identifier that has no fixed pattern."""
    if not isinstance(value, str) or not value.strip():
        raise RequestValidationError(f"{name} must be a non-empty string", field=name)
    return value


def validate_body(model: type[M], body: M | Mapping[str, Any], what: str) -> M:
    """Check a request body locally; the error names the first offending field.

    Numbers must fit the interface: integers within 64 bits, floats finite.
    """
    raw = body.model_dump() if isinstance(body, BaseModel) else body
    where = lone_surrogate(raw)  # before pydantic turns one in a key into U+FFFD
    if where is not None:
        raise RequestValidationError(
            f"{what}: {where}: holds a lone surrogate, which has no UTF-8 form to send",
            field=where,
        )
    problem = first_problem(dict(raw) if isinstance(raw, Mapping) else raw)
    if problem is not None:
        raise RequestValidationError(
            f"{what}: {problem.where}: {problem.reason}", field=problem.where
        )
    return _validate_model(model, body, what)


def _validate_model(model: type[M], body: M | Mapping[str, Any], what: str) -> M:
    if isinstance(body, model):
        return body
    if isinstance(body, BaseModel):
        body = body.model_dump(exclude_unset=True)
    if not isinstance(body, Mapping):
        raise RequestValidationError(f"{what} must be a {model.__name__} or a dict", field=None)
    try:
        return model.model_validate(dict(body))
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        first = errors[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or None
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        message = str(first.get("msg", "")).removeprefix("Value error, ")  # pydantic's label
        raise RequestValidationError(
            f"{what}: {field or 'body'}: {message}{more}", field=field
        ) from None


def page_call(path: str, query: ListQuery, model: Any) -> Call[Any]:
    """A GET of one page of ``model`` items."""
    from ...models import Page

    return Call("GET", path, params=query.params(), decode=decoder(Page[model]))


def plain_page_call(path: str, query: ListQuery, model: Any) -> Call[Any]:
    """A GET of one page of ``model`` items, parsed but not validated (``PlainPage``)."""
    return Call("GET", path, params=query.params(), decode=plain_page_decoder(model))


async def agather(calls: Iterable[Awaitable[T]]) -> list[T]:
    """The answers of ``calls``, sent concurrently, in their order."""
    import asyncio

    return list(await asyncio.gather(*calls))


def gather(answers: Iterable[T]) -> list[T]:
    """The sync form of ``agather``: ``answers`` as a list, each call sent after the last."""
    return list(answers)


class _Resource:
    frame_kind: ClassVar[str | None] = None
    """The frame kind ``frame()`` builds from this group's list (``lyt_toolkit.frames``)."""

    _max_pages: int
    """The pages one list walk may fetch (``ClientConfig.max_pages``)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def _frame_source(
        self, kind: str | None, args: tuple[str, ...], query: dict[str, Any]
    ) -> tuple[str, Any]:
        """The frame kind and the page iterator of a ``frame()`` call."""
        from ...pull.assemble import frame_query
        from ...pull.reward_pages import ROW_SOURCES

        kind = kind or self.frame_kind
        pages = getattr(self, "pages", None)
        if kind in ROW_SOURCES:
            pages = getattr(self, "plain_pages", pages)
        if kind is None or pages is None:
            raise TypeError(f"{type(self).__name__} has no DataFrame form")
        return kind, pages(*args, **frame_query(query))

    @staticmethod
    def _frame_rows(args: tuple[str, ...], query: dict[str, Any]) -> str:
        """The rows of the pulled frame a ``frame(*args, **query)`` call keeps (its way
        forward names them)."""
        of = f" of {', '.join(args)}" if args else ""
        return f"its rows{of}" + (" matching the query" if set(query) - {"limit"} else "")


# unasync: generated from the async code below by scripts/unasync.py; do not edit
class SyncResource(_Resource):
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport
        self._max_pages = transport.core.config.max_pages

    def _send(self, call: Call[T]) -> T:
        return self._transport.request(call)

    def frame(
        self,
        *args: str,
        kind: str | None = None,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Any,
    ) -> pd.DataFrame:
        """Every item of the list query as a typed DataFrame (``lyt_toolkit.frames``).

        Takes the same arguments as ``iter``; pages at the largest size unless
        ``limit`` is given; ``progress=False`` hides the bar shown past one page.
        Keeps to ``budget_share`` of the calls left in the window (the rest is the
        project's other traffic's): refused, nothing sent, when not one page fits,
        and stopped where the share runs out, ``PullBudgetError`` naming the paced
        pull of the same frame. ``iter`` and ``pages`` keep to no share: the caller
        drives them page by page.
        """
        from ...pull.assemble import pull_frame

        kind, pages = self._frame_source(kind, args, query)
        with frame_share(
            self._transport.quota, budget_share, kind, self._frame_rows(args, query)
        ) as held:
            held.begin(f"{kind} list", 1)
            return pull_frame(pages, kind, progress)

    def _page(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> Any:
        return self._send(make(ListQuery.build(spec, **query)))

    def _items(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> Iterator[Any]:
        return iter_items(
            lambda q: self._send(make(q)), ListQuery.build(spec, **query), self._max_pages
        )

    def _pages(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> Iterator[Page[Any]]:
        return iter_pages(
            lambda q: self._send(make(q)), ListQuery.build(spec, **query), self._max_pages
        )


# unasync: end of the generated sync code; its async source follows
class AsyncResource(_Resource):
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport
        self._max_pages = transport.core.config.max_pages

    async def _send(self, call: Call[T]) -> T:
        return await self._transport.request(call)

    async def frame(
        self,
        *args: str,
        kind: str | None = None,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
        **query: Any,
    ) -> pd.DataFrame:
        """Async twin of ``SyncResource.frame``."""
        # sync: """Every item of the list query as a typed DataFrame (``lyt_toolkit.frames``).
        # sync:
        # sync: Takes the same arguments as ``iter``; pages at the largest size unless
        # sync: ``limit`` is given; ``progress=False`` hides the bar shown past one page.
        # sync: Keeps to ``budget_share`` of the calls left in the window (the rest is the
        # sync: project's other traffic's): refused, nothing sent, when not one page fits,
        # sync: and stopped where the share runs out, ``PullBudgetError`` naming the paced
        # sync: pull of the same frame. ``iter`` and ``pages`` keep to no share: the caller
        # sync: drives them page by page.
        # sync: """
        from ...pull.assemble import apull_frame

        kind, pages = self._frame_source(kind, args, query)
        with frame_share(
            self._transport.quota, budget_share, kind, self._frame_rows(args, query)
        ) as held:
            held.begin(f"{kind} list", 1)
            return await apull_frame(pages, kind, progress)

    async def _page(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> Any:
        return await self._send(make(ListQuery.build(spec, **query)))

    def _items(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> AsyncIterator[Any]:
        return aiter_items(
            lambda q: self._send(make(q)), ListQuery.build(spec, **query), self._max_pages
        )

    def _pages(
        self, spec: ListSpec, make: Callable[[ListQuery], Call[Any]], query: ListParams
    ) -> AsyncIterator[Page[Any]]:
        return aiter_pages(
            lambda q: self._send(make(q)), ListQuery.build(spec, **query), self._max_pages
        )
