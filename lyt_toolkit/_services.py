"""Which service a record belongs to, so that it is never taken for another's (a checkpoint).

A service on the network is its public address (``public_url``, the port kept: two sandboxes
served on one machine are two services). A sandbox started in this process is what it was
started from and where it serves instead, as ``Sandbox.start`` names it here (however its
loopback address is spelled: ``localhost``, ``127.0.0.1``, ``[::1]``); the embedded sandbox
of ``lyt export --sandbox``, which takes a new port each run yet always holds the bundled
demo program afresh, is named without its port, so its checkpoint resumes. A leaf every
layer may import.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from ._url import public_url

__all__ = ["forget_local", "name_local", "service_identity"]

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


def service_identity(base_url: str) -> str:
    """The service at ``base_url``: the name of a sandbox serving in this process, else its
    public address."""
    name = _LOCAL.get(_key(base_url))
    return public_url(base_url) if name is None else name()
