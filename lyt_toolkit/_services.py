"""Which service a record belongs to, so that it is never taken for another's (a checkpoint).

A service on the network is its public address (``public_url``, the port kept: two sandboxes
served on one machine are two services). A sandbox started in this process is what it was
started from instead, as ``Sandbox.start`` names it here: the same program started again on
another port (the embedded sandbox of ``lyt export --sandbox`` takes a new port each run) is
the same service, and another program is never. A leaf every layer may import.
"""

from __future__ import annotations

from collections.abc import Callable

from ._url import public_url

__all__ = ["forget_local", "name_local", "service_identity"]

_LOCAL: dict[str, Callable[[], str]] = {}
"""Public address of a sandbox serving in this process -> what names what it holds."""


def name_local(base_url: str, name: Callable[[], str]) -> None:
    """Name the service this process serves at ``base_url`` by ``name()`` (worked out when
    first asked: a digest of a large program is not taken for nothing)."""
    _LOCAL[public_url(base_url)] = name


def forget_local(base_url: str) -> None:
    """The service at ``base_url`` is no longer served here."""
    _LOCAL.pop(public_url(base_url), None)


def service_identity(base_url: str) -> str:
    """The service at ``base_url``: the name of a sandbox serving in this process, else its
    public address."""
    address = public_url(base_url)
    name = _LOCAL.get(address)
    return address if name is None else name()
