"""Row numbers are the file's (1: the first line below the header, blank lines counted)
in the error list, the plan's preview and the execution's results alike."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.inputs import (
    BenefitImport,
    ValidBenefits,
    benefits_from_csv,
    read_benefits_csv,
)
from lyt_toolkit.sandbox import Sandbox

CARD = "lcdef_c0ffee0001"
# Data rows: 1 ok, 2 bad points, 3 blank, 4 ok, 5 missing type, 6 ok.
CSV = (
    "name,type,status,card_definition_id,points_value\n"
    f"Rows: first,POINTS,DRAFT,{CARD},10\n"
    f"Rows: bad points,POINTS,DRAFT,{CARD},1e3\n"
    "\n"
    f"Rows: fourth,POINTS,DRAFT,{CARD},40\n"
    f"Rows: no type,,DRAFT,{CARD},50\n"
    f"Rows: sixth,POINTS,DRAFT,{CARD},60\n"
)
VALID = {"Rows: first": 1, "Rows: fourth": 4, "Rows: sixth": 6}
INVALID = {"Rows: bad points": 2, "Rows: no type": 5}


def _rows_by_name(frame: object) -> dict[str, int]:
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    return {str(t): int(r) for t, r in zip(frame["target"], frame["row"], strict=True)}


def test_the_error_list_names_the_files_rows() -> None:
    _, errors = benefits_from_csv(CSV)
    assert dict(zip(errors["name"], errors["row"].astype(int), strict=True)) == INVALID


@pytest.mark.parametrize(
    "made_from",
    ["the import", "its valid rows", "the read frame", "a filtered frame"],
)
def test_preview_and_results_keep_the_files_rows(
    made_from: str,
    restore: Sandbox,
    make_client: Callable[..., LoyaltyClient],
) -> None:
    imported = benefits_from_csv(CSV)
    rows, _ = imported
    assert isinstance(rows, ValidBenefits)
    frame = read_benefits_csv(CSV)
    sources: dict[str, BenefitImport | ValidBenefits | pd.DataFrame] = {
        "the import": imported,
        "its valid rows": rows,  # the README's `rows, errors = ...; create_benefits(rows)`
        "the read frame": frame,
        "a filtered frame": frame[frame["points_value"] != "10"],
    }
    source = sources[made_from]
    expected = {**VALID, **INVALID} if made_from != "its valid rows" else dict(VALID)
    if made_from == "a filtered frame":
        del expected["Rows: first"]

    plan = actions.create_benefits(source)
    assert _rows_by_name(plan.preview(progress=False)) == expected
    with make_client(restore) as client:
        results = plan.execute(client, progress=False)
    assert _rows_by_name(results) == expected
    created = results[results["outcome"] == "succeeded"]
    assert set(created["target"]) == set(VALID) & set(expected)
    with make_client(restore) as client:
        names = set(client.benefits.frame()["name"])
    assert set(VALID) & set(expected) <= names


def test_a_changed_list_of_rows_is_numbered_in_order() -> None:
    rows, _ = benefits_from_csv(CSV)
    rows.pop(0)
    preview = actions.create_benefits(rows).preview(progress=False)
    assert _rows_by_name(preview) == {"Rows: fourth": 1, "Rows: sixth": 2}
