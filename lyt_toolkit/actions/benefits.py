"""Create benefits in bulk: from dicts, ``BenefitCreate`` bodies, a DataFrame or a CSV.

Every row is checked locally first (``BenefitCreate`` plus the flat CSV form's
own rules); an invalid row is reported with the field it concerns and is never
sent. The target key is the benefit name, unique per project, so the action
log can tell a benefit this batch already created from one that was there.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pydantic import ValidationError

from ..errors import APIError, DuplicateFoundError
from ..models import BenefitCreate
from ..models.benefits import CONFIG_FIELD
from ..models.enums import BenefitType, DigitalBenefitType
from .plan import ActionPlan, ItemResult, Outcome, PlanItem

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Benefit

__all__ = [
    "FLAT_COLUMNS",
    "BenefitImport",
    "CreateBenefits",
    "benefits_from_csv",
    "create_benefits",
    "flat_row_to_body",
]

FLAT_COLUMNS = (
    "name",
    "type",
    "status",
    "card_definition_id",
    "points_value",
    "product_id",
    "sku_id",
    "campaign_id",
    "digital_type",
    "balance",
    "stock_quantity",
    "order_amount_every",
    "order_amount_value",
)
"""Columns of the flat (CSV) form; ``order_amount_*`` serve POINTS_PROPORTIONAL."""

_REQUIRED_COLUMNS = ("name", "type")
_TYPE_COLUMNS: dict[str, frozenset[str]] = {
    BenefitType.POINTS: frozenset({"card_definition_id", "points_value"}),
    BenefitType.POINTS_PROPORTIONAL: frozenset(
        {"card_definition_id", "order_amount_every", "order_amount_value"}
    ),
    BenefitType.MATERIAL: frozenset({"product_id", "sku_id"}),
    BenefitType.DIGITAL: frozenset({"campaign_id", "digital_type", "balance"}),
}
_ALWAYS = frozenset({"name", "type", "status", "stock_quantity"})

# API field path (prefix) -> flat column, most specific first.
_API_TO_COLUMN: tuple[tuple[str, str], ...] = (
    ("points.value", "points_value"),
    ("points.card_definition_id", "card_definition_id"),
    ("points", "points_value"),
    ("points_proportional.order.amount.every", "order_amount_every"),
    ("points_proportional.order.amount.value", "order_amount_value"),
    ("points_proportional.order", "order_amount_every"),
    ("points_proportional", "card_definition_id"),
    ("material.sku.id", "sku_id"),
    ("material", "product_id"),
    ("digital.gift_vouchers.balance", "balance"),
    ("digital.gift_vouchers.campaign_id", "campaign_id"),
    ("digital.discount_coupons.campaign_id", "campaign_id"),
    ("digital", "digital_type"),
    ("stock", "stock_quantity"),
)


# -- the flat form ----------------------------------------------------------------------


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == ""


def _cell(row: Mapping[str, Any], column: str) -> str:
    value = row.get(column)
    if _blank(value):
        return ""
    text = str(value)
    return text if column == "name" else text.strip()


class _FlatError(ValueError):
    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


def _float(row: Mapping[str, Any], column: str, kind: str) -> float | None:
    """The cell as a float, None when blank; ``kind`` names what the column holds."""
    text = _cell(row, column)
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise _FlatError(column, f"{column} must be {kind}, got {text!r}") from None


def _whole(row: Mapping[str, Any], column: str) -> int | None:
    number = _float(row, column, "a whole number")
    if number is None:
        return None
    if not number.is_integer():
        text = _cell(row, column)
        raise _FlatError(column, f"{column} must be a whole number, got {text!r}")
    return int(number)


def _number(row: Mapping[str, Any], column: str) -> int | float | None:
    number = _float(row, column, "a number")
    if number is None:
        return None
    return int(number) if number.is_integer() else number


def _need(value: Any, column: str, kind: str) -> Any:
    if value is None or value == "":
        raise _FlatError(column, f"{column} is required for a {kind} benefit")
    return value


def flat_row_to_body(row: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one flat (CSV) row into a create body; ``ValueError`` names the column.

    Only the shape is built here; ``BenefitCreate`` checks the values.
    """
    kind = _cell(row, "type")
    body: dict[str, Any] = {"name": _cell(row, "name"), "type": kind}
    if status := _cell(row, "status"):
        body["status"] = status
    quantity = _whole(row, "stock_quantity")
    if quantity is not None:
        body["stock"] = {"limited": {"quantity": quantity}}
    if kind not in _TYPE_COLUMNS:
        return body  # BenefitCreate reports the unknown type
    for column in FLAT_COLUMNS:
        if column not in _ALWAYS and column not in _TYPE_COLUMNS[kind] and _cell(row, column):
            raise _FlatError(column, f"{column} does not apply to a {kind} benefit")
    body[CONFIG_FIELD[BenefitType(kind)]] = _config(row, BenefitType(kind))
    return body


