"""A project's call budget: its plan, counted in windows of the sandbox clock.

A plan is ``free``, ``startup``, ``growth``, ``professional`` (100, 1,000, 2,000 and
5,000 calls an hour), ``unlimited``, or a custom ``N/hour`` or ``N/minute``. Windows are
fixed and aligned to the clock's hour or minute (the budget refills all at once when the
window ends), so moving the sandbox clock moves them.

Counted: every request under ``/v1``, ``/v2``, ``/management`` and ``/oauth`` that
reaches the service, whatever its answer (a 401 or 404 counts), except one refused
because the budget is spent. Never counted: the admin API ``/_sandbox``, ``/docs``,
``/openapi.json``, any other path, and requests refused before they reach the service
(oversized or stalled bodies, URLs too long, malformed HTTP).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .._plans import PLANS
from .clock import Clock, iso

HOURLY_BUDGETS = {plan.name: plan.hourly for plan in PLANS}
UNLIMITED = "unlimited"
WINDOWS = {"hour": 3600, "minute": 60}
MAX_CUSTOM_BUDGET = 10**9
PLAN_CHOICES = "free, startup, growth, professional, unlimited, N/hour or N/minute"

PLAN_KEYS = frozenset({"webhooks", "api_calls"})
"""What a project's ``plan`` may hold in a program file."""

COUNTED_PREFIXES = ("/v1", "/v2", "/management", "/oauth")

_CUSTOM = re.compile(r"(\d+)\s*/\s*(hour|minute)")


@dataclass(frozen=True)
class Plan:
    """A budget of ``limit`` calls per ``window`` seconds; ``limit`` ``None`` is unlimited."""

    name: str
    limit: int | None
    window: int

    @property
    def window_name(self) -> str:
        return next(name for name, seconds in WINDOWS.items() if seconds == self.window)


UNLIMITED_PLAN = Plan(UNLIMITED, None, WINDOWS["hour"])


def parse_plan(value: object) -> Plan:
    """The plan ``value`` names; ``ValueError`` saying what a plan may be otherwise."""
    if not isinstance(value, str):
        raise ValueError(f"must be a string ({PLAN_CHOICES}), got {type(value).__name__}")
    text = value.strip().lower()
    if text == UNLIMITED:
        return UNLIMITED_PLAN
    if text in HOURLY_BUDGETS:
        return Plan(text, HOURLY_BUDGETS[text], WINDOWS["hour"])
    custom = _CUSTOM.fullmatch(text)
    if custom and 1 <= int(custom[1]) <= MAX_CUSTOM_BUDGET:
        limit, window = int(custom[1]), custom[2]
        return Plan(f"{limit}/{window}", limit, WINDOWS[window])
    raise ValueError(
        f"{value!r} is not a plan; expected {PLAN_CHOICES}"
        f" (N a whole number from 1 to {MAX_CUSTOM_BUDGET})"
    )


def configured_plan(value: str | None) -> Plan | None:
    """The plan a sandbox was started with (``None`` when none was named)."""
    if value is None:
        return None
    try:
        return parse_plan(value)
    except ValueError as exc:
        raise ValueError(f"plan: {exc}") from None


def plan_problems(projects: list[Any]) -> list[str]:
    """One line per project of a program file whose ``plan`` is not understood."""
    problems = []
    for index, project in enumerate(projects):
        if not isinstance(project, dict) or "plan" not in project:
            continue
        where = f"projects[{index}] {project.get('id')}: plan"
        plan = project["plan"]
        if not isinstance(plan, dict):
            problems.append(f"{where}: must be an object")
            continue
        problems.extend(f"{where}.{key}: unknown key" for key in sorted(set(plan) - PLAN_KEYS))
        if "api_calls" in plan:
            try:
                parse_plan(plan["api_calls"])
            except ValueError as exc:
                problems.append(f"{where}.api_calls: {exc}")
    return problems


def program_plan(program: Mapping[str, Any]) -> Plan:
    """The plan of the program's first project (whose keys the sandbox serves), or
    ``unlimited`` when it names none."""
    projects = program.get("projects") or []
    first = projects[0] if isinstance(projects, list) and projects else {}
    plan = first.get("plan") if isinstance(first, dict) else None
    if not isinstance(plan, dict) or "api_calls" not in plan:
        return UNLIMITED_PLAN
    try:
        return parse_plan(plan["api_calls"])
    except ValueError as exc:
        raise ValueError(f"projects[0] {first.get('id')}: plan.api_calls: {exc}") from None


@dataclass(frozen=True)
class Verdict:
    """Whether a call may go ahead, and the headers its answer carries."""

    allowed: bool
    headers: dict[str, str]
    details: str = ""


class Budget:
    """The calls left in the current window of the plan in force; exact under concurrency
    (one lock around reading the clock, counting and deciding)."""

    def __init__(self, plan: Plan, clock: Clock) -> None:
        self.configured = plan
        self._clock = clock
        self._lock = threading.Lock()
        self._plan = plan
        self._window_start = 0
        self._used = 0

    def set(self, plan: Plan) -> None:
        """Put ``plan`` in force with its whole budget (the window stays on the clock)."""
        with self._lock:
            self._plan, self._used = plan, 0

    def restore(self) -> None:
        """Back to the plan the sandbox started with, with its whole budget."""
        self.set(self.configured)

    def _roll(self, now: float) -> int:
        """Start a fresh count when the clock is in another window; the window's end."""
        window = self._plan.window
        start = math.floor(now / window) * window
        if start != self._window_start:
            self._window_start, self._used = start, 0
        return start + window

    def take(self) -> Verdict:
        """Count one call if the budget allows it (``unlimited`` sends no headers)."""
        with self._lock:
            now = self._clock.now().timestamp()
            end = self._roll(now)
            limit = self._plan.limit
            if limit is None:
                self._used += 1
                return Verdict(True, {})
            headers = {"X-Rate-Limit-Limit": str(limit), "X-Rate-Limit-Retry": str(end)}
            if self._used < limit:
                self._used += 1
                headers["X-Rate-Limit-Remaining"] = str(limit - self._used)
                return Verdict(True, headers)
            headers["X-Rate-Limit-Remaining"] = "0"
            headers["Retry-After"] = str(max(1, math.ceil(end - now)))
            headers["X-Rate-Limit-Type"] = "api_calls"
            resets = iso(datetime.fromtimestamp(end, UTC))
            details = (
                f"api_calls: the {self._plan.name} plan's budget of {limit} calls per"
                f" {self._plan.window_name} is spent; the next call may be made at {resets}"
            )
            return Verdict(False, headers, details)

    def status(self) -> dict[str, Any]:
        """The plan in force and the current window, as the admin API shows them."""
        with self._lock:
            end = self._roll(self._clock.now().timestamp())
            plan, used = self._plan, self._used
        limited = plan.limit is not None
        return {
            "plan": plan.name,
            "limit": plan.limit,
            "window": plan.window_name if limited else None,
            "used": used,
            "remaining": max(0, plan.limit - used) if plan.limit is not None else None,
            "resets_at": iso(datetime.fromtimestamp(end, UTC)) if limited else None,
        }


def is_counted(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in COUNTED_PREFIXES)
