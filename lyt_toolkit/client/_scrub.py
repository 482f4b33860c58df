"""Removing the client's credentials from exceptions, whatever the service sent back.

A server may echo request headers into its error message, details or body;
before an exception leaves the client every string it carries (arguments,
attributes, nested bodies, chained exceptions) has each credential the client
holds replaced by ``***``. ``client.scrub(text)`` offers the same to the layers
above (the actions mask their result messages with it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .._secret import MASK, mask, secret_forms

__all__ = ["MASK", "Scrubber"]


class Scrubber:
    """Masks every secret ``secrets()`` returns (read at each use: tokens change)."""

    def __init__(self, secrets: Callable[[], Iterable[str]]) -> None:
        self._secrets = secrets

    def _forms(self) -> list[str]:
        return secret_forms(self._secrets())

    def text(self, value: str) -> str:
        """``value`` with every secret masked."""
        return mask(value, self._forms())

    def exception(self, exc: BaseException) -> BaseException:
        """Mask ``exc`` in place (arguments, attributes, chained exceptions); returns it."""
        forms = self._forms()
        if forms:
            _scrub_exception(exc, forms, set())
        return exc


def _scrub_value(value: Any, forms: list[str]) -> Any:
    """A copy of a JSON-like value with every string masked (iterative; bodies may be deep)."""
    if isinstance(value, str):
        return mask(value, forms)
    if not isinstance(value, dict | list | tuple):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, str):
            parent[key] = mask(item, forms)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            for k, v in item.items():
                masked_key = mask(k, forms) if isinstance(k, str) else k
                copy[masked_key] = v
                stack.append((copy, masked_key, v))
            parent[key] = copy
        elif isinstance(item, list | tuple):
            items = list(item)
            stack.extend((items, i, v) for i, v in enumerate(items))
            parent[key] = items
    return root[0]


def _scrub_exception(exc: BaseException, forms: list[str], seen: set[int]) -> None:
    if id(exc) in seen:
        return
    seen.add(id(exc))
    exc.args = tuple(_scrub_value(a, forms) for a in exc.args)
    for name, value in list(vars(exc).items()):
        if isinstance(value, str | dict | list | tuple):
            setattr(exc, name, _scrub_value(value, forms))
    for chained in (exc.__cause__, exc.__context__):
        if chained is not None:
            _scrub_exception(chained, forms, seen)
