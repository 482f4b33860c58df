"""Which service a record belongs to, so that it is never taken for another's (a checkpoint,
an action log).

A service on the network is its public address (``public_url``, the port kept: two sandboxes
served on one machine are two services). A sandbox says what it holds on every answer, in
``HOLDS_HEADER``: a pull tells by it another program served later at the same address
(``fill.pull``: by what its reads answer, ``held_reads``), and an action log a sandbox
started again there with other state (``actions.log``: by the instance of its state,
``held_instance``). A sandbox ``Sandbox.start`` serves in this process is known the same
way, its address and what it holds, the latter known here without asking (``hold_local``): a
checkpoint written by a pull in the process serving it resumes in another process (``lyt
export``) and back. Two spellings of a loopback address (``localhost``, ``127.0.0.1``,
``[::1]``) are one service (``same_address``). The embedded sandbox of ``lyt export
--sandbox``, which takes a new port each run yet always holds the bundled demo program
afresh, is named without its port instead (``name_local``), so its checkpoint resumes.

A leaf every layer may import.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from ._url import public_url

__all__ = [
    "HOLDS_HEADER",
    "INSTANCE_PART",
    "forget_local",
    "held_instance",
    "held_reads",
    "hold_local",
    "holders_differ",
    "local_holds",
    "name_local",
    "named_here",
    "same_address",
    "service_identity",
]

HOLDS_HEADER = "Lyt-Sandbox-Holds"
"""The answer header in which a sandbox names what it holds (``sandbox.config.held_program``):
its program's digest, seed, clock and a digest of its database's path, then the instance of
its state (``INSTANCE_PART``), in printable ASCII; never a credential, never a path."""

INSTANCE_PART = "instance"
"""The last part of a ``HOLDS_HEADER`` value: ``instance HEX``, the state the sandbox holds,
new with every program load (a fresh database, a reset) and kept with a database file."""

_PARTS = ("program", "seed", "clock", "database")
"""The parts of a ``HOLDS_HEADER`` value, in its order."""

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}

_HELD: dict[str, Callable[[], str]] = {}
"""A sandbox serving in this process (``_key`` of its address) -> what it holds."""

_NAMED: dict[str, Callable[[], str]] = {}
"""A sandbox serving in this process (``_key`` of its address) -> the name standing for its
address (``name_local``)."""


def _key(base_url: str) -> str:
    """``base_url``'s public address, a loopback host spelled one way."""
    address = public_url(base_url)
    parts = urlsplit(address)
    if parts.hostname in _LOOPBACK:
        return f"{parts.scheme}://loopback:{parts.port}{parts.path}"
    return address


def same_address(a: str, b: str) -> bool:
    """Whether the base URLs ``a`` and ``b`` are one public address (a loopback host however
    spelled); names that are no URL (``name_local``) only when equal."""
    return a == b or (_is_url(a) and _is_url(b) and _key(a) == _key(b))


def _is_url(text: str) -> bool:
    parts = urlsplit(text)
    return bool(parts.scheme and parts.hostname)


def hold_local(base_url: str, holds: Callable[[], str]) -> None:
    """This process serves at ``base_url`` a sandbox holding ``holds()``: its
    ``HOLDS_HEADER`` value, worked out when first asked (a digest of a large program is not
    taken for nothing)."""
    _HELD[_key(base_url)] = holds


def name_local(base_url: str, name: Callable[[], str]) -> None:
    """Name the service this process serves at ``base_url`` by ``name()`` instead of its
    address and what it holds (a sandbox served afresh on a new port each run)."""
    _NAMED[_key(base_url)] = name


def forget_local(base_url: str) -> None:
    """The service at ``base_url`` is no longer served here."""
    _HELD.pop(_key(base_url), None)
    _NAMED.pop(_key(base_url), None)


def named_here(base_url: str) -> bool:
    """Whether a sandbox serving in this process at ``base_url`` names the service (what it
    holds is known here, never asked)."""
    key = _key(base_url)
    return key in _HELD or key in _NAMED


def local_holds(base_url: str) -> str | None:
    """What the sandbox serving in this process at ``base_url`` holds (its ``HOLDS_HEADER``
    value); None when none serves there, or one named otherwise (``name_local``)."""
    key = _key(base_url)
    holds = None if key in _NAMED else _HELD.get(key)
    return None if holds is None else holds()


def holders_differ(there: str, now: str) -> str:
    """How the sandbox that says ``now`` differs from the one that said ``there`` (two
    ``HOLDS_HEADER`` values), by part: ``its program and seed differ``, ``its database
    differs (...)``, the latter saying what its hex digits are (a digest of the path)."""
    before, after = _holds_parts(there), _holds_parts(now)
    differ = [part for part in _PARTS if before.get(part) != after.get(part)]
    if not differ:
        return "it names what it holds otherwise"
    words = " and ".join([", ".join(differ[:-1]), differ[-1]] if len(differ) > 1 else differ)
    said = f"its {words} {'differs' if len(differ) == 1 else 'differ'}"
    if "database" in differ:
        said += " (a sandbox names its database by a digest of the file's path)"
    return said


def held_reads(holds: str) -> str:
    """``holds`` (a ``HOLDS_HEADER`` value) without the instance of the state: what a read
    answers is the same in two sandboxes of one program, seed, clock and database, whatever
    each was written since (a checkpoint resumes a pull, the service changing under it or
    not)."""
    return ", ".join(p for p in holds.split(", ") if not p.startswith(f"{INSTANCE_PART} "))


def held_instance(holds: str) -> str | None:
    """The instance of the state ``holds`` names (a ``HOLDS_HEADER`` value); None when it
    names none (a sandbox of an older lyt)."""
    return _holds_parts(holds).get(INSTANCE_PART)


def _holds_parts(holds: str) -> dict[str, str]:
    """A ``HOLDS_HEADER`` value by part (``_PARTS``, ``INSTANCE_PART``): ``sandbox of
    PROGRAM``, then each ``NAME VALUE``."""
    program, *rest = holds.split(", ")
    parts = {"program": program.removeprefix("sandbox of ")}
    for part in rest:
        name, _, value = part.partition(" ")
        parts[name] = value
    return parts


def service_identity(base_url: str) -> str:
    """The service at ``base_url``: the name of a sandbox this process names (``name_local``),
    else its public address."""
    name = _NAMED.get(_key(base_url))
    return public_url(base_url) if name is None else name()
