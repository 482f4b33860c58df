"""The rule registry: every audit rule with its id, severity and one-line description.

Rules register themselves with :func:`rule`; the docs page "Audit rules", ``lyt audit``
and :func:`lyt_toolkit.audit.run` all read the same :data:`RULES`, so the
catalogue a user reads is the code that runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot


class Severity(StrEnum):
    """How urgent a finding is; declared in order of urgency."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITIES: tuple[str, ...] = tuple(s.value for s in Severity)
"""Severity values, most urgent first (also the order of the categorical)."""


@dataclass(frozen=True)
class Finding:
    """One problem with one resource, as a rule reports it."""

    resource_type: str
    resource_id: str
    resource_name: str | None
    message: str
    member_id: str | None = None
    """The member whose record it is (a card, a pending bucket): on a sampled snapshot the
    finding then stands for ``weight`` such findings in the program."""


Check = Callable[["ProgramSnapshot"], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    """An audit rule: a function from a program snapshot to findings."""

    id: str
    severity: Severity
    description: str
    check: Check
    per_member: bool = False
    """It reads member records (cards, pending buckets), which a sampled snapshot holds only
    for its sampled members: its findings are then counted in the sample and estimated for
    the program (``summary``)."""
    needs: frozenset[str] = frozenset()
    """The kinds it must hold to judge: without one of them (a snapshot pulled with
    ``kinds=``) it would report as missing what was only not pulled, so a comparison of
    snapshots that do not both hold them leaves the rule out (``findings_between``)."""


RULES: dict[str, Rule] = {}
"""Every registered rule by id, in registration (catalogue) order."""


def rule(
    rule_id: str,
    severity: Severity,
    description: str,
    *,
    per_member: bool = False,
    needs: Iterable[str] = (),
) -> Callable[[Check], Check]:
    """Register the decorated function as the audit rule ``rule_id``; ``per_member`` when it
    reads cards or pending buckets (its findings then name their ``member_id``); ``needs``
    the kinds it cannot judge without (``Rule.needs``)."""

    def register(check: Check) -> Check:
        if rule_id in RULES:
            raise ValueError(f"audit rule {rule_id!r} is registered twice")
        RULES[rule_id] = Rule(
            rule_id, Severity(severity), description, check, per_member, frozenset(needs)
        )
        return check

    return register


def catalogue_markdown() -> str:
    """The rule catalogue as a Markdown table (the docs page "Audit rules" is generated from it)."""
    lines = ["| rule | severity | what it checks |", "|---|---|---|"]
    lines += [f"| `{r.id}` | {r.severity.value} | {r.description} |" for r in RULES.values()]
    return "\n".join(lines)
