"""The service's base URL, normalised once into an ``httpx.URL``, and the one place a
request's path is joined to it.

As httpx does with its own ``base_url`` (``_enforce_trailing_slash``, ``_merge_url``), the
base keeps one trailing slash and a path is appended to it, never resolved against it:
``https://host/prefix`` and ``/v2/members`` give ``https://host/prefix/v2/members``.
"""

from __future__ import annotations

import httpx

from ..errors import ConfigurationError

__all__ = ["join", "normalise", "shown"]


def normalise(template: str, cluster: str) -> httpx.URL:
    """``template`` with ``{cluster}`` filled in, its path ending in one ``/``; a
    ``ConfigurationError`` naming ``template`` unless it is an http(s) URL with a host."""
    url = httpx.URL(template.replace("{cluster}", cluster))
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(
            "base_url must be an http(s) URL such as https://{cluster}.example.com, "
            f"got {template!r}"
        )
    return url.copy_with(raw_path=url.raw_path.rstrip(b"/") + b"/")


def join(base: httpx.URL, path: str) -> httpx.URL:
    """``path`` (``/v2/members``, with any query) appended to the path of ``base``."""
    return base.copy_with(raw_path=base.raw_path + httpx.URL(path).raw_path.lstrip(b"/"))


def shown(base: httpx.URL) -> str:
    """``base`` as messages and ``client.base_url`` show it: without its trailing slash."""
    return str(base).rstrip("/")
