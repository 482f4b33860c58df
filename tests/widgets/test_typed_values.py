"""One way to read a typed value: the same text typed into the editable grid, into an
edited export's CSV, or set as text into an edited frame in pandas is the same value, or
is refused with the same message (the demo program pulled over real HTTP)."""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.actions import EditError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.reports import SnapshotFileError, read_edited_frames
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.widgets import EditPanel

MISSING = object()

CASES = [
    ("name", "   ", MISSING),  # a cell of spaces only is empty, text too
    ("name", " Spaced  Name ", " Spaced  Name "),  # text is kept as typed
    ("points_value", " ", MISSING),
    ("points_value", "5.0", 5),
    ("points_value", " 1234567890123456789 ", 1234567890123456789),
    ("points_value", "\uff11\uff12", 12),  # full-width 12
    ("points_value", "5.5", "'5.5' is not a whole number"),
    ("points_value", "1,000", "'1,000' has digit group separators: write 1000"),
    ("points_value", "1E+18", "'1E+18' is in scientific notation"),
    ("points_value", "9223372036854775808", "'9223372036854775808' is beyond the signed 64-bit"),
    ("digital_gift_voucher_balance", "2.50", 2.5),
    ("digital_gift_voucher_balance", "lots", "'lots' is not a number"),
    ("card_definition_found", "TRUE", True),
    ("card_definition_found", "1", "'1' is not True or False"),
    ("created_at", "2026-01-15 12:00", pd.Timestamp("2026-01-15T12:00Z")),
    ("created_at", "15/01/2026", "'15/01/2026' is not an ISO 8601 instant"),
    ("status", "PAUSED", "'PAUSED' is not one of"),
]


def in_csv(snapshot: ProgramSnapshot, tmp_path: Path, column: str, text: str) -> Any:
    """The value the edited export reads from ``text`` in the first benefit's ``column``,
    or the message of its refusal (after the file, row and column it names)."""
    snapshot.to_csv(tmp_path)
    path = tmp_path / "benefits.csv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0][column] = text
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    try:
        return read_edited_frames(tmp_path)["benefits"].loc[1, column]
    except SnapshotFileError as exc:
        return str(exc).removeprefix(f"{path}: row 1, column {column!r}: ")


def in_pandas(snapshot: ProgramSnapshot, column: str, text: str) -> Any:
    """The value a plan reads from ``text`` set into the first benefit's ``column``, or the
    message of its refusal (after the frame, row and column it names)."""
    edit = actions.edit(snapshot)
    frame = edit.benefits.astype({column: object})
    label = frame.index[0]
    frame.loc[label, column] = text
    try:
        return actions.edited_frames.conformed("benefits", snapshot.benefits, frame).loc[
            label, column
        ]
    except EditError as exc:
        return str(exc).removeprefix(f"benefits row {label}, column {column!r}: ")


def in_grid(snapshot: ProgramSnapshot, client: LoyaltyClient, column: str, text: str) -> Any:
    """The value the editable grid holds after ``text`` is typed into the first benefit's
    ``column``, or the message Plan shows (after the frame, row and column it names)."""
    panel = EditPanel(snapshot, client, kind="benefits")
    assert panel.grid.set_cell_value_by_index(column, 0, text)
    panel.plan_button.click()
    panel.wait()
    label = panel.frame_of("benefits").index[0]
    status = html.unescape(re.sub(r"<[^>]+>", "", panel.status.value))
    where = f"Cannot plan: benefits row {label}, column {column!r}: "
    if where in status:
        return status.split(where, 1)[1]
    assert panel.plan is not None, status
    assert panel.edit.benefits.dtypes.equals(snapshot.benefits.dtypes)
    return panel.edit.benefits.loc[label, column]


@pytest.mark.parametrize(("column", "text", "expected"), CASES)
def test_a_typed_value_reads_the_same_in_the_grid_the_edited_csv_and_pandas(
    client: LoyaltyClient,
    fresh_pulled: ProgramSnapshot,
    tmp_path: Path,
    column: str,
    text: str,
    expected: Any,
) -> None:
    snapshot = fresh_pulled  # what a pull of client's sandbox gives (pulled once a module)
    got = {
        "grid": in_grid(snapshot, client, column, text),
        "edited CSV": in_csv(snapshot, tmp_path, column, text),
        "pandas": in_pandas(snapshot, column, text),
    }
    for where, value in got.items():
        if expected is MISSING:
            assert pd.isna(value), (where, value)
        elif column == "name":
            assert value == expected, (where, value)
        elif isinstance(expected, str):
            assert isinstance(value, str) and value.startswith(expected), (where, value)
        else:
            assert value == expected and not isinstance(value, str), (where, value)
    assert len({str(v) for v in got.values()}) == 1, got
