"""Deprecated spellings of the public API: declared once, warned about when used.

Every deprecation is an entry of :data:`DEPRECATIONS` (the old spelling as a dotted
public path, the version that deprecated it, the version that removes it and what to
use instead). The entry stays after the old spelling is removed: the public-API test
(``tests/api``) accepts a name that disappears from the listing only if an entry
covers it. Using an old spelling emits a ``FutureWarning`` (shown to analysts by
default, as pandas does) naming the replacement and the version that removes it.

Old spellings are kept working with :class:`deprecated_attribute` (an attribute or
property of a class) or :func:`module_getattr` (a module-level name); a changed call
form is checked in the function itself and warned about with :func:`warn`. An old
spelling that needs a package its own package may not import (the sandbox reading a
snapshot folder) is carried out by that package, which hands its function over with
:func:`provide` when imported; :func:`provided` finds it, or ``None`` before.

This module imports nothing of the package: every layer may use it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

__all__ = [
    "DEPRECATIONS",
    "Deprecation",
    "deprecated_attribute",
    "deprecation",
    "module_getattr",
    "provide",
    "provided",
    "warn",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Deprecation:
    """One deprecated spelling: ``name`` works until ``removed_in``; use ``instead``."""

    name: str
    """The old spelling as a public path: ``lyt_toolkit.actions.BenefitImport.plan``, or a
    call form such as ``lyt_toolkit.reports.write_reports(snapshot, findings, out)``."""
    since: str
    """The version that deprecated it (the one after the last version without a warning)."""
    removed_in: str
    """The version that removes it."""
    instead: str
    """What to write instead, as text for the warning."""

    @property
    def message(self) -> str:
        """The warning's text."""
        return (
            f"{self.name} is deprecated since lyt_toolkit {self.since} and will be removed "
            f"in {self.removed_in}; use {self.instead} instead."
        )


DEPRECATIONS: tuple[Deprecation, ...] = (
    Deprecation(
        name="lyt_toolkit.actions.BenefitImport.plan",
        since="0.4.0",
        removed_in="0.5.0",
        instead="actions.create_benefits(imported) (the rows as checked, invalid ones too, "
        "are in imported.checked)",
    ),
    Deprecation(
        name="lyt_toolkit.widgets.DangerZone.tier_structures_select",
        since="0.4.0",
        removed_in="0.5.0",
        instead="DangerZone.tier_structures.grid (select its rows; the selected IDs are "
        "DangerZone.tier_structures.ids())",
    ),
    Deprecation(
        name="lyt_toolkit.widgets.DangerZone.webhooks_select",
        since="0.4.0",
        removed_in="0.5.0",
        instead="DangerZone.webhooks.grid (select its rows; the selected IDs are "
        "DangerZone.webhooks.ids())",
    ),
    Deprecation(
        name="lyt_toolkit.actions.ActionPlan.preview(log)",
        since="0.4.0",
        removed_in="0.5.0",
        instead="plan.preview(log=log) (the first parameter is the client since 0.2.0)",
    ),
    Deprecation(
        name="lyt_toolkit.audit.cli.write_reports",
        since="0.4.0",
        removed_in="0.5.0",
        instead="lyt_toolkit.reports.write_reports(snapshot, findings, audit.summary(findings), "
        "out)",
    ),
    Deprecation(
        name="lyt_toolkit.widgets.RewardDraftPanel.rewards_select",
        since="0.4.0",
        removed_in="0.5.0",
        instead="RewardDraftPanel.rewards_grid (select its rows; the selected IDs are "
        "RewardDraftPanel.selected_ids())",
    ),
    Deprecation(
        name="lyt_toolkit.widgets.PendingPointsPanel.buckets_select",
        since="0.4.0",
        removed_in="0.5.0",
        instead="PendingPointsPanel.buckets_grid (select its rows; the selected IDs are "
        "PendingPointsPanel.selected_ids())",
    ),
    Deprecation(
        name="lyt_toolkit.reports.write_reports(snapshot, findings, out)",
        since="0.4.0",
        removed_in="0.5.0",
        instead="write_reports(snapshot, findings, audit.summary(findings), out)",
    ),
    Deprecation(
        name="lyt_toolkit.snapshot.SnapshotDiff.findings",
        since="0.4.0",
        removed_in="0.5.0",
        instead="lyt_toolkit.audit.findings_between(diff.before, diff.after) (the audit "
        "package compares the audits of two snapshots; the snapshot package sits below it)",
    ),
    Deprecation(
        name="lyt_toolkit.sandbox.Sandbox.start(snapshot=FOLDER)",
        since="0.4.0",
        removed_in="0.5.0",
        instead="Sandbox.start(snapshot=lyt_toolkit.snapshot.read_snapshot(FOLDER)) (the "
        "sandbox holds programs; the snapshot package reads snapshot folders)",
    ),
    Deprecation(
        name="lyt_toolkit.snapshot.ProgramSnapshot.estimate(read_members=True)",
        since="0.5.0",
        removed_in="0.6.0",
        instead="ProgramSnapshot.estimate(client) (lists only, a bound on the bucket lists) "
        "or a sampled pull, ProgramSnapshot.pull(client, sample=N): reading every member "
        "to count costs as many calls as the pull itself",
    ),
    Deprecation(
        name="lyt_toolkit.snapshot.pull",
        since="0.5.0",
        removed_in="0.6.0",
        instead="lyt_toolkit.fill.pull (the ways to fill a snapshot over HTTP live in "
        "lyt_toolkit.fill; DEFAULT_CONCURRENCY and SampleSource in lyt_toolkit.snapshot.defaults, "
        "utc_now and service_instant in lyt_toolkit.snapshot.clock)",
    ),
    Deprecation(
        name="lyt_toolkit.snapshot.pull_budget",
        since="0.5.0",
        removed_in="0.6.0",
        instead="lyt_toolkit.fill.budget (DEFAULT_SHARE is in lyt_toolkit.snapshot.defaults)",
    ),
    Deprecation(
        name="lyt_toolkit.models.subtypes",
        since="0.5.0",
        removed_in="0.6.0",
        instead="lyt_toolkit.models.enums (every enumeration of the interface), and "
        "SHIPPING_PRODUCT_ID from lyt_toolkit.models.discounts",
    ),
    Deprecation(
        name="lyt_toolkit.snapshot.estimate",
        since="0.5.0",
        removed_in="0.6.0",
        instead="lyt_toolkit.fill.estimate, or ProgramSnapshot.estimate(client)",
    ),
    Deprecation(
        name="lyt_toolkit.reports.snapshot_csv.public_url",
        since="0.5.0",
        removed_in="0.6.0",
        instead="lyt_toolkit.snapshot.public_url",
    ),
)
"""Every deprecation, current and past (an entry outlives the spelling it covers)."""