def _card_definition(row: Mapping[str, Any], kind: str) -> str:
    return str(_need(_cell(row, "card_definition_id"), "card_definition_id", kind))


def _config(row: Mapping[str, Any], kind: BenefitType) -> dict[str, Any]:
    if kind == BenefitType.POINTS:
        return {
            "value": _need(_whole(row, "points_value"), "points_value", kind),
            "card_definition_id": _need(
                _cell(row, "card_definition_id"), "card_definition_id", kind
            ),
        }
    if kind == BenefitType.POINTS_PROPORTIONAL:
        every = _need(_whole(row, "order_amount_every"), "order_amount_every", kind)
        value = _need(_number(row, "order_amount_value"), "order_amount_value", kind)
        return {
            "card_definition_id": _need(
                _cell(row, "card_definition_id"), "card_definition_id", kind
            ),
            "order": {"amount": {"every": every, "value": value}},
        }
    if kind == BenefitType.MATERIAL:
        product = _need(_cell(row, "product_id"), "product_id", kind)
        sku = _cell(row, "sku_id")
        return {"sku": {"product_id": product, "id": sku}} if sku else {"product": {"id": product}}
    digital = _need(_cell(row, "digital_type"), "digital_type", kind)
    campaign = _need(_cell(row, "campaign_id"), "campaign_id", kind)
    if digital == DigitalBenefitType.GIFT_VOUCHERS:
        balance = _need(_number(row, "balance"), "balance", "GIFT_VOUCHERS")
        return {"gift_vouchers": {"campaign_id": campaign, "balance": balance}}
    if digital == DigitalBenefitType.DISCOUNT_COUPONS:
        if _cell(row, "balance"):
            raise _FlatError("balance", "balance applies only to GIFT_VOUCHERS")
        return {"discount_coupons": {"campaign_id": campaign}}
    allowed = ", ".join(t.value for t in DigitalBenefitType)
    raise _FlatError("digital_type", f"digital_type must be one of {allowed}, got {digital!r}")


def _column_for(path: str | None) -> str | None:
    if path is None or path in FLAT_COLUMNS:
        return path
    for prefix, column in _API_TO_COLUMN:
        if path == prefix or path.startswith(prefix + "."):
            return column
    return path


# -- checking one row ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    body: BenefitCreate | None
    flat: bool
    name: str
    kind: str
    status: str
    error: str | None = None
    field: str | None = None


def _validation_error(exc: ValidationError, flat: bool) -> tuple[str, str | None]:
    """All problems in one message, and the first one's field (a CSV column when flat)."""
    errors = exc.errors(include_url=False, include_input=False)
    parts = []
    for error in errors:
        loc: str | None = ".".join(str(p) for p in error.get("loc", ()))
        if flat:
            loc = _column_for(loc)
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{loc}: {message}" if loc else message)
    first = ".".join(str(p) for p in errors[0].get("loc", ())) or None
    return "; ".join(parts), _column_for(first) if flat else first


