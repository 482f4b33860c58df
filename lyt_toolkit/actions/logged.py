"""An apply's results as its action log tells them, to compare each item's outcome with its
rehearsal's when the run's results frame was not kept (``lyt verify``: the apply ran in
another process).

Each item of the rehearsal (its call and target) takes the outcome of its last line in the
log: ``succeeded`` or ``already_done``; ``failed`` with the status and error key the service
answered (a refusal for good too); ``in doubt`` when that line is ``attempted`` (sent, its
answer never logged: the run died, or the service may have done it); ``not sent`` when the
log has no line of it (the apply was stopped, cancelled or spent its share first: a
cancelled item is not logged). An item the rehearsal found invalid is ``invalid``, as the
same plan's apply finds it. Nothing is sent: the log is a local file.

A plan applied part way, then refused as stale, leaves the rest to its plan for review
(``NAME.refreshed.json``, applied with a log of its own): ``review`` (``review_log``: that
log, bound to that file's sha256) gives an item the plan's log shows not sent or in doubt
the outcome of its last line there, the same call on the same target. An item the review
file left out (someone else made it, so it was unsupported) has no line there and stays
not sent by the apply. A plan for review refused as stale in turn saves its own
(``NAME.refreshed.refreshed.json``), and so on: ``review_logs`` gives their logs in that
order (at most ``MAX_REVIEWS``), and ``review`` given them takes, for an item still not
sent or in doubt after one, its outcome from the next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .log import ATTEMPTED, ActionLog, LogSource, LogState

if TYPE_CHECKING:
    from .rehearsal import Rehearsal

__all__ = [
    "IN_DOUBT",
    "MAX_REVIEWS",
    "NOT_SENT",
    "default_log",
    "logged_results",
    "plan_of_log",
    "review_log",
    "review_logs",
    "review_path",
    "sourced_results",
]

NOT_SENT = "not sent"
"""The outcome of an item the log has no line of."""
IN_DOUBT = "in doubt"
"""The outcome of an item whose last line is ``attempted``: sent, no answer logged."""
MAX_REVIEWS = 5
"""Plans for review ``review_logs`` follows, each the one of the file before."""
LOG_SUFFIX = ".log.jsonl"
"""What a plan file's name takes to name its default action log."""


def default_log(plan: Path) -> Path:
    """The action log ``lyt apply`` keeps for the plan file ``plan`` unless told another:
    ``PLAN.log.jsonl`` beside it."""
    return plan.with_name(plan.name + LOG_SUFFIX)


def plan_of_log(log: Path) -> Path:
    """The plan file whose default action log is ``log`` (``default_log``'s inverse)."""
    return log.with_name(log.name.removesuffix(LOG_SUFFIX))


def review_path(plan: Path) -> Path:
    """Where a stale refusal of the plan file ``plan`` saves its plan for review:
    ``NAME.refreshed.json`` beside it."""
    return plan.with_name(f"{plan.stem}.refreshed{plan.suffix}")


def review_log(plan: str | Path) -> ActionLog | None:
    """The action log of the plan for review saved beside the plan file ``plan``
    (``review_path``), the one ``lyt apply`` of it writes (``NAME.refreshed.json.log.jsonl``),
    reading only that file's lines (bound to its sha256 now); None when the file or its log
    is missing."""
    path = review_path(Path(plan))
    log = default_log(path)
    if not path.is_file() or not log.is_file():
        return None
    return ActionLog(log, plan=hashlib.sha256(path.read_bytes()).hexdigest())


def review_logs(plan: str | Path) -> list[ActionLog]:
    """The action logs of the plan file ``plan``'s plans for review, each of the file before
    (``review_log``: ``NAME.refreshed.json``'s, then ``NAME.refreshed.refreshed.json``'s, a
    plan for review refused as stale saving its own), each bound to its file's sha256 now,
    as far as one has a log, at most ``MAX_REVIEWS``; empty when the first has none."""
    logs: list[ActionLog] = []
    path = Path(plan)
    while len(logs) < MAX_REVIEWS and (log := review_log(path)) is not None:
        logs.append(log)
        path = review_path(path)
    return logs


def logged_results(
    rehearsal: Rehearsal,
    log: LogSource,
    *,
    review: LogSource | Sequence[ActionLog] | None = None,
) -> pd.DataFrame:
    """The results of the apply ``log`` recorded (a saved plan's: ``ActionLog(path,
    plan=saved.sha256)``, which reads its own lines only), one row per item of
    ``rehearsal.results`` (``call``, ``target``, ``outcome``, ``status``, ``error_key``), to
    pass as ``verify``'s and ``verify_touched``'s ``results``; ``review``, the log of its
    plan for review (``review_log``), or the logs of its chain of them (``review_logs``),
    for the items ``log`` shows not sent or in doubt (see the module)."""
    return sourced_results(rehearsal, log, review=review)[0]


def sourced_results(
    rehearsal: Rehearsal,
    log: LogSource,
    *,
    review: LogSource | Sequence[ActionLog] | None = None,
) -> tuple[pd.DataFrame, list[int | None]]:
    """``logged_results``, and for each of its rows the log its outcome was read from: 0
    ``log``, ``i`` the ``i``-th of ``review`` (1: the first), None no line in any."""
    items = rehearsal.results
    sources = [_opened(log), *(_opened(r) for r in _reviews(review))]
    calls = items["call"].astype(str) if "call" in items else [rehearsal.action] * len(items)
    states: dict[tuple[int, str], LogState] = {}

    def last(source: ActionLog, call: str, target: str) -> dict[str, Any] | None:
        state = states.get((id(source), call))
        if state is None:
            state = states[id(source), call] = source.state(call)
        return state.last.get(target)

    rows, taken = [], []
    for call, target, rehearsed in zip(
        calls, items["target"].astype(str), items["outcome"].astype(str), strict=True
    ):
        line, source = None, None
        for index, action_log in enumerate(sources):
            if line is not None and line.get("outcome") != ATTEMPTED:
                break
            if (later := last(action_log, call, target)) is not None:
                line, source = later, index
        rows.append(_row(call, target, rehearsed, line))
        taken.append(source)
    frame = pd.DataFrame(rows, columns=["call", "target", "outcome", "status", "error_key"])
    return frame.astype(_DTYPES), taken


def _opened(log: LogSource) -> ActionLog:
    return log if isinstance(log, ActionLog) else ActionLog(log)


def _reviews(review: LogSource | Sequence[ActionLog] | None) -> list[LogSource]:
    """``review`` as a list of logs (none: empty)."""
    if review is None:
        return []
    if isinstance(review, Sequence) and not isinstance(review, str):
        return list(review)
    return [review]


_DTYPES = {
    "call": "str",
    "target": "str",
    "outcome": "str",
    "status": "Int64",
    "error_key": "string",
}
"""The frame's dtypes, the same with no row (a plan of no change)."""


def _row(call: str, target: str, rehearsed: str, line: dict[str, Any] | None) -> dict[str, Any]:
    """One item's row from its last log line (None: none)."""
    if line is None:
        outcome = "invalid" if rehearsed == "invalid" else NOT_SENT
        return {"call": call, "target": target, "outcome": outcome}
    outcome = str(line.get("outcome"))
    if outcome == ATTEMPTED:
        return {"call": call, "target": target, "outcome": IN_DOUBT}
    status = line.get("status") if outcome == "failed" else None
    key = line.get("error_key") if status is not None else None
    return {"call": call, "target": target, "outcome": outcome, "status": status, "error_key": key}
