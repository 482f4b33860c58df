"""The TLS settings of the clients the toolkit makes, built once and shared.

httpx builds its default verification anew for every client (reading the CA bundle:
30 to 80 ms on a two-core machine, for every client a notebook or a pull makes). The
toolkit's clients share one context instead, made by httpx's own ``create_ssl_context``,
so they verify exactly as a plain ``httpx.Client()`` does: ``SSL_CERT_FILE``, else
``SSL_CERT_DIR``, else certifi's bundle. A change to those variables makes a new one.
A context may be shared between clients and threads.
"""

from __future__ import annotations

import functools
import os
import ssl

import httpx

__all__ = ["default_tls"]


def default_tls() -> ssl.SSLContext:
    """httpx's default verification for the environment as it is now, made once."""
    return _context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    """The context httpx makes while ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` are these."""
    return httpx.create_ssl_context()