def _looks_flat(row: Mapping[str, Any]) -> bool:
    flat_only = set(FLAT_COLUMNS) - {"name", "type", "status"}
    return any(column in row for column in flat_only)


def _check(row: Any) -> _Checked:
    if isinstance(row, BenefitCreate):
        return _Checked(row, False, row.name, row.type.value, row.status.value)
    if not isinstance(row, Mapping):
        return _Checked(None, False, "", "", "", f"expected a dict, got {type(row).__name__}")
    flat = _looks_flat(row)
    name = _cell(row, "name")
    kind, status = _cell(row, "type"), _cell(row, "status") or "DRAFT"
    try:
        body = flat_row_to_body(row) if flat else {k: v for k, v in row.items() if not _blank(v)}
        checked = BenefitCreate.model_validate(body)
    except _FlatError as exc:
        return _Checked(None, flat, name, kind, status, exc.message, exc.column)
    except ValidationError as exc:
        message, field = _validation_error(exc, flat)
        return _Checked(None, flat, name, kind, status, message, field)
    return _Checked(checked, flat, name, kind, status)


# -- the plan -------------------------------------------------------------------------------


class CreateBenefits(ActionPlan):
    """Create one benefit per valid row; the target key is the benefit name."""

    action = "create_benefit"

    def perform(self, client: LoyaltyClient, item: PlanItem) -> ItemResult:
        benefit = client.benefits.create(item.payload.body)
        return ItemResult(
            Outcome.SUCCEEDED,
            resource_id=benefit.id,
            message=f"created {benefit.type.value} benefit, status {benefit.status.value}",
        )

    def recover(self, client: LoyaltyClient, item: PlanItem, error: APIError) -> ItemResult | None:
        """A duplicate name after an interrupted attempt: find our benefit by name."""
        if not isinstance(error, DuplicateFoundError):
            return None
        wanted = item.payload.body.body()
        for benefit in client.benefits.iter(filters={"name": {"$is": item.target}}, limit=100):
            if benefit.name == item.target and _same(wanted, benefit):
                return ItemResult(
                    Outcome.SUCCEEDED,
                    resource_id=benefit.id,
                    message="created by an interrupted earlier run (found by name)",
                )
        return None

    def field_for(self, item: PlanItem, error: APIError) -> str | None:
        body: BenefitCreate = item.payload.body
        config = CONFIG_FIELD[body.type]
        field: str | None = None
        if error.status == 409:
            field = "name"
        elif error.status == 423 or error.resource_type == "card_definition":
            field = f"{config}.card_definition_id" if config.startswith("points") else "status"
        elif error.resource_type == "product":
            field = (
                "material.product.id"
                if body.material and body.material.product
                else ("material.sku.product_id")
            )
        elif error.resource_type == "sku":
            field = "material.sku.id"
        elif error.resource_type == "campaign" or error.key == "invalid_campaign_type":
            gift = body.digital is not None and body.digital.gift_vouchers is not None
            field = f"digital.{'gift_vouchers' if gift else 'discount_coupons'}.campaign_id"
        return _column_for(field) if item.payload.flat else field


@dataclass(frozen=True)
class _Payload:
    body: BenefitCreate
    flat: bool


def _same(wanted: Any, benefit: Benefit) -> bool:
    return _subset(wanted, benefit.wire())


def _subset(wanted: Any, actual: Any) -> bool:
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(
            key in actual and _subset(value, actual[key]) for key, value in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(actual, list)
            and len(wanted) == len(actual)
            and all(_subset(w, a) for w, a in zip(wanted, actual, strict=True))
        )
    return bool(wanted == actual)


