"""A project's call budget: its plan, counted in windows of the sandbox clock.

A plan is ``free``, ``startup``, ``growth``, ``professional`` (100, 1,000, 2,000 and
5,000 calls an hour), ``unlimited``, or a custom ``N/hour`` or ``N/minute``. Windows are
fixed and aligned to the clock's hour or minute (the budget refills all at once when the
window ends), so moving the sandbox clock moves them.

The published plans also have a budget per billing cycle (500 to 100,000 calls; the
others have none). The service does not say how long a cycle is: the sandbox's is the
calendar month (UTC) of its clock, which moves it as it moves the windows. Every call the
hourly budget lets through counts; once the cycle's count is past its budget, calls are
still let through, their answers carrying ``X-Rate-Limit-Type: api_calls_cycle``.

A sandbox on a ``--db`` file keeps the plan in force and both counts in it
(``quota_ledger``): restarted, it takes them up where they stood, unless it was started with
another plan than last time (that plan is put in force, its window whole, the cycle's count
kept). A clock in another window or month starts that one fresh, as moving it does.

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

from .._plans import CYCLE_REMINDER, PLANS
from .clock import Clock, iso
from .quota_ledger import SAVE_EVERY, Counts, Ledger

PUBLISHED = {plan.name: plan for plan in PLANS}
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
    """A budget of ``limit`` calls per ``window`` seconds (``None``: unlimited) and of
    ``cycle`` calls per billing cycle (``None``: no cycle budget)."""

    name: str
    limit: int | None
    window: int
    cycle: int | None = None

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
    if text in PUBLISHED:
        published = PUBLISHED[text]
        return Plan(text, published.hourly, WINDOWS["hour"], published.cycle)
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


def billing_cycle(moment: datetime) -> tuple[datetime, datetime]:
    """The start and end of the billing cycle holding ``moment``: its calendar month (UTC)."""
    start = moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    if start.month == 12:
        return start, start.replace(year=start.year + 1, month=1)
    return start, start.replace(month=start.month + 1)


@dataclass(frozen=True)
class Verdict:
    """Whether a call may go ahead, and the headers its answer carries."""

    allowed: bool
    headers: dict[str, str]
    details: str = ""
    save: bool = False
    """The counts are due to be committed (``Budget.save``) before the call is answered."""


class Budget:
    """The calls left in the current window of the plan in force, and the calls counted in
    the current billing cycle; exact under concurrency (one lock around reading the clock,
    counting and deciding). With a ``ledger``, taken up from and kept in a ``--db`` file
    (see the module's docstring)."""

    def __init__(self, plan: Plan, clock: Clock, ledger: Ledger | None = None) -> None:
        self.configured = plan
        self._clock = clock
        self._lock = threading.Lock()
        self._plan = plan
        self._window_start = 0
        self._used = 0
        self._cycle_start: datetime | None = None
        self._cycle_used = 0
        self._ledger = ledger
        self._counted = 0  # calls counted by this run, and how many of them are surely saved
        self._saved = 0
        if ledger is not None and (saved := ledger.saved()) is not None:
            self._resume(saved, ledger)

    def _resume(self, saved: Counts, ledger: Ledger) -> None:
        """Take up the counts the last run left: its plan too, unless this run was started
        with another (then that one, its window whole)."""
        try:
            plan = parse_plan(saved.plan)
        except ValueError as exc:
            raise ledger.unreadable(f"plan: {exc}") from None
        if saved.started_with == self.configured.name:
            self._plan = plan
        if self._plan.name == saved.plan:  # a count for another window is dropped by _roll
            self._window_start, self._used = saved.window_start, saved.window_used
        cycle_start = billing_cycle(self._clock.now())[0]
        if saved.cycle_start == int(cycle_start.timestamp()):
            self._cycle_start, self._cycle_used = cycle_start, saved.cycle_used

    def _counts(self) -> Counts:
        start = self._cycle_start
        cycle_start = None if start is None else int(start.timestamp())
        return Counts(
            self._plan.name,
            self.configured.name,
            self._window_start,
            self._used,
            cycle_start,
            self._cycle_used,
        )

    def save(self, *, flush: bool = True) -> None:
        """Commit the counts to the ``--db`` file now (nothing without one); ``flush=False``:
        without waiting for the disk (``Store.save_staged``)."""
        if self._ledger is None:
            return
        with self._lock:
            counted = self._counted  # staged already, so the commit carries them
        self._ledger.commit(flush=flush)
        with self._lock:
            self._saved = max(self._saved, counted)

    def set(self, plan: Plan, cycle_used: int = 0) -> None:
        """Put ``plan`` in force with its whole budget (the window stays on the clock), the
        current billing cycle counting ``cycle_used`` calls; saved at once."""
        with self._lock:
            self._plan, self._used = plan, 0
            self._cycle_start = billing_cycle(self._clock.now())[0]
            self._cycle_used = cycle_used
            if self._ledger is not None:
                self._ledger.stage(self._counts())
        self.save()

    def restore(self) -> None:
        """Back to the plan the sandbox started with, with its whole budget and cycle."""
        self.set(self.configured)

    def _roll(self, now: float) -> int:
        """Start a fresh count when the clock is in another window; the window's end."""
        window = self._plan.window
        start = math.floor(now / window) * window
        if start != self._window_start:
            self._window_start, self._used = start, 0
        return start + window

    def _roll_cycle(self, moment: datetime) -> datetime:
        """Start a fresh cycle count when the clock is in another month; the cycle's end."""
        start, end = billing_cycle(moment)
        if start != self._cycle_start:
            self._cycle_start, self._cycle_used = start, 0
        return end

    def _count(self) -> bool:
        """One call let through: counted in the window and in the billing cycle, staged for
        the ``--db`` file; whether the counts are due to be committed (``SAVE_EVERY`` calls
        not surely saved: so no more than ``SAVE_EVERY - 1`` calls are answered unsaved)."""
        self._used += 1
        self._cycle_used += 1
        if self._ledger is None:
            return False
        self._ledger.stage(self._counts())
        self._counted += 1
        return self._counted - self._saved >= SAVE_EVERY

    def take(self) -> Verdict:
        """Count one call if the budget allows it (``unlimited`` sends no headers); a call
        let through past the billing cycle's budget carries its reminder. Commits nothing:
        ``Verdict.save`` says when ``save`` is due."""
        with self._lock:
            moment = self._clock.now()
            now = moment.timestamp()
            end = self._roll(now)
            self._roll_cycle(moment)
            limit, cycle = self._plan.limit, self._plan.cycle
            if limit is None:
                return Verdict(True, {}, save=self._count())
            headers = {"X-Rate-Limit-Limit": str(limit), "X-Rate-Limit-Retry": str(end)}
            if self._used < limit:
                save = self._count()
                headers["X-Rate-Limit-Remaining"] = str(limit - self._used)
                if cycle is not None and self._cycle_used > cycle:
                    headers["X-Rate-Limit-Type"] = CYCLE_REMINDER
                return Verdict(True, headers, save=save)
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
        """The plan in force, the current window and billing cycle, as the admin API shows
        them."""
        with self._lock:
            moment = self._clock.now()
            end = self._roll(moment.timestamp())
            cycle_end = self._roll_cycle(moment)
            plan, used, cycle_used = self._plan, self._used, self._cycle_used
        limited = plan.limit is not None
        return {
            "plan": plan.name,
            "limit": plan.limit,
            "window": plan.window_name if limited else None,
            "used": used,
            "remaining": max(0, plan.limit - used) if plan.limit is not None else None,
            "resets_at": iso(datetime.fromtimestamp(end, UTC)) if limited else None,
            "cycle_limit": plan.cycle,
            "cycle_used": cycle_used,
            "cycle_resets_at": iso(cycle_end) if plan.cycle is not None else None,
        }


def is_counted(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in COUNTED_PREFIXES)
