"""The audit rules: each a small function from a program snapshot to findings.

Rules that check the same thing of different resources (a card definition that is
missing or not ACTIVE, a duplicate name, a card definition setting) come in families:
a factory writes the check once and registers it per kind with its own id, severity,
summary and docstring, in catalogue order.

A rule reads the snapshot's DataFrames (``rewards``, ``reward_costs``,
``benefits``, ``card_definitions``, ``tier_structures``, ``pending_buckets``,
``programs``, ``members``) and yields one :class:`Finding` per resource that
breaks it. Messages name the resource the problem points at and its status, so
an analyst can act without looking anything up. Deleted rewards and benefits
are skipped: they can no longer be bought or granted, so their problems are
noise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

from .._secret import quoted_short
from .._text import amount, counted, figure
from ..frames import FRAME_NAMES
from ..frames.definitions import referenced_definition
from ..frames.pending import buckets_blocked
from ..models.enums import (
    BenefitStatus,
    CardDefinitionStatus,
    LimitsType,
    PendingBucketStatus,
    RewardStatus,
    StockType,
    ValidityHoursType,
)
from ._view import (
    Row,
    daily_windows,
    name_key,
    now_of,
    rows,
    timestamp,
    today_of,
)
from .registry import Check, Finding, Severity, rule

if TYPE_CHECKING:
    from ..snapshot import ProgramSnapshot

ACTIVE = "ACTIVE"
VALID_WEEKDAYS = range(7)


def _live_rewards(snapshot: ProgramSnapshot) -> list[Row]:
    return [r for r in rows(snapshot, "rewards") if r["status"] != RewardStatus.DELETED]


def _live_benefits(snapshot: ProgramSnapshot) -> list[Row]:
    return [b for b in rows(snapshot, "benefits") if b["status"] != BenefitStatus.DELETED]


def _card_definitions(snapshot: ProgramSnapshot) -> dict[str, Row]:
    return {c["id"]: c for c in rows(snapshot, "card_definitions")}


def _finding(kind: str, row: Row, message: str) -> Finding:
    return Finding(kind, row["id"], row.get("name"), message)


# --- rule families: one check, a rule per kind ---------------------------------


class _CardUse(NamedTuple):
    """A resource's reference to a card definition, and how a finding about it opens."""

    owner: Row
    """The resource a finding is about (a benefit, a reward, a tier structure)."""
    holder: Row
    """The row holding ``card_definition_id``: the owner itself or one of its reward costs."""
    phrase: str
    """How the message begins, up to the card definition, e.g. ``"DRAFT benefit credits"``."""


def _benefit_uses(snapshot: ProgramSnapshot) -> Iterator[_CardUse]:
    """Live benefits and the card definition each credits."""
    for benefit in _live_benefits(snapshot):
        yield _CardUse(benefit, benefit, f"{benefit['status']} benefit credits")


def _draft_benefit_uses(snapshot: ProgramSnapshot) -> Iterator[_CardUse]:
    """``_benefit_uses`` of the benefits that are not ACTIVE (DRAFT ones)."""
    return (use for use in _benefit_uses(snapshot) if use.owner["status"] != ACTIVE)


def _active_benefit_uses(snapshot: ProgramSnapshot) -> Iterator[_CardUse]:
    """``_benefit_uses`` of the ACTIVE benefits."""
    return (use for use in _benefit_uses(snapshot) if use.owner["status"] == ACTIVE)


def _reward_cost_uses(snapshot: ProgramSnapshot) -> Iterator[_CardUse]:
    """Costs of live rewards and the card definition each is priced in."""
    for reward, cost in _reward_costs(snapshot):
        phrase = f"{reward['status']} reward cost {cost.get('cost_id')} asks {_points(cost)}"
        yield _CardUse(reward, cost, f"{phrase} points of")


def _tier_structure_uses(snapshot: ProgramSnapshot) -> Iterator[_CardUse]:
    """Tier structures and the card definition whose points each counts."""
    for tiers in rows(snapshot, "tier_structures"):
        phrase = f"{tiers['status']} {tiers.get('type')} tier structure counts points of"
        yield _CardUse(tiers, tiers, phrase)


