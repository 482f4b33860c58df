"""The staleness check hashes the live rows it re-read a frame at a time, over real HTTP: each
hash the one ``row_hash`` gives the row alone, and a plan of hundreds checked (and, stale,
re-planned for review) in a bounded number of frame conversions and column comparisons, not
one a row."""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan, touched
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import one_card_of_many_buckets, pull

KINDS = ("rewards", "pending_buckets", "tier_structures", "card_definitions", "benefits")


def _varied(frame: pd.DataFrame) -> list[pd.DataFrame]:
    """One-row frames of ``frame``: each row as pulled, and the first row again with each
    integer column as float (10 as 10.0 in JSON) and with a value gone: rows of one kind
    whose JSON differs by dtype (a frame of them all would hold 10.0 for each)."""
    rows = [frame.iloc[[at]] for at in range(len(frame))]
    first = rows[0]
    numbers = [c for c in first.columns if pd.api.types.is_integer_dtype(first[c])]
    floats = first.astype(dict.fromkeys(numbers, "float64"))
    gone = first.copy()
    gone[first.columns[-1]] = None
    return [*rows, floats, gone]


def test_rows_hashed_together_hash_as_each_row_alone(client: LoyaltyClient) -> None:
    snapshot = pull(client)
    rows = [(kind, row) for kind in KINDS for row in _varied(getattr(snapshot, kind))]
    random.Random(7).shuffle(rows)  # kinds, columns and dtypes interleaved
    assert len({(kind, tuple(row.dtypes)) for kind, row in rows}) > len(KINDS)
    assert touched.rows_hashed(rows) == [touched.row_hash(kind, row) for kind, row in rows]


def test_a_stale_check_of_hundreds_converts_a_few_frames_not_one_a_row(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """The check hashed each live row as a frame of its own (a conversion to JSON each), and
    so did the plan re-planned for review: 5,304 objects at 20,000 members spent a minute of
    CPU before the first write. The counts tell that apart at 600 buckets (six pages): work
    done a row at a time counts 600, far over each bound."""
    program = one_card_of_many_buckets(600)
    program["members"][0]["status"] = "ACTIVE"  # its buckets activated, not locked
    with start_sandbox(data=program) as sb, make_client(sb) as client:
        snapshot = pull(client)
        edit = actions.edit(snapshot)
        edit.pending_buckets["status"] = "ACTIVATED"
        edit.plan().save(tmp_path / "plan.json")
        taken = snapshot.pending_buckets.iloc[0]  # activated by someone else since
        client.pending_buckets.activate(
            taken.program_id, taken.member_id, taken.card_id, taken["id"]
        )
        sb.settle()

        conversions = []
        to_json = pd.DataFrame.to_json

        def counted(frame: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
            conversions.append(len(frame))
            return to_json(frame, *args, **kwargs)

        comparisons = []  # a column compared whole, as finding one row by ID did each time
        equals = pd.Series.__eq__

        def compared(column: pd.Series, other: Any) -> Any:
            comparisons.append(len(column))
            return equals(column, other)

        takes = []  # rows copied out of a frame, as each re-read bucket's row was
        take = pd.DataFrame.take

        def copied(frame: pd.DataFrame, indices: Any, *args: Any, **kwargs: Any) -> Any:
            takes.append(len(indices))
            return take(frame, indices, *args, **kwargs)

        with (
            pytest.MonkeyPatch.context() as patch,
            pytest.raises(StalePlanError) as stale,
        ):
            patch.setattr(pd.DataFrame, "to_json", counted)
            patch.setattr(pd.Series, "__eq__", compared)
            patch.setattr(pd.DataFrame, "take", copied)
            saved = ChangePlan.load(tmp_path / "plan.json")
            saved.apply(client, progress=False)

    assert stale.value.stale == [
        f"pending_buckets {taken['id']} (no longer PENDING: activated or canceled"
        " (not on its card's list))"
    ]
    assert len(conversions) < 10, f"{len(conversions)} frame conversions"  # not one a row
    assert len(comparisons) < 100, f"{len(comparisons)} columns compared"  # not one a row
    assert len(takes) < 100, f"{len(takes)} takes"  # not one a row
    assert stale.value.replanned is not None
    hashed = {t["key"]: t["sha256"] for t in ChangePlan.load(stale.value.replanned).touched}
    base = {t["key"]: t["sha256"] for t in saved.touched}  # the file's, as the apply loaded it
    assert hashed == {key: sha256 for key, sha256 in base.items() if key != taken["id"]}
