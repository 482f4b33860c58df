"""The sandbox's own admin API under ``/_sandbox``: clock, reset, faults, plan and settling.

Not part of the service interface; it exists so rehearsals and tests can move
time, start over and make the service misbehave on purpose.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from .auth import require_key_pair
from .clock import iso, parse_instant
from .deps import StateDep
from .errors import bad_request
from .faults import ADMIN_PREFIX, FaultSettings
from .quota import Budget, parse_plan
from .services.programs import settle_open_activations
from .state import SandboxState

router = APIRouter(
    prefix=ADMIN_PREFIX, dependencies=[Depends(require_key_pair)], tags=["sandbox admin"]
)


FIRST_YEAR = 1970
LAST_YEAR = 9000


class Advance(BaseModel):
    model_config = {"extra": "forbid"}
    seconds: float = Field(..., ge=0, le=10 * 365 * 86400)


class SetPlan(BaseModel):
    model_config = {"extra": "forbid"}
    plan: str = Field(
        ..., description="free, startup, growth, professional, unlimited, N/hour or N/minute"
    )
    cycle_used: int | None = Field(
        None,
        ge=0,
        strict=True,
        description="calls the current billing cycle has counted already (0 if not given)",
    )


class SetClock(BaseModel):
    model_config = {"extra": "forbid"}
    now: str = Field(..., description="ISO 8601 instant")


def _clock(state: SandboxState) -> dict[str, Any]:
    return {"now": iso(state.clock.now()), "fixed": state.clock.is_fixed}


@router.get("/clock")
def get_clock(state: StateDep) -> dict[str, Any]:
    return _clock(state)


def _check_reachable(field: str, moment: datetime) -> None:
    """Keep the clock where every date the sandbox computes still fits a datetime."""
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise bad_request(f"{field}: the clock must stay between {FIRST_YEAR} and {LAST_YEAR}")


@router.post("/clock/advance")
def advance_clock(body: Advance, state: StateDep) -> dict[str, Any]:
    _check_reachable("seconds", state.clock.now() + timedelta(seconds=body.seconds))
    state.advance_clock(body.seconds)
    return _clock(state)


@router.post("/clock/set")
def set_clock(body: SetClock, state: StateDep) -> dict[str, Any]:
    try:
        moment = parse_instant(body.now)
    except (ValueError, OverflowError):
        raise bad_request(f"now: {body.now!r} is not an ISO 8601 instant") from None
    _check_reachable("now", moment)
    state.set_clock(moment)
    return _clock(state)


@router.post("/reset")
def reset(request: Request, state: StateDep) -> dict[str, Any]:
    """The program reloaded, and the plan the sandbox started with, its budget whole."""
    state.reload()
    _budget(request).restore()
    return {"reset": True, **_clock(state)}


def _budget(request: Request) -> Budget:
    budget: Budget = request.app.state.budget
    return budget


@router.get("/plan")
def get_plan(request: Request) -> dict[str, Any]:
    return _budget(request).status()


@router.put("/plan")
def set_plan(body: SetPlan, request: Request) -> dict[str, Any]:
    """Put a plan in force at once, with its whole budget, the billing cycle counting
    ``cycle_used`` calls (0 if not given)."""
    try:
        plan = parse_plan(body.plan)
    except ValueError as exc:
        raise bad_request(f"plan: {exc}") from None
    if body.cycle_used is not None and plan.cycle is None:
        raise bad_request(f"cycle_used: the {plan.name} plan has no billing-cycle budget")
    budget = _budget(request)
    budget.set(plan, body.cycle_used or 0)
    return budget.status()


@router.get("/faults")
def get_faults(state: StateDep) -> dict[str, Any]:
    """The faults in force, and the requests they answered 429 and 503 since they were set
    (``answered``: ``rate_limit``, ``unavailable``)."""
    return {**state.faults.settings.model_dump(), "answered": state.faults.answered()}


@router.put("/faults")
def set_faults(body: FaultSettings, state: StateDep) -> dict[str, Any]:
    state.faults.set(body)
    return body.model_dump()


@router.delete("/faults")
def clear_faults(state: StateDep) -> dict[str, Any]:
    state.faults.clear()
    return state.faults.settings.model_dump()


@router.post("/settle")
def settle(state: StateDep) -> dict[str, Any]:
    """Settle at once every points activation still in progress (the service settles each
    shortly after its answer): what a pull sees next is their outcome."""
    return {"settled": settle_open_activations(state)}