_Uses = Callable[["ProgramSnapshot"], Iterable[_CardUse]]
"""A snapshot's references of one kind to card definitions."""


def _register(
    rule_id: str,
    severity: Severity,
    summary: str,
    doc: str,
    check: Check,
    needs: tuple[str, ...] = (),
) -> None:
    """Register ``check``, made by a rule family, as the rule ``rule_id`` documented by
    ``doc`` (its docstring, as a rule written as a function has its own)."""
    check.__name__ = check.__qualname__ = rule_id.replace("-", "_")
    check.__doc__ = doc
    rule(rule_id, severity, summary, needs=needs)(check)


def _missing_definition_rule(rule_id: str, kind: str, uses: _Uses, summary: str, doc: str) -> None:
    """The ERROR rule ``rule_id``: one finding of ``kind`` per use whose card definition
    does not exist."""

    def check(snapshot: ProgramSnapshot) -> Iterator[Finding]:
        definitions = _card_definitions(snapshot)
        for use in uses(snapshot):
            ref, definition = _reference(definitions, use.holder)
            if ref and definition is None:
                message = f"{use.phrase} card definition {ref}, which does not exist"
                yield _finding(kind, use.owner, message)

    _register(rule_id, Severity.ERROR, summary, doc, check, needs=("card_definitions",))


def _not_active_definition_rule(
    rule_id: str, severity: Severity, kind: str, uses: _Uses, summary: str, doc: str
) -> None:
    """The rule ``rule_id``: one finding of ``kind`` per use whose card definition exists
    but is not ACTIVE."""

    def check(snapshot: ProgramSnapshot) -> Iterator[Finding]:
        definitions = _card_definitions(snapshot)
        for use in uses(snapshot):
            _, definition = _reference(definitions, use.holder)
            if _not_active(definition):
                message = f"{use.phrase} {_describe(definition)}, which is {definition['status']}"
                yield _finding(kind, use.owner, message)

    _register(rule_id, severity, summary, doc, check)


def _duplicate_name_rule(
    rule_id: str, kind: str, live: Callable[[ProgramSnapshot], list[Row]], doc: str
) -> None:
    """The WARNING rule ``rule_id``: one finding per ``live`` item of ``kind`` whose
    normalised name another item also has."""

    def check(snapshot: ProgramSnapshot) -> Iterator[Finding]:
        groups: dict[str, list[Row]] = defaultdict(list)
        for item in live(snapshot):
            if item.get("name"):
                groups[name_key(item["name"])].append(item)
        for group in groups.values():
            if len(group) < 2:
                continue
            for item in group:
                others = ", ".join(
                    f"{o['id']} ({o['name']!r}, {o['status']})" for o in group if o is not item
                )
                yield _finding(kind, item, f"{kind} name {item['name']!r} duplicates {others}")

    summary = f"Two or more {kind}s share a name, ignoring case and spacing."
    _register(rule_id, Severity.WARNING, summary, doc, check)


def _card_definition_rule(
    rule_id: str,
    severity: Severity,
    summary: str,
    doc: str,
    breaks: Callable[[Row], bool],
    problem: str,
) -> None:
    """The rule ``rule_id``: one finding per card definition (not DELETED) that ``breaks``
    it, its message the definition's status, then ``problem``."""

    def check(snapshot: ProgramSnapshot) -> Iterator[Finding]:
        for definition in _current_card_definitions(snapshot):
            if breaks(definition):
                message = f"{definition['status']} card definition {problem}"
                yield _finding("card_definition", definition, message)

    _register(rule_id, severity, summary, doc, check)


# --- benefits -------------------------------------------------------------------


