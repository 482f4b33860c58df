"""The forms a secret takes in a text, whether it can travel in an HTTP header, and bearer
tokens masked in a text quoting a file.

A leaf every layer may import (it imports nothing of the package): the client's scrubber
and the command line's ``scrub`` mask the same forms.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "MIN_SECRET_LENGTH", "header_safe", "mask", "mask_bearer", "secret_forms"]

MASK = "***"
MIN_SECRET_LENGTH = 4
"""Shorter values are not masked: replacing every ``t`` would garble the message."""
_BEARER = re.compile(r"\b(bearer)(?:\s|\\[tnr]|%20)+([^\s'\"\\,;()<>\[\]{}]+)", re.IGNORECASE)
"""The scheme, the space after it (as is, escaped in a ``repr`` or percent-encoded) and the
token: everything up to a space, a quote or a backslash (a ``repr``'s end or escape), or a
separator no token holds (a comma, a semicolon, a bracket)."""
_PROSE = frozenset({"token", "tokens"})
"""Words that follow *bearer* in a sentence, not a token."""


def header_safe(secret: str) -> bool:
    """True when ``secret`` is printable ASCII without surrounding spaces: a header value."""
    return secret.isascii() and secret.isprintable() and secret == secret.strip()


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """Every form of each secret, longest first: as is, percent-encoded (in a path or
    a form), escaped as a ``repr`` of it or of its bytes shows it (a newline as ``\\n``,
    as h11's errors quote it), in a JSON string and in HTML (a server may echo a header
    or a form field in any of these)."""
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LENGTH:
            escaped = (repr(secret)[1:-1], repr(secret.encode())[2:-1])
            encoded = (quote(secret, safe=""), quote(secret), quote_plus(secret))
            as_json = (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1])
            as_html = (html.escape(secret), html.escape(secret, quote=False))
            forms.update({secret, *escaped, *encoded, *as_json, *as_html})
    return sorted(forms, key=len, reverse=True)


def mask_bearer(text: str) -> str:
    """``text`` with the token of every ``Bearer <token>`` in it replaced by ``***`` whole
    (``Bearer ***``), whoever's it is: a value quoted from a file may hold any token, not
    only a configured one. *bearer token* in a sentence is kept."""

    def masked(found: re.Match[str]) -> str:
        word = found[2].rstrip(".:!?").lower()
        return found[0] if word in _PROSE else f"{found[1]} {MASK}"

    return _BEARER.sub(masked, text)


def mask(text: str, forms: list[str]) -> str:
    """``text`` with each of ``forms`` (longest first) replaced by ``***``."""
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    return text