def _items(rows: Iterable[tuple[int, Any]]) -> list[PlanItem]:
    items: list[PlanItem] = []
    first_row: dict[str, int] = {}
    for number, row in rows:
        checked = _check(row)
        error, field = checked.error, checked.field
        if error is None and checked.name in first_row:
            error = (
                f"same name as row {first_row[checked.name]} of this batch;"
                " a benefit name is unique per project"
            )
            field = "name"
        elif checked.name:
            first_row.setdefault(checked.name, number)
        payload = _Payload(checked.body, checked.flat) if checked.body is not None else None
        items.append(
            PlanItem(
                target=checked.name,
                summary=f"create {checked.kind} benefit ({checked.status})",
                payload=payload,
                error=error,
                field=field,
                row=number,
                columns={"type": checked.kind, "benefit_status": checked.status},
            )
        )
    return items


# -- inputs ----------------------------------------------------------------------------------


@dataclass
class BenefitImport:
    """Rows read from a CSV: the valid bodies, and one error per invalid row.

    Unpacks as ``rows, errors = benefits_from_csv(path)``; ``plan`` keeps the
    invalid rows too, so its preview shows them next to the valid ones.
    """

    rows: list[BenefitCreate]
    errors: pd.DataFrame
    plan: CreateBenefits

    def __iter__(self) -> Iterator[Any]:
        yield self.rows
        yield self.errors


def _frame_rows(frame: pd.DataFrame) -> list[tuple[int, dict[str, Any]]]:
    records = frame.to_dict(orient="records")
    return [
        (i + 1, {str(k): v for k, v in record.items() if not _blank(v)})
        for i, record in enumerate(records)
    ]


def _read_csv(source: Any) -> pd.DataFrame:
    if isinstance(source, bytes | bytearray | memoryview):
        source = io.BytesIO(bytes(source))
    elif isinstance(source, str) and "\n" in source:
        source = io.StringIO(source)
    frame = pd.read_csv(source, dtype=str, keep_default_na=False, skipinitialspace=False)
    unknown = [c for c in frame.columns if c not in FLAT_COLUMNS]
    missing = [c for c in _REQUIRED_COLUMNS if c not in frame.columns]
    if unknown or missing:
        problems = []
        if missing:
            problems.append(f"missing column(s) {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown column(s) {', '.join(unknown)}")
        raise ValueError(
            f"benefit CSV: {'; '.join(problems)}; expected columns: {', '.join(FLAT_COLUMNS)}"
        )
    return frame


def benefits_from_csv(source: str | os.PathLike[str] | bytes | io.IOBase) -> BenefitImport:
    """Read a benefit import CSV (a path, its text, its bytes or an open file).

    Rows are numbered from 1 for the first data line. A missing or unknown
    column is a ``ValueError`` for the whole file (a typo would silently drop data).
    """
    if isinstance(source, Path):
        source = str(source)
    frame = _read_csv(source)
    plan = CreateBenefits(_items(_frame_rows(frame)))
    valid = [item.payload.body for item in plan.valid_items]
    errors = pd.DataFrame(
        [
            {"row": i.row, "name": i.target, "field": i.field, "error": i.error}
            for i in plan.invalid_items
        ],
        columns=["row", "name", "field", "error"],
    )
    errors["row"] = pd.array(errors["row"], dtype="Int64")
    for column in ("name", "field", "error"):
        errors[column] = errors[column].astype("string")
    return BenefitImport(valid, errors, plan)


def create_benefits(
    rows: BenefitImport | pd.DataFrame | BenefitCreate | Mapping[str, Any] | Iterable[Any],
) -> CreateBenefits:
    """Plan the creation of benefits.

    ``rows``: one body or many (``BenefitCreate`` or dicts in the API's shape or
    in the flat CSV shape), a DataFrame in either shape, or a ``BenefitImport``.
    """
    if isinstance(rows, BenefitImport):
        return CreateBenefits(rows.plan.items)
    if isinstance(rows, pd.DataFrame):
        return CreateBenefits(_items(_frame_rows(rows)))
    if isinstance(rows, BenefitCreate | Mapping):
        rows = [rows]
    return CreateBenefits(_items((i + 1, row) for i, row in enumerate(rows)))