_missing_definition_rule(
    "benefit-card-definition-missing",
    "benefit",
    _benefit_uses,
    "A points benefit credits a card definition that does not exist.",
    "A dangling reference: granting the benefit has nowhere to put the points.",
)
_not_active_definition_rule(
    "benefit-card-definition-not-active",
    Severity.WARNING,
    "benefit",
    _draft_benefit_uses,
    "A DRAFT benefit credits a card definition that is not ACTIVE, so it cannot be activated.",
    "Activating such a benefit is refused until its card definition is ACTIVE.",
)
_not_active_definition_rule(
    "active-benefit-card-definition-not-active",
    Severity.ERROR,
    "benefit",
    _active_benefit_uses,
    "An ACTIVE benefit credits a card definition that is not ACTIVE.",
    "A live benefit promising points on a currency that is not live.",
)


@rule(
    "benefit-stock-exhausted",
    Severity.WARNING,
    "A benefit with limited stock has none left (quantity 0).",
)
def benefit_stock_exhausted(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Members are promised something that can no longer be granted."""
    for benefit in _live_benefits(snapshot):
        quantity = benefit.get("stock_quantity")
        limited = benefit.get("stock_type") == StockType.LIMITED
        if limited and quantity is not None and quantity <= 0:
            yield _finding(
                "benefit",
                benefit,
                f"{benefit['status']} benefit has limited stock with quantity"
                f" {figure(int(quantity))}",
            )


_duplicate_name_rule(
    "duplicate-benefit-name",
    "benefit",
    _live_benefits,
    "Near-identical names confuse admins choosing a benefit and members reading it.",
)


# --- rewards --------------------------------------------------------------------


_missing_definition_rule(
    "reward-cost-card-definition-missing",
    "reward",
    _reward_cost_uses,
    "A reward's cost is priced in a card definition that does not exist.",
    "Nobody can pay this price: no card holds that currency.",
)
_not_active_definition_rule(
    "reward-cost-card-definition-not-active",
    Severity.WARNING,
    "reward",
    _reward_cost_uses,
    "A reward's cost is priced in a card definition that is not ACTIVE.",
    "Points of a DRAFT or DELETED currency cannot pay for anything.",
)


@rule(
    "active-reward-without-costs",
    Severity.ERROR,
    "An ACTIVE reward has no cost, so members cannot buy it.",
    needs=("reward_costs",),
)
def active_reward_without_costs(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """A reward on the shelf without a price."""
    priced = {cost["reward_id"] for cost in rows(snapshot, "reward_costs")}
    for reward in _live_rewards(snapshot):
        if reward["status"] == ACTIVE and reward["id"] not in priced:
            yield _finding("reward", reward, "ACTIVE reward has no cost in any card definition")


@rule(
    "active-reward-expired",
    Severity.WARNING,
    "An ACTIVE reward's end_date has passed (as of the snapshot's time).",
)
def active_reward_expired(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Expired but still ACTIVE: the catalogue shows something nobody can redeem."""
    now = now_of(snapshot)
    for reward in _live_rewards(snapshot):
        end = timestamp(reward.get("end_date"))
        if reward["status"] == ACTIVE and end is not None and end < now:
            yield _finding(
                "reward",
                reward,
                f"ACTIVE reward ended {end:%Y-%m-%d %H:%M} UTC, "
                f"{counted((now - end).days, 'day')} before {now:%Y-%m-%d %H:%M} UTC",
            )


@rule(
    "start-after-end",
    Severity.ERROR,
    "A reward or program starts after it ends, so it is never available.",
)
def start_after_end(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """An empty availability window is always a typo."""
    for kind, item in _windowed(snapshot):
        start, end = timestamp(item.get("start_date")), timestamp(item.get("end_date"))
        if start is not None and end is not None and start > end:
            yield _finding(
                kind,
                item,
                f"{item['status']} {kind} starts {start:%Y-%m-%d %H:%M} UTC, "
                f"after it ends {end:%Y-%m-%d %H:%M} UTC",
            )


@rule(
    "daily-validity-invalid",
    Severity.ERROR,
    "DAILY validity hours with no window, no or invalid weekdays (valid: 0-6), "
    "or start_time not before end_time.",
)
def daily_validity_invalid(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """A DAILY schedule that never opens, or names a day that does not exist."""
    for kind, item in _windowed(snapshot):
        if item.get("validity_hours_type") != ValidityHoursType.DAILY:
            continue
        for problem in _daily_problems(daily_windows(item)):
            yield _finding(kind, item, f"{item['status']} {kind}: DAILY validity {problem}")


_duplicate_name_rule(
    "duplicate-reward-name",
    "reward",
    _live_rewards,
    "Near-identical names make the catalogue ambiguous for members and admins.",
)


# --- tier structures and card definitions --------------------------------------


_missing_definition_rule(
    "tier-structure-card-definition-missing",
    "tier_structure",
    _tier_structure_uses,
    "A tier structure counts points of a card definition that does not exist.",
    "Tiers computed from a currency nobody holds never move anyone.",
)
_not_active_definition_rule(
    "tier-structure-card-definition-not-active",
    Severity.WARNING,
    "tier_structure",
    _tier_structure_uses,
    "A tier structure counts points of a card definition that is not ACTIVE.",
    "Tiers follow a currency that is not live (DRAFT) or gone (DELETED).",
)


_card_definition_rule(
    "card-definition-negative-balance",
    Severity.WARNING,
    "A card definition lets card balances go below zero.",
    "Negative balances are debt members owe the program; usually unintended.",
    lambda definition: definition.get("balance_settings_allow_negative") is True,
    "allows negative balances",
)
_card_definition_rule(
    "card-definition-no-earning-limit",
    Severity.INFO,
    "A card definition has no global earning limit.",
    "Uncapped earning is a liability risk worth a deliberate decision.",
    lambda definition: definition.get("earning_limits_global_type") == LimitsType.NO_LIMIT,
    "has no global earning limit (NO_LIMIT)",
)


# --- pending points ---------------------------------------------------------------


@rule(
    "pending-bucket-not-activatable",
    Severity.WARNING,
    "A PENDING points bucket can no longer be activated: its date is not in the future, "
    "its program or member is not ACTIVE, or its card definition does not hold points as pending.",
    per_member=True,
    needs=("card_definitions",),
)
def pending_bucket_not_activatable(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Points stuck in PENDING: members see them but can never spend them."""
    pending = [
        b for b in rows(snapshot, "pending_buckets") if b["status"] == PendingBucketStatus.PENDING
    ]
    blocked = buckets_blocked(
        pending,
        today=today_of(snapshot),
        programs={p["id"]: p for p in rows(snapshot, "programs")},
        members={m["id"]: m for m in rows(snapshot, "members")},
        definitions=_card_definitions(snapshot),
    )
    for bucket, reasons in zip(pending, blocked, strict=True):
        if reasons:
            yield Finding(
                "pending_bucket",
                bucket["id"],
                None,
                f"PENDING bucket of {_points_total(bucket)} points on card {bucket['card_id']} "
                f"cannot be activated: " + "; ".join(reasons),
                bucket["member_id"],
            )


@rule(
    "card-pending-points-mismatch",
    Severity.WARNING,
    "A card's pending points total differs from the points of its PENDING buckets.",
    per_member=True,
)
def card_pending_points_mismatch(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """Members see a pending total that activating their buckets will not pay out.

    Silent on a snapshot without pending buckets (pulled without them, it cannot tell); a
    sample whose members happen to hold none is still checked.
    """
    buckets = {b["id"]: b for b in rows(snapshot, "pending_buckets")}
    if not buckets and (snapshot.sample is None or "pending_buckets" not in snapshot.kinds):
        return
    held: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    for bucket in buckets.values():
        if bucket["status"] == PendingBucketStatus.PENDING:
            held[bucket["card_id"]] += int(bucket.get("points_total") or 0)
            counts[bucket["card_id"]] += 1
    cards = {c["id"]: c for c in rows(snapshot, "cards")}  # a shared card once
    for card_id, card in cards.items():
        total = card.get("balance_pending_points")
        if total is not None and total != held[card_id]:
            n = counts[card_id]
            yield Finding(
                "card",
                card_id,
                None,
                f"card of member {card['member_id']} shows {figure(int(total))} pending points, "
                f"but its PENDING buckets hold {figure(held[card_id])} ({counted(n, 'bucket')})",
                card["member_id"],
            )


# --- helpers --------------------------------------------------------------------


def _reference(definitions: dict[str, Row], row: Row) -> tuple[str | None, Row | None]:
    """The card definition ``row`` references: (its ID, its row or None when it does not
    exist), as ``referenced_definition`` finds it."""
    ref, definition = referenced_definition(definitions, row)
    return ref, None if definition is None else dict(definition)


def _not_active(definition: Row | None) -> TypeGuard[Row]:
    return definition is not None and definition["status"] != CardDefinitionStatus.ACTIVE


def _describe(definition: Row) -> str:
    name = definition.get("name")
    return f"card definition {definition['id']}" + (f" ({name})" if name else "")


def _windowed(snapshot: ProgramSnapshot) -> Iterator[tuple[str, Row]]:
    """Live rewards and programs: the resources with dates and validity hours."""
    yield from (("reward", r) for r in _live_rewards(snapshot))
    yield from (("program", p) for p in rows(snapshot, "programs"))


def _current_card_definitions(snapshot: ProgramSnapshot) -> list[Row]:
    return [
        c for c in rows(snapshot, "card_definitions") if c["status"] != CardDefinitionStatus.DELETED
    ]


def _reward_costs(snapshot: ProgramSnapshot) -> Iterator[tuple[Row, Row]]:
    """(reward, cost spending row) for every spending entry of a live reward."""
    rewards = {r["id"]: r for r in _live_rewards(snapshot)}
    for cost in rows(snapshot, "reward_costs"):
        reward = rewards.get(cost["reward_id"])
        if reward is not None:
            yield reward, cost


def _points(cost: Row) -> str:
    points = cost.get("points")
    return "?" if points is None else figure(int(points))


def _points_total(bucket: Row) -> str:
    points = bucket.get("points_total")
    return "?" if points is None else amount(points)


def _daily_problems(windows: list[dict[str, Any]] | None) -> Iterator[str]:
    """What is wrong with a DAILY schedule, one sentence per problem."""
    if not windows:
        yield "has no daily window, so it is never valid"
        return
    for i, window in enumerate(windows, start=1):
        days = list(window.get("days_of_week") or [])
        label = f"window {i} ({window.get('start_time')}-{window.get('end_time')})"
        if not days:
            yield f"{label} names no weekday"
        invalid = [d for d in days if d not in VALID_WEEKDAYS]
        if invalid:
            yield f"{label} names invalid weekday(s) {invalid}; valid are 0 (Sunday) to 6"
        start, end = window.get("start_time"), window.get("end_time")
        if not (_is_hhmm(start) and _is_hhmm(end)):
            yield f"{label} has a start or end time that is not HH:MM"
        elif start >= end:
            yield f"{label} starts at or after it ends"


def _is_hhmm(value: object) -> TypeGuard[str]:
    if not isinstance(value, str) or len(value) != 5 or value[2] != ":":
        return False
    hours, minutes = value[:2], value[3:]
    return hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60


# --- the service's answers ------------------------------------------------------


@rule(
    "odd-value-in-answer",
    Severity.WARNING,
    "A row of the service's answer held a value its column cannot hold or an unknown enum value.",
)
def odd_value_in_answer(snapshot: ProgramSnapshot) -> Iterator[Finding]:
    """The pull kept going (NA or a new category); the row is flagged so it gets looked at."""
    flagged: dict[tuple[str, str], list[str]] = defaultdict(list)
    for odd in snapshot.odd:
        value = quoted_short(repr(odd.value))
        flagged[odd.kind, odd.id].append(f"field {odd.field!r} got {value} ({odd.outcome})")
    names = {kind: _names(snapshot, kind) for kind, _ in flagged}
    for (kind, row_id), problems in flagged.items():
        yield Finding(kind.removesuffix("s"), row_id, names[kind].get(row_id), "; ".join(problems))


def _names(snapshot: ProgramSnapshot, kind: str) -> dict[str, str | None]:
    """Row ID -> name in frame ``kind`` (empty when the snapshot has no such frame)."""
    if kind not in FRAME_NAMES:
        return {}
    return {r["id"]: r.get("name") for r in rows(snapshot, kind)}
