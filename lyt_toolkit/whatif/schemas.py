"""The declared schema of a what-if's edits (``EDITS``)."""

from __future__ import annotations

from enum import StrEnum

from ..frames.schema import Schema, enum, text

__all__ = ["EDITS", "MadeBy"]


class MadeBy(StrEnum):
    """Who can make an edit real: the service (a call the plan sends) or only the
    service's dashboard (no call changes it)."""

    SERVICE = "service"
    DASHBOARD = "dashboard"


EDITS = Schema(
    "what_if_edits",
    "One row per edited cell, new row or removed row of a what-if: what changes and who can "
    "make it real.",
    (
        text("kind", "the frame edited (rewards, reward_costs, benefits, ...)"),
        text("key", "the row's key (its ID; reward costs: reward/cost/spending index)"),
        text("column", "the column edited (NA: a whole row created or deleted)"),
        text("before", "the value before, as text"),
        text("after", "the value after, as text"),
        enum("made_by", MadeBy, "service: the plan makes it; dashboard: no call can"),
        text("call", "made_by service: the plan's call that makes it"),
        text("reason", "made_by dashboard: why the service cannot make it"),
    ),
)
"""``WhatIf.edits``: the edit's changes, each with who can make it."""
