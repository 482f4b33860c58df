"""The declared schemas of a what-if's edits (``EDITS``) and of a sweep (``SWEEP``)."""

from __future__ import annotations

from enum import StrEnum

from ..frames.schema import Schema, enum, flag, integer, money, number, text

__all__ = ["EDITS", "SWEEP", "MadeBy"]


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

SWEEP = Schema(
    "what_if_sweep",
    "One row per value of a swept parameter: the headline figures with the parameter at that "
    "value, and its card definition's.",
    (
        number("value", "the parameter's value (its unit: the parameter's unit)"),
        flag("current", "true on the row of the parameter's value in the snapshot as it is"),
        money("liability_low", "liability at the low value per point"),
        money("liability_median", "liability at the median value per point"),
        money("liability_high", "liability at the high value per point"),
        number("highest_effective_return", "the highest card definition's return (median)"),
        integer("mispriced_rewards", "rewards with a mispriced cost"),
        integer("outstanding_points", "points on the cards"),
        integer("unvalued_points", "outstanding and pending points without a value per point"),
        text("card_definition_id", "the card definition the parameter edits (NA: none)"),
        number("definition_earn_points_per_unit", "its points per minor unit of spend"),
        number("definition_value_median", "its median value per point, minor units per point"),
        number("definition_return_median", "its effective return at the median value"),
        money("definition_liability_median", "its liability at the median value per point"),
        text(
            "definition_reason",
            "why its measures are NA or not what they say ('no point value observed', "
            "'rewards not pulled', ...; economics.change.definition_measures); NA when none",
        ),
    ),
)
"""``Sweep.frame``: a parameter swept over values."""
