"""Why a tier cannot be applied: its dates, its campaign, and its validation rules.

Checks run in a fixed order and the first failure is the answer, so a result
always names one stable ``reason``:

1. ``campaign inactive``, ``campaign not started``, ``campaign expired``
2. ``promotion tier inactive``, ``promotion tier not started``, ``promotion tier expired``
3. the validation rules, rule set by rule set, rule by rule:
   ``redemption metadata missing``, ``order amount below minimum``,
   ``order amount above maximum``, ``customer metadata mismatch``,
   ``unsupported validation rule`` (a rule kind the sandbox does not know).

A start date is inclusive and an expiration date exclusive. Order-amount bounds
are inclusive and compare the order amount before any discount.

Validation rules on a tier: one rule set ``{"id"?, "rules": [...], "error": {"message"}?}``,
or a list of such sets, or a bare list of rules. A rule set whose ``error`` carries a
``message`` answers its failures with that custom message instead of the error object;
the first such message also answers the tier's other failures (its dates, its campaign,
rule sets without a message of their own).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...models.errors import CustomMessage, ErrorObject
from ..clock import parse_instant
from .money import cents
from .orders import Customer, WorkingOrder

RULES_VIOLATED = "redemption_rules_violated"


@dataclass(frozen=True)
class Failure:
    """The one reason a validation is invalid, and how it is told."""

    reason: str
    message: str
    details: str
    custom_message: str | None = None

    def error(self, request_id: str) -> dict[str, Any]:
        """The ``error`` of the invalid result: the error object, or the custom message."""
        if self.custom_message is not None:
            return CustomMessage(message=self.custom_message).wire()
        return ErrorObject(
            code=400,
            key=RULES_VIOLATED,
            message=self.message,
            details=self.details,
            request_id=request_id,
        ).wire()


@dataclass(frozen=True)
class RuleSet:
    id: str
    rules: tuple[Mapping[str, Any], ...]
    custom_message: str | None


def rule_sets(tier: Mapping[str, Any]) -> list[RuleSet]:
    """The tier's validation rules as rule sets with stable IDs (derived when not given)."""
    raw = tier.get("validation_rules")
    if not raw:
        return []
    if isinstance(raw, Mapping):
        groups: list[Mapping[str, Any]] = [raw]
    elif all(isinstance(item, Mapping) and "rules" in item for item in raw):
        groups = list(raw)
    else:
        groups = [{"rules": raw}]
    sets = []
    for index, group in enumerate(groups):
        rule_id = group.get("id") or _derived_id(str(tier.get("id", "")), index)
        message = (group.get("error") or {}).get("message")
        sets.append(RuleSet(rule_id, tuple(group.get("rules") or ()), message))
    return sets


def custom_message(tier: Mapping[str, Any]) -> str | None:
    """The custom message the tier configures for failures not tied to one rule set."""
    for rule_set in rule_sets(tier):
        if rule_set.custom_message is not None:
            return rule_set.custom_message
    return None


def _derived_id(tier_id: str, index: int) -> str:
    return "val_" + hashlib.sha256(f"{tier_id}:{index}".encode()).hexdigest()[:12]


def check_dates(
    tier: Mapping[str, Any], campaign: Mapping[str, Any], now: datetime
) -> Failure | None:
    """Whether the campaign and the tier are switched on and inside their windows now."""
    name = f"campaign {campaign.get('id')}"
    if campaign.get("active") is False:
        return Failure("campaign inactive", "Campaign is inactive", f"The {name} is not active.")
    failure = _window("campaign", name, campaign, now)
    if failure is not None:
        return failure
    name = f"promotion tier {tier.get('id')}"
    if tier.get("active") is False:
        return Failure(
            "promotion tier inactive", "Promotion tier is inactive", f"The {name} is not active."
        )
    return _window("promotion tier", name, tier, now)


def _window(what: str, name: str, doc: Mapping[str, Any], now: datetime) -> Failure | None:
    start, end = doc.get("start_date"), doc.get("expiration_date")
    if start is not None and now < parse_instant(start):
        return Failure(
            f"{what} not started",
            f"{what.capitalize()} has not started",
            f"The {name} starts at {start}.",
        )
    if end is not None and now >= parse_instant(end):
        return Failure(
            f"{what} expired", f"{what.capitalize()} has expired", f"The {name} expired at {end}."
        )
    return None


@dataclass(frozen=True)
class Redemption:
    """What the validation rules look at: the request's order, its customer and its
    redemption metadata."""

    order: WorkingOrder
    customer: Customer
    metadata: Mapping[str, Any]


def check_rules(tier: Mapping[str, Any], redemption: Redemption) -> Failure | None:
    """The first validation rule the request breaks, if any."""
    for rule_set in rule_sets(tier):
        for rule in rule_set.rules:
            problem = _broken(rule, redemption)
            if problem is not None:
                reason, explanation = problem
                return Failure(
                    reason,
                    "redemption does not match validation rules",
                    f"Validation rule {rule_set.id} is not met: {explanation}.",
                    rule_set.custom_message or custom_message(tier),
                )
    return None


def _broken(rule: Mapping[str, Any], redemption: Redemption) -> tuple[str, str] | None:
    order, customer, metadata = redemption.order, redemption.customer, redemption.metadata
    kind = rule.get("kind")
    if kind == "redemption_metadata_required":
        missing = [key for key in rule.get("keys") or () if metadata.get(key) is None]
        if missing:
            return "redemption metadata missing", f"redemption metadata lacks {', '.join(missing)}"
        return None
    if kind == "order_amount":
        amount = order.amount
        low, high = rule.get("min"), rule.get("max")
        if low is not None and amount < cents(low):
            return "order amount below minimum", f"order amount {amount} is below {cents(low)}"
        if high is not None and amount > cents(high):
            return "order amount above maximum", f"order amount {amount} is above {cents(high)}"
        return None
    if kind == "customer_metadata":
        key = rule.get("key")
        if key not in customer.metadata or customer.metadata[key] != rule.get("equals"):
            return (
                "customer metadata mismatch",
                f"customer metadata {key} is not {rule.get('equals')!r}",
            )
        return None
    return "unsupported validation rule", f"rule kind {kind!r} is not supported"
