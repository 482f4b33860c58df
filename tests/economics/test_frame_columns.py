"""The program frames' rate and settings columns that the economics read (issue 23, item 1)."""

from __future__ import annotations

import pandas as pd
from frame_reads import cell, row_of

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.frames import benefits_frame, card_definitions_frame

from .programs import GEMS, MILES, STARS, economics_program


def test_benefits_carry_their_proportional_rate(pulled: ProgramSnapshot) -> None:
    b = pulled.benefits.set_index("id")
    columns = ["proportional_basis", "proportional_every", "proportional_value",
               "proportional_property"]  # fmt: skip
    assert row_of(b, "lben_e004")[columns].tolist() == ["customer.metadata", 1, 10.0, "visits"]
    assert row_of(b, "lben_e005")[columns[:3]].tolist() == ["order_items.subtotal_amount", 200, 1.0]
    assert pd.isna(cell(b, "lben_e005", "proportional_property"))
    assert b.loc["lben_e006", columns].isna().all()  # a POINTS benefit has no rate


def test_card_definitions_carry_exchange_ratio_and_expiration(pulled: ProgramSnapshot) -> None:
    d = pulled.card_definitions.set_index("id")
    assert d.loc[STARS, "pay_with_points_exchange_ratio"] == "POINTS / 50"
    assert d.loc[STARS, "points_expiration_period_value"] == 365
    assert d.loc[STARS, "points_expiration_period_unit"] == "DAY"
    assert d.loc[STARS, "points_expiration_rounding_type"] == "END_OF_MONTH"
    assert d.loc[MILES, "points_expiration_calendar_dates"] == '[{"day":31,"month":12}]'
    settings = [c for c in d.columns if c.startswith("points_expiration_") and "type" not in c]
    assert d.loc[GEMS, [*settings, "pay_with_points_exchange_ratio"]].isna().all()


def test_pulled_frames_are_those_built_from_the_records(pulled: ProgramSnapshot) -> None:
    program = economics_program()
    built = benefits_frame(program["benefits"]).set_index("id").sort_index()
    got = pulled.benefits.set_index("id").sort_index()
    rate = [c for c in built.columns if c.startswith("proportional_")]
    pd.testing.assert_frame_equal(got[rate], built[rate])
    defs = card_definitions_frame(program["card_definitions"]).set_index("id").sort_index()
    got_defs = pulled.card_definitions.set_index("id").sort_index()
    new = [c for c in defs.columns if c.startswith(("points_expiration", "pay_with_points"))]
    pd.testing.assert_frame_equal(got_defs[new], defs[new])
