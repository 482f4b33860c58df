"""The service's published plans: the calls each allows an hour and a billing cycle.

A leaf every layer may import (it imports nothing of the package): the sandbox serves
these budgets, and the client knows a project's billing cycle from the hourly budget its
answers report. Enterprise plans are custom (per hour or per minute): none of these.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CYCLE_REMINDER", "PLANS", "Cycle", "PublishedPlan", "published_plan"]


@dataclass(frozen=True)
class PublishedPlan:
    """A plan as the service publishes it: ``hourly`` calls an hour, ``cycle`` calls a
    billing cycle. A cycle's budget spent, calls are let through with a reminder (its
    answers' ``X-Rate-Limit-Type`` is ``api_calls_cycle``); weeks of that lead to throttling
    or suspension of the project."""

    name: str
    hourly: int
    cycle: int


PLANS = (
    PublishedPlan("free", 100, 500),
    PublishedPlan("startup", 1_000, 10_000),
    PublishedPlan("growth", 2_000, 30_000),
    PublishedPlan("professional", 5_000, 100_000),
)

CYCLE_REMINDER = "api_calls_cycle"
"""``X-Rate-Limit-Type`` of an answer let through past the billing cycle's budget."""


def published_plan(hourly: int | None) -> PublishedPlan | None:
    """The published plan whose hourly budget is ``hourly`` (None for any other: a custom
    plan, or no budget reported)."""
    return next((plan for plan in PLANS if plan.hourly == hourly), None)


@dataclass(frozen=True)
class Cycle:
    """A project's billing cycle budget: ``calls`` a cycle, of the published plan ``plan``
    (None: stated with the client's ``cycle_calls``)."""

    calls: int
    plan: str | None = None

    def __str__(self) -> str:
        budget = f"{self.calls:,}-call billing cycle"
        return f"the {self.plan} plan's {budget}" if self.plan else f"the project's {budget}"

    def share_of(self, calls: int) -> str:
        """``calls`` as a share of the cycle, worded: ``20 % of the professional plan's
        100,000-call billing cycle``."""
        return f"{_percent(calls / self.calls)} of {self}"


def _percent(fraction: float) -> str:
    """``0.2023`` as ``20 %``; below 1 % as ``under 1 %``."""
    return "under 1 %" if fraction < 0.01 else f"{fraction:.0%}".replace("%", " %")
