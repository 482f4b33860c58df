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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from .log import ATTEMPTED, ActionLog, LogSource, LogState

if TYPE_CHECKING:
    from .rehearsal import Rehearsal

__all__ = ["IN_DOUBT", "NOT_SENT", "logged_results"]

NOT_SENT = "not sent"
"""The outcome of an item the log has no line of."""
IN_DOUBT = "in doubt"
"""The outcome of an item whose last line is ``attempted``: sent, no answer logged."""


def logged_results(rehearsal: Rehearsal, log: LogSource) -> pd.DataFrame:
    """The results of the apply ``log`` recorded (a saved plan's: ``ActionLog(path,
    plan=saved.sha256)``, which reads its own lines only), one row per item of
    ``rehearsal.results`` (``call``, ``target``, ``outcome``, ``status``, ``error_key``), to
    pass as ``verify``'s and ``verify_touched``'s ``results`` (see the module)."""
    items = rehearsal.results
    action_log = log if isinstance(log, ActionLog) else ActionLog(log)
    calls = items["call"].astype(str) if "call" in items else [rehearsal.action] * len(items)
    states: dict[str, LogState] = {}
    rows = []
    for call, target, rehearsed in zip(
        calls, items["target"].astype(str), items["outcome"].astype(str), strict=True
    ):
        state = states.get(call)
        if state is None:
            state = states[call] = action_log.state(call)
        rows.append(_row(call, target, rehearsed, state.last.get(target)))
    frame = pd.DataFrame(rows, columns=["call", "target", "outcome", "status", "error_key"])
    return frame.astype(_DTYPES)


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
