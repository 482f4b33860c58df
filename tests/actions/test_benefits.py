"""Creating benefits in bulk: local validation, outcomes per row, concurrency."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from frame_reads import records

from lyt_toolkit import actions
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.models import Benefit, BenefitCreate
from lyt_toolkit.sandbox import Sandbox

from .helpers import SECRETS, benefit_rows, client_with, names_on_server

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "benefits_import_example.csv"

# data line -> (outcome, status, error_key, field), per data/README.md
EXPECTED = {
    1: ("succeeded", None, None, None),
    2: ("succeeded", None, None, None),
    3: ("succeeded", None, None, None),
    4: ("succeeded", None, None, None),
    5: ("succeeded", None, None, None),
    6: ("succeeded", None, None, None),
    7: ("failed", 409, "duplicate_found", "name"),
    8: ("failed", 423, "resource_locked", "card_definition_id"),
    9: ("failed", 404, "not_found", "card_definition_id"),
    10: ("invalid", None, None, "card_definition_id"),
    11: ("invalid", None, None, "name"),
    12: ("invalid", None, None, "type"),
    13: ("invalid", None, None, "points_value"),
    14: ("failed", 404, "not_found", "product_id"),
    15: ("failed", 400, "invalid_campaign_type", "campaign_id"),
    16: ("invalid", None, None, "status"),
    17: ("invalid", None, None, "stock_quantity"),
    18: ("invalid", None, None, "name"),  # same name as row 1: caught before sending
    19: ("invalid", None, None, "name"),
}


def _outcomes(frame: pd.DataFrame) -> dict[int, tuple]:
    return {
        int(r.row): (
            r.outcome,
            None if pd.isna(r.status) else int(r.status),
            None if pd.isna(r.error_key) else r.error_key,
            None if pd.isna(r.field) else r.field,
        )
        for r in records(frame)
    }


def test_csv_rows_and_errors_name_the_column() -> None:
    rows, errors = actions.benefits_from_csv(EXAMPLE)
    assert all(isinstance(r, BenefitCreate) for r in rows)
    assert len(rows) == 11
    by_row = {int(r.row): r.field for r in errors.itertuples()}
    assert by_row == {n: e[3] for n, e in EXPECTED.items() if e[0] == "invalid"}
    assert "200" in errors.set_index("row").loc[19, "error"]
    assert "row 1" in errors.set_index("row").loc[18, "error"]


def test_csv_accepts_text_and_bytes_and_refuses_unknown_columns() -> None:
    text = EXAMPLE.read_text()
    assert len(actions.benefits_from_csv(text).rows) == 11
    assert len(actions.benefits_from_csv(text.encode()).rows) == 11
    with pytest.raises(ValueError, match=r"unknown column.*point_value"):
        actions.benefits_from_csv("name,type,point_value\nA,POINTS,3\n")


def test_preview_shows_every_row_without_sending() -> None:
    plan = actions.create_benefits(actions.benefits_from_csv(EXAMPLE))
    preview = plan.preview()
    assert len(preview) == 19
    assert preview["valid"].sum() == 11
    assert preview.set_index("row").loc[1, "will"] == "create POINTS benefit (ACTIVE)"
    assert preview.set_index("row").loc[12, "will"] == "nothing (invalid)"


def test_csv_import_end_to_end(client: LoyaltyClient, tmp_path: Path) -> None:
    plan = actions.create_benefits(actions.benefits_from_csv(EXAMPLE))
    results = plan.execute(client, concurrency=4, log=tmp_path / "log.jsonl", progress=False)
    assert _outcomes(results) == EXPECTED
    created = results[results.outcome == "succeeded"]
    for row in records(created):
        benefit = client.benefits.get(row.resource_id)
        assert benefit.name == row.target
    assert len(names_on_server(client, "Import: ")) == 6
    rendered = results.to_html() + (tmp_path / "log.jsonl").read_text()
    assert not any(secret in rendered for secret in SECRETS)


def test_one_benefit_from_a_model_or_dict(client: LoyaltyClient) -> None:
    body = BenefitCreate.model_validate(benefit_rows("Single", 1)[0])
    results = actions.create_benefits(body).execute(client, progress=False)
    assert list(results.outcome) == ["succeeded"]
    again = actions.create_benefits(body.body()).execute(client, progress=False)
    assert (again.outcome[0], again.resource_id[0]) == ("already_done", results.resource_id[0])
    other = {**body.body(), "points": {**body.body()["points"], "value": 999}}
    clash = actions.create_benefits(other).execute(client, progress=False)
    assert (clash.outcome[0], clash.status[0], clash.field[0]) == ("failed", 409, "name")


def test_api_shaped_dict_errors_keep_api_field_paths() -> None:
    row = {"name": "X", "type": "POINTS", "points": {"value": 3, "card_definition_id": "bad"}}
    preview = actions.create_benefits([row]).preview()
    assert preview.field[0] == "points.card_definition_id"


def test_dataframe_in_flat_form(client: LoyaltyClient) -> None:
    frame = pd.DataFrame(
        [
            {"name": "DF One", "type": "POINTS", "card_definition_id": "lcdef_c0ffee0001",
             "points_value": 5},
            {"name": "DF Two", "type": "POINTS_PROPORTIONAL",
             "card_definition_id": "lcdef_c0ffee0001", "order_amount_every": 100,
             "order_amount_value": 1.5},
            {"name": "DF Three", "type": "MATERIAL", "points_value": 5,
             "product_id": "prod_0b1e55ed0005"},
        ]
    )  # fmt: skip
    results = actions.create_benefits(frame).execute(client, progress=False)
    assert list(results.outcome) == ["succeeded", "succeeded", "invalid"]
    assert results.field[2] == "points_value"
    proportional = client.benefits.get(results.resource_id[1]).points_proportional
    assert proportional is not None and proportional.order is not None
    assert proportional.order.amount is not None
    assert proportional.order.amount.value == 1.5


def test_concurrent_run_equals_sequential(fresh: Sandbox, client: LoyaltyClient) -> None:
    ignore = ["resource_id", "request_id"]
    plan = actions.create_benefits(actions.benefits_from_csv(EXAMPLE))
    rows = benefit_rows("Parallel", 40)
    big = actions.create_benefits([*rows, {**rows[3], "name": "Welcome Bonus 100 Beans"}])
    sequential = [p.execute(client, concurrency=1, progress=False) for p in (plan, big)]
    sequential_names = sorted(names_on_server(client, ""))
    fresh.reset()
    parallel = [p.execute(client, concurrency=8, progress=False) for p in (plan, big)]
    for one, other in zip(sequential, parallel, strict=True):
        pd.testing.assert_frame_equal(one.drop(columns=ignore), other.drop(columns=ignore))
    assert sorted(names_on_server(client, "")) == sequential_names


def test_concurrency_is_bounded(client: LoyaltyClient) -> None:
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()
    real = client.benefits

    class Counting:
        def create(self, body: BenefitCreate) -> Benefit:
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            time.sleep(0.01)
            try:
                return real.create(body)
            finally:
                with lock:
                    state["now"] -= 1

    wrapped = client_with(client, benefits=Counting())
    results = actions.create_benefits(benefit_rows("Bounded", 30)).execute(
        wrapped, concurrency=3, progress=False
    )
    assert (results.outcome == "succeeded").all()
    assert state["peak"] == 3


def test_progress_callback_reaches_total(client: LoyaltyClient) -> None:
    seen: list[tuple[int, int]] = []
    plan = actions.create_benefits([*benefit_rows("Progress", 5), {"name": ""}])
    plan.execute(client, concurrency=2, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
