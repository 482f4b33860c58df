"""Text with no UTF-8 form: a lone surrogate, which JSON escapes (``"\\ud800"``) and Python
holds, but no request, log line or database can carry.

One walk finds the first such string of a JSON-like document, for the client (before a call
is sent) and the sandbox (before a body is read). A leaf every layer may import.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["encodable", "lone_surrogate", "lone_surrogates", "shown"]


def encodable(text: str) -> bool:
    """True when ``text`` has a UTF-8 form: it holds no lone surrogate."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def shown(text: str) -> str:
    """``text`` as a message can carry it: a lone surrogate as its escape (``\\ud800``)."""
    return text.encode(errors="backslashreplace").decode()


def lone_surrogate(document: Any) -> str | None:
    """Where ``document`` first holds a string, a value or a key, with no UTF-8 form: the
    field's dotted path (list positions in brackets, a key as ``shown``), ``body`` for the
    document itself; None when every string is text."""
    return next(lone_surrogates(document), None)


def lone_surrogates(document: Any) -> Iterator[str]:
    """The path (as ``lone_surrogate`` gives it) of each string of ``document``, a value or a
    key, with no UTF-8 form, in document order."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if not encodable(value):
                yield where or "body"
        elif isinstance(value, Mapping):
            children = []
            for key, item in value.items():
                path = f"{where}.{shown(str(key))}" if where else shown(str(key))
                if isinstance(key, str) and not encodable(key):
                    yield path
                children.append((path, item))
            stack.extend(reversed(children))
        elif isinstance(value, list | tuple):
            stack.extend(reversed([(f"{where}[{i}]", v) for i, v in enumerate(value)]))
