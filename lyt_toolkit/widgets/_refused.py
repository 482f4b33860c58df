"""A panel's writes its action log shows refused for good (404, 409, 423: logged final).

A run with the log does not send such a write again until the log says it is reconsidered
(``ActionLog.reconsider``): what the panel's Send refused writes again box has its Apply do,
reading the log as reconsidered and writing that line with its first write
(``ActionLog.as_reconsidered``), so an Apply that ends before sending any leaves the refusals
standing. Without a log nothing is logged final, so every refused write is sent again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .._text import counted, figure
from ..actions.ledger import refused_for_good
from ..actions.log import ActionLog, log_state, reading_once

if TYPE_CHECKING:
    from ..actions import ChangePlan
    from ..actions.log import LogSource

__all__ = [
    "SEND_AGAIN",
    "STILL_HELD",
    "reconsidered",
    "refused_in",
    "refused_left",
    "refused_results",
    "skipped_note",
    "still_held",
]

SEND_AGAIN = "Send refused writes again"
"""The box that has an Apply reconsider the log's refusals for good."""
STILL_HELD = (
    f"no write was sent, so the writes refused for good before are held still and {SEND_AGAIN}"
    " stays ticked: the next Apply sends them (untick it to keep them held)"
)
"""What the status adds once an Apply with the box ticked ended before sending any write:
the box stays ticked, the user's choice carried to their next Apply."""
NOT_SENT = "not sent again: refused for good"
"""How the message of a write a run did not send, its log showing it refused for good,
starts (``actions.ActionPlan.execute``)."""


def refused_in(plan: ChangePlan, log: LogSource | None) -> int:
    """How many of ``plan``'s writes ``log`` shows refused for good (not sent again until
    the log is reconsidered); 0 without a log, or one that cannot be read (the Apply says
    why)."""
    if log is None:
        return 0
    try:
        with reading_once(log) as read:  # read whole once, however many parts read it
            return sum(
                len({item.target for item in part.valid_items}.intersection(state.refused))
                for part in plan.parts
                for state in [log_state(read, part.action, items=part.items)]
            )
    except (OSError, ValueError):
        return 0


def reconsidered(log: LogSource, reconsider: bool) -> LogSource:
    """``log`` as an Apply reads it: itself, or with ``reconsider`` a new ``ActionLog`` read as
    it will read once its refusals for good are reconsidered, that line written only with the
    first write of a run with it (``ActionLog.as_reconsidered``)."""
    if not reconsider:
        return log
    return (log if isinstance(log, ActionLog) else ActionLog(log)).as_reconsidered()


def still_held(read: LogSource | None) -> bool:
    """Whether the log an Apply ``read`` as reconsidered (``reconsidered``) still waits for
    its first write: the Apply sent none, and the log's refusals for good stand."""
    return isinstance(read, ActionLog) and read.reconsidered


def refused_results(results: pd.DataFrame, log: LogSource | None) -> pd.Series:
    """Which of an Apply's ``results`` are writes refused for good that its ``log`` keeps from
    being sent again (none without a log)."""
    if log is None or not len(results):
        return pd.Series(False, index=results.index)
    return refused_for_good(results)


def skipped_note(count: int) -> str:
    """What a plain Apply does with ``count`` writes the log shows refused for good."""
    return (
        f"{counted(count, 'write')} refused for good before, not sent again (tick"
        f" {SEND_AGAIN} to send {'it' if count == 1 else 'them'})"
    )


def refused_left(refused: pd.DataFrame) -> str:
    """The status's note after an Apply whose ``refused`` results are writes refused for
    good (``refused_results``): how many, how many of them it did not send (refused by an
    earlier Apply), and what sends them."""
    count = len(refused)
    them = "it" if count == 1 else "them"
    skipped = int(refused["message"].astype(str).str.startswith(NOT_SENT).sum())
    held = f"{figure(skipped)} of them refused before, not sent this time; " if skipped else ""
    return (
        f"{counted(count, 'write')} refused for good ({held}listed as such under Not"
        f" applied): a plain Apply does not send {them} again; put right what refused {them},"
        f" then tick {SEND_AGAIN} and Apply"
    )
