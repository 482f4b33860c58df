"""The service's base URL, normalised once into an ``httpx.URL``, and the one place a
request's path is joined to it.

As httpx does with its own ``base_url`` (``_enforce_trailing_slash``, ``_merge_url``), the
base keeps one trailing slash and a path is appended to it, never resolved against it:
``https://host/prefix`` and ``/v2/members`` give ``https://host/prefix/v2/members``.

``Targets`` gives a request its whole URL with one parse at most: each path is joined
once (parsing a URL is most of what building a request costs), its query added after.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import httpx

from ..errors import ConfigurationError

__all__ = ["Targets", "join", "normalise", "shown"]

PATHS_KEPT = 256
"""Joined paths a ``Targets`` keeps (most recently used): a walk's pages share one path,
and the member tree's paths each serve a few requests."""

_USER_INFO = re.compile(r"^((?:[^:/?#]*:)?//)?[^/?#]*@")
"""A ``user:password@`` before the host (with or without a scheme before it)."""


def normalise(template: str, cluster: str) -> httpx.URL:
    """``template`` with ``{cluster}`` filled in, its path ending in one ``/``; a
    ``ConfigurationError`` naming ``base_url`` unless it is an http(s) URL with a host, a
    port from 1 to 65535 and neither query nor fragment (a path is appended to it) nor
    user info (httpx would send it as Basic auth; a password would show in messages)."""
    if _without_user_info(template) != template:
        raise _refused(template, ": it takes no user name or password (user:password@host)")
    try:
        url = httpx.URL(template.replace("{cluster}", cluster))
        host = url.host  # decodes an IDNA host ("xn--..."), which may fail
    except (httpx.InvalidURL, UnicodeError) as exc:  # idna's errors are UnicodeErrors
        raise _refused(template, f": {exc}") from None
    if url.scheme not in ("http", "https") or not host:
        raise _refused(template)
    if "?" in template or "#" in template:
        raise _refused(template, ": it takes no query or fragment (paths are appended to it)")
    if url.port is not None and not 0 < url.port <= 65535:
        raise _refused(template, f": port {url.port} is not from 1 to 65535")
    if url.userinfo:  # not shown: the template holds it where the pattern did not see it
        raise ConfigurationError(
            f"base_url takes no user name or password (user:password@host), got one for {host!r}"
        )
    return url.copy_with(raw_path=url.raw_path.rstrip(b"/") + b"/")


def _without_user_info(template: str) -> str:
    """``template`` without the ``user:password@`` before its host, as refusals show it."""
    return _USER_INFO.sub(lambda found: found.group(1) or "", template, count=1)


def _refused(template: str, reason: str = "") -> ConfigurationError:
    return ConfigurationError(
        f"base_url must be an http(s) URL such as https://{{cluster}}.example.com, "
        f"got {_without_user_info(template)!r}{reason}"
    )


def join(base: httpx.URL, path: str) -> httpx.URL:
    """``path`` (``/v2/members``, with any query) appended to the path of ``base``."""
    return base.copy_with(raw_path=base.raw_path + httpx.URL(path).raw_path.lstrip(b"/"))


class Targets:
    """The URLs of requests below one base URL, each path joined once (``PATHS_KEPT``)."""

    def __init__(self, base: httpx.URL) -> None:
        self._joined = functools.lru_cache(maxsize=PATHS_KEPT)(functools.partial(_joined, base))

    def url(self, path: str, params: Sequence[tuple[str, str]] = ()) -> httpx.URL:
        """``path`` joined to the base with the query ``params``, parsed once; without
        ``params`` the joined path as is, parsed no more. ``params`` replace a query in
        ``path``, as ``httpx.Request(url, params=...)`` does since httpx 0.28."""
        joined, text = self._joined(path)
        return httpx.URL(f"{text}?{httpx.QueryParams(list(params))}") if params else joined


def _joined(base: httpx.URL, path: str) -> tuple[httpx.URL, str]:
    """``path`` joined to ``base``, and its text without its query (a ``?`` there is the
    query's: the path holds one only percent-encoded)."""
    url = join(base, path)
    return url, str(url).partition("?")[0]


def shown(base: httpx.URL) -> str:
    """``base`` as messages and ``client.base_url`` show it: without its trailing slash."""
    return str(base).rstrip("/")
