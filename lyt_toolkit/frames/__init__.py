"""Program data as typed pandas DataFrames, one declared schema per kind.

Pure functions turn models (or the API's JSON dicts) into frames whose columns
and dtypes never depend on the data: see ``SCHEMAS``, ``describe_schema(kind)``
and the frame schemas page of the docs. ``client.rewards.frame()``
and friends pull a kind through the client and build it here. ``sample`` draws a stratified
sample of the members list and estimates program totals from it, with 95 % intervals.
"""

from .benefits import benefits_frame
from .definitions import card_definitions_frame, tier_structures_frame
from .members import cards_frame, members_frame, pending_buckets_frame, programs_frame
from .registry import (
    BUILDERS,
    FRAME_NAMES,
    SCHEMAS,
    describe_schema,
    empty_frame,
    schema,
    schemas_markdown,
)
from .rewards import reward_costs_frame, rewards_frame
from .sample import Estimate, Sample, SampleDesign, draw_sample, estimate_total, estimate_totals
from .schema import Column, Schema

__all__ = [
    "BUILDERS",
    "FRAME_NAMES",
    "SCHEMAS",
    "Column",
    "Estimate",
    "Sample",
    "SampleDesign",
    "Schema",
    "benefits_frame",
    "card_definitions_frame",
    "cards_frame",
    "describe_schema",
    "draw_sample",
    "empty_frame",
    "estimate_total",
    "estimate_totals",
    "members_frame",
    "pending_buckets_frame",
    "programs_frame",
    "reward_costs_frame",
    "rewards_frame",
    "schema",
    "schemas_markdown",
    "tier_structures_frame",
]