def deprecation(name: str) -> Deprecation:
    """The entry of :data:`DEPRECATIONS` named ``name`` (a ``KeyError`` if none is)."""
    for entry in DEPRECATIONS:
        if entry.name == name:
            return entry
    raise KeyError(f"no deprecation named {name!r} in lyt_toolkit._deprecation.DEPRECATIONS")


_PROVIDED: dict[str, Callable[..., Any]] = {}
"""What packages above provided for deprecated spellings, by the entry's name."""


def provide(name: str, implementation: Callable[..., Any]) -> None:
    """Let the deprecated spelling ``name`` (an entry of :data:`DEPRECATIONS`, a
    ``KeyError`` if none is) work through ``implementation``, from a package its own
    package may not import; both go when the spelling does."""
    deprecation(name)
    _PROVIDED[name] = implementation


def provided(name: str) -> Callable[..., Any] | None:
    """What :func:`provide` handed over for ``name``; ``None`` while nothing has."""
    return _PROVIDED.get(name)


def warn(entry: Deprecation, *, stacklevel: int = 2) -> None:
    """Emit ``entry``'s ``FutureWarning``; ``stacklevel`` 2 points at the caller of the
    function that calls this (raise it by one per frame in between)."""
    warnings.warn(entry.message, FutureWarning, stacklevel=stacklevel + 1)


class deprecated_attribute(Generic[T]):
    """A deprecated attribute of a class, kept working through ``getter`` (and ``setter``).

    >>> class BenefitImport:
    ...     plan = deprecated_attribute(deprecation("...BenefitImport.plan"), _plan)

    Reading it on an instance warns and returns ``getter(instance)``; setting it warns and
    calls ``setter(instance, value)`` (an ``AttributeError`` without one). On the class it
    is the descriptor itself, so ``help()`` and the public-API listing still see it.
    """

    def __init__(
        self,
        entry: Deprecation,
        getter: Callable[[Any], T],
        setter: Callable[[Any, Any], None] | None = None,
    ) -> None:
        self.entry = entry
        self._get = getter
        self._set = setter
        self.__doc__ = f"Deprecated: {entry.message}"

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> deprecated_attribute[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        warn(self.entry)
        return self._get(instance)

    def __set__(self, instance: object, value: Any) -> None:
        if self._set is None:
            raise AttributeError(f"{self.entry.name} cannot be set: {self.entry.message}")
        warn(self.entry)
        self._set(instance, value)


def module_getattr(
    module: str, aliases: Mapping[str, tuple[Deprecation, Callable[[], object]]]
) -> Callable[[str], object]:
    """A module ``__getattr__`` for deprecated module-level names.

    ``aliases`` maps an old name to its entry and a function returning what it now is;
    reading ``module.old`` warns and returns that. Other unknown names raise the usual
    ``AttributeError``. (Put the old names in no ``__all__``: ``import *`` would warn.)
    """

    def __getattr__(name: str) -> object:
        alias = aliases.get(name)
        if alias is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        entry, resolve = alias
        warn(entry)
        return resolve()

    return __getattr__
