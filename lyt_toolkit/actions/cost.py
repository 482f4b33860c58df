"""What a plan will cost in calls, set against the budget the client knows.

Executing a plan sends exactly one write per valid item that the log does not show done or
refused for good (``ActionPlan.perform``, ``actions.log``), plus one token request when the
client holds no bearer token yet. An item the log shows in doubt may also be checked first with
a read, so it is counted as two calls. An item the service refuses is read back (already done?,
``ActionPlan.check_done``: one read): a call more that this count does not foresee (a change
plan counts it for each write its base shows refused), so the figure is what a run costs when
the service refuses nothing; ``execute`` below a whole window keeps the run to its share all the
same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .._shares import share_of
from .._text import counted, figure
from ..client.budget_read import learn_budget
from ..errors import BudgetExceededError
from ..snapshot.cost import budget_text
from .items import Runnable

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .log import LogState

__all__ = ["PlanCost", "budgeted", "items_within", "learn_budget", "plan_cost"]


@dataclass(frozen=True)
class PlanCost:
    """Calls a plan needs and, when the client has seen the service's headers, the budget.

    ``remaining``, ``limit`` and ``resets_at`` are ``None`` while the budget is
    unknown (no answer read yet, or a service that sends no limit headers, or no client
    given: ``client_given`` False, which ``str`` says). ``share``: the part of ``remaining``
    the plan may use (``budget_share``); the rest stays for the project's other traffic.
    """

    needed: int
    remaining: int | None = None
    limit: int | None = None
    resets_at: datetime | None = None
    client_given: bool = field(default=True, kw_only=True, compare=False)
    share: float = field(default=1.0, kw_only=True)

    @property
    def allowed(self) -> int | None:
        """The calls the plan may use: ``share`` of ``remaining`` (None when unknown)."""
        return None if self.remaining is None else share_of(self.remaining, self.share)

    @property
    def fits(self) -> bool:
        """True unless the budget is known and its share holds fewer calls than needed."""
        return self.allowed is None or self.needed <= self.allowed

    @property
    def shortfall(self) -> int:
        """Calls missing from the share of the window's budget (0 when it fits)."""
        return 0 if self.allowed is None else max(0, self.needed - self.allowed)

    def __str__(self) -> str:
        if self.client_given or self.remaining is not None:
            budget = budget_text(self.remaining, self.limit, self.resets_at)
        else:
            budget = "budget unknown (no client given: pass one to read its budget)"
        if self.share < 1 and self.allowed is not None:
            budget += f"; this plan's share ({self.share:g}): {figure(self.allowed)}"
        text = f"calls needed: {figure(self.needed)}; {budget}"
        return text if self.fits else f"{text}; {counted(self.shortfall, 'call')} short"

    @classmethod
    def for_client(cls, needed: int, client: LoyaltyClient | None, share: float = 1.0) -> PlanCost:
        """``needed`` calls set against ``share`` of ``client``'s budget: one more for the
        token request the first call brings when the client holds no token yet."""
        if client is None:
            return cls(needed, client_given=False, share=share)
        if needed and not client.holds_token:
            needed += 1
        quota = client.quota
        return cls(needed, quota.remaining, quota.limit, quota.resets_at, share=share)

    def refusal(
        self, what: str, *, partial: bool = True, paced: bool = False, resumable: bool = True
    ) -> BudgetExceededError:
        """The error refusing to start ``what`` because it does not fit (see ``fits``);
        ``partial``: ``what`` takes ``allow_partial=True``, ``paced``: ``paced=True`` (the
        error then names them), ``resumable``: a paced run stopped goes on from its log
        (else it starts again)."""
        return BudgetExceededError(
            what,
            needed=self.needed,
            remaining=self.remaining or 0,
            limit=self.limit,
            resets_at=self.resets_at,
            partial=partial,
            share=self.share,
            paced=paced,
            resumable=resumable,
        )


def budgeted(cost: Callable[[], PlanCost], client: LoyaltyClient) -> PlanCost:
    """``cost()`` set against a budget ``client`` knows: when it needs calls and the budget is
    unknown, ``learn_budget`` reads it first and the cost is taken again (the read brought
    the token a fresh client's cost counts)."""
    first = cost()
    return cost() if first.needed and learn_budget(client) else first


def item_calls(target: str, state: LogState) -> int:
    """Calls executing one valid item costs: 0 when done or refused for good, 2 when in
    doubt, else 1."""
    if target in state.succeeded or target in state.refused:
        return 0
    return 2 if state.in_doubt(target) else 1


def items_within(plan: Runnable[Any], state: LogState, cost: PlanCost) -> int:
    """How many of the items ``plan`` would send (valid, not done), in order, fit in what
    ``cost`` allows (the token request it counts left out first)."""
    todo = [item_calls(i.target, state) for i in plan.items if i.error is None]
    todo = [calls for calls in todo if calls]
    room = (cost.allowed or 0) - (cost.needed - sum(todo))
    count = 0
    for calls in todo:
        room -= calls
        if room < 0:
            break
        count += 1
    return count


def plan_cost(
    plan: Runnable[Any], state: LogState, client: LoyaltyClient | None, share: float = 1.0
) -> PlanCost:
    """The cost of executing ``plan`` given the log's ``state``, with ``share`` of
    ``client``'s budget."""
    needed = sum(item_calls(i.target, state) for i in plan.items if i.error is None)
    return PlanCost.for_client(needed, client, share)
