"""The refusal of an unpaced apply at the whole window (``budget_share=1.0``) whose window
fell between its parts: another client's calls, or the project's plan lowered, left less
than a part still to send once the parts before it were sent.

Such an apply is held to no share (``change_plan._within_share``): each part checks its own
calls against the window as it starts, and the first that no longer fits is refused before
it sends a call. The part's own refusal offers ``allow_partial=True``, which an apply does not
take; this one says what happened instead and how to go on: the parts before it are made and
in the log, so the same apply run again with the same log after the reset sends the rest,
none twice (or ``paced=True`` sends it across windows).
"""

from __future__ import annotations

from .._text import counted
from ..errors import BudgetExceededError
from .cost import PlanCost

__all__ = ["window_fell"]


def window_fell(
    refused: BudgetExceededError, action: str, items: int, made: int, logged: bool
) -> BudgetExceededError:
    """``refused``, the refusal of the part of ``action`` (``items`` items) raised as it
    started, worded for the apply: the window fell since its check, ``made`` writes of the
    parts before are made, and (``logged``: the apply has a log) running it again with the
    same log after the reset resumes it."""
    before = f"{counted(made, 'write')} of its parts before are made"
    if logged:
        how = (
            f"{before}, in its log: run the apply again with the same log after the reset to"
            " send the rest, none of those again"
        )
    else:
        how = f"{before}, with no log to resume from: pull again and plan the rest afresh"
    what = (
        "The window fell since the apply's check (another client's calls, or the project's"
        f" plan lowered): {how}; its {action} part ({counted(items, 'item')}) is"
    )
    cost = PlanCost(
        refused.needed, refused.remaining, refused.limit, refused.resets_at, share=refused.share
    )
    return cost.refusal(what, partial=False, paced=logged)
