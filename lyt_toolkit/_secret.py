"""The forms a secret takes in a text, and whether it can travel in an HTTP header.

A leaf every layer may import (it imports nothing of the package): the client's scrubber
and the command line's ``scrub`` mask the same forms.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "MIN_SECRET_LENGTH", "header_safe", "mask", "secret_forms"]

MASK = "***"
MIN_SECRET_LENGTH = 4
"""Shorter values are not masked: replacing every ``t`` would garble the message."""


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


def mask(text: str, forms: list[str]) -> str:
    """``text`` with each of ``forms`` (longest first) replaced by ``***``."""
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    return text
