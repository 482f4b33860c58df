"""A URL safe to show: ``public_url`` drops the user info, query and fragment.

How the toolkit names a service wherever it writes or shows one (a snapshot's source and
manifest, an action log, a checkpoint's identity), so no credential a URL carries goes
along. A leaf every layer may import (it imports nothing of the package): the client's side
and the snapshot record, which loads no HTTP client, clean a URL with the same function.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["public_url"]


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: safe to write into a manifest."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2].lower()  # as written: IPv6 brackets, port kept
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))
