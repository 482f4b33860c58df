"""Which service a record belongs to, so that it is never taken for another's (a checkpoint).

A service on the network is its public address (``public_url``, the port kept: two sandboxes
served on one machine are two services). A sandbox started in this process is what it was
started from and where it serves instead, as ``Sandbox.start`` names it here (however its
loopback address is spelled: ``localhost``, ``127.0.0.1``, ``[::1]``); the embedded sandbox
of ``lyt export --sandbox``, which takes a new port each run yet always holds the bundled
demo program afresh, is named without its port, so its checkpoint resumes.

A sandbox served elsewhere (``lyt sandbox serve``) says what it holds on every answer, in
``HOLDS_HEADER``: a pull tells by it another program served later at the same address
(``fill.pull``). A leaf every layer may import.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, unquote, urlsplit

from ._url import public_url

__all__ = [
    "HOLDS_HEADER",
    "forget_local",
    "heard_holds",
    "holds_value",
    "name_local",
    "named_here",
    "service_identity",
]

HOLDS_HEADER = "Lyt-Sandbox-Holds"
"""The answer header in which a sandbox names what it holds (``sandbox.config.held_program``):
its program's digest, seed, clock and database, never a credential."""

_PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}

_LOCAL: dict[str, Callable[[], str]] = {}
"""A sandbox serving in this process (``_key`` of its address) -> what names it."""


def _key(base_url: str) -> str:
    """``base_url``'s public address, a loopback host spelled one way."""
    address = public_url(base_url)
    parts = urlsplit(address)
    if parts.hostname in _LOOPBACK:
        return f"{parts.scheme}://loopback:{parts.port}{parts.path}"
    return address


def name_local(base_url: str, name: Callable[[], str]) -> None:
    """Name the service this process serves at ``base_url`` by ``name()`` (worked out when
    first asked: a digest of a large program is not taken for nothing)."""
    _LOCAL[_key(base_url)] = name


def forget_local(base_url: str) -> None:
    """The service at ``base_url`` is no longer served here."""
    _LOCAL.pop(_key(base_url), None)


def named_here(base_url: str) -> bool:
    """Whether a sandbox serving in this process at ``base_url`` names the service."""
    return _key(base_url) in _LOCAL


def holds_value(holds: str) -> str:
    """``holds`` as a header value: printable ASCII, anything else (a path's accents, a
    control character) and ``%`` percent-encoded; a surrogate (a file name's byte that is
    not UTF-8) as the bytes Python keeps it in, read back as U+FFFD (``heard_holds``)."""
    return quote(holds, safe=_PRINTABLE, errors="surrogatepass")


def heard_holds(value: str) -> str:
    """What ``holds_value`` made ``value`` from."""
    return unquote(value)


def service_identity(base_url: str) -> str:
    """The service at ``base_url``: the name of a sandbox serving in this process, else its
    public address."""
    name = _LOCAL.get(_key(base_url))
    return public_url(base_url) if name is None else name()
