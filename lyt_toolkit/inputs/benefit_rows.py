"""Benefit rows checked locally: the flat (CSV) form, numbers in it, and every row's error.

A row is a ``BenefitCreate``, a dict in the API's shape, or a dict in the flat
form (one level of named columns, as in a CSV). Each is checked with
``BenefitCreate`` plus the flat form's own rules; an invalid row keeps its
error and the field it concerns (a flat column when the row was flat).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pandas as pd
from pydantic import ValidationError

from ..frames.parse import missing, parse_choice, parse_number, parse_whole
from ..models import BenefitCreate
from ..models.benefits import BENEFIT_TYPE_FIELDS, CONFIG_FIELD
from ..models.enums import BenefitCreateStatus, BenefitType, DigitalBenefitType

__all__ = [
    "FLAT_COLUMNS",
    "CheckedBenefit",
    "check_benefit_rows",
    "column_for",
    "flat_row_to_body",
    "frame_rows",
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


# -- cells and numbers --------------------------------------------------------------------


def _cell(row: Mapping[str, Any], column: str) -> str:
    """The cell's text ("" when missing); a name as typed, other cells stripped."""
    value = row.get(column)
    if missing(value):
        return ""
    text = str(value)
    return text if column == "name" else text.strip()


class _FlatError(ValueError):
    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


def _parsed(row: Mapping[str, Any], column: str, parse: Callable[[str], Any]) -> Any:
    """The cell (as typed) parsed by ``parse``, None when blank; ``_FlatError`` names the
    column, then the value and why, as every typed value's refusal does."""
    if not _cell(row, column):
        return None
    try:
        return parse(str(row[column]))
    except ValueError as exc:
        raise _FlatError(column, f"{column}: {exc}") from None


def _choice(row: Mapping[str, Any], column: str, choices: type[StrEnum]) -> str:
    """One of ``choices`` (their values), "" when blank."""
    values = [c.value for c in choices]
    value: str | None = _parsed(row, column, lambda text: parse_choice(text, values))
    return value or ""


def _whole(row: Mapping[str, Any], column: str) -> int | None:
    """An exact whole number within signed 64 bits (the rules: ``frames.parse``)."""
    value: int | None = _parsed(row, column, parse_whole)
    return value


def _number(row: Mapping[str, Any], column: str) -> int | float | None:
    """A whole number (exact) or a finite decimal."""
    value: int | float | None = _parsed(row, column, parse_number)
    return value


def _need(value: Any, column: str, kind: str) -> Any:
    if value is None or value == "":
        raise _FlatError(column, f"{column} is required for a {kind} benefit")
    return value


# -- the flat form ------------------------------------------------------------------------


def flat_row_to_body(row: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one flat (CSV) row into a create body; ``ValueError`` names the column.

    Only the shape is built here; ``BenefitCreate`` checks the values.
    """
    kind = _choice(row, "type", BenefitType)
    body: dict[str, Any] = {"name": _cell(row, "name"), "type": kind}
    if status := _choice(row, "status", BenefitCreateStatus):
        body["status"] = status
    quantity = _whole(row, "stock_quantity")
    if quantity is not None:
        body["stock"] = {"limited": {"quantity": quantity}}
    if kind not in BENEFIT_TYPE_FIELDS:
        return body  # BenefitCreate reports the unknown type
    fields = BENEFIT_TYPE_FIELDS[BenefitType(kind)].fields
    for column in FLAT_COLUMNS:  # a column the row lacks is blank: left unread
        if column in row and column not in _ALWAYS and column not in fields and _cell(row, column):
            raise _FlatError(column, f"{column} does not apply to a {kind} benefit")
    body[CONFIG_FIELD[BenefitType(kind)]] = _config(row, BenefitType(kind))
    return body


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
    digital = _need(_choice(row, "digital_type", DigitalBenefitType), "digital_type", kind)
    campaign = _need(_cell(row, "campaign_id"), "campaign_id", kind)
    if digital == DigitalBenefitType.GIFT_VOUCHERS:
        balance = _need(_number(row, "balance"), "balance", "GIFT_VOUCHERS")
        return {"gift_vouchers": {"campaign_id": campaign, "balance": balance}}
    if _cell(row, "balance"):  # DISCOUNT_COUPONS
        raise _FlatError("balance", "balance applies only to GIFT_VOUCHERS")
    return {"discount_coupons": {"campaign_id": campaign}}


def column_for(path: str | None) -> str | None:
    """The flat column an API field path (``points.value``) is about; other paths as given."""
    if path is None or path in FLAT_COLUMNS:
        return path
    for prefix, column in _API_TO_COLUMN:
        if path == prefix or path.startswith(prefix + "."):
            return column
    return path


# -- checking rows ------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckedBenefit:
    """One input row after the local check: its body, or why it has none."""

    row: int
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
            loc = column_for(loc)
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{loc}: {message}" if loc else message)
    first = ".".join(str(p) for p in errors[0].get("loc", ())) or None
    return "; ".join(parts), column_for(first) if flat else first


def _looks_flat(row: Mapping[str, Any]) -> bool:
    flat_only = set(FLAT_COLUMNS) - {"name", "type", "status"}
    return any(column in row for column in flat_only)


def _check(number: int, row: Any) -> CheckedBenefit:
    if isinstance(row, BenefitCreate):
        return CheckedBenefit(number, row, False, row.name, row.type.value, row.status.value)
    if not isinstance(row, Mapping):
        error = f"expected a dict, got {type(row).__name__}"
        return CheckedBenefit(number, None, False, "", "", "", error)
    flat = _looks_flat(row)
    name = _cell(row, "name")
    kind, status = _cell(row, "type"), _cell(row, "status") or "DRAFT"
    try:
        body = flat_row_to_body(row) if flat else {k: v for k, v in row.items() if not missing(v)}
        checked = BenefitCreate.model_validate(body)
    except _FlatError as exc:
        return CheckedBenefit(number, None, flat, name, kind, status, exc.message, exc.column)
    except ValidationError as exc:
        message, field = _validation_error(exc, flat)
        return CheckedBenefit(number, None, flat, name, kind, status, message, field)
    return CheckedBenefit(number, checked, flat, name, kind, status)


def check_benefit_rows(rows: Iterable[tuple[int, Any]]) -> list[CheckedBenefit]:
    """Check numbered rows; a name repeating an earlier row's is an error of the later one."""
    checked_rows: list[CheckedBenefit] = []
    first_row: dict[str, int] = {}
    for number, row in rows:
        checked = _check(number, row)
        if checked.error is None and checked.name in first_row:
            error = (
                f"same name as row {first_row[checked.name]} of this batch;"
                " a benefit name is unique per project"
            )
            checked = dataclasses.replace(checked, error=error, field="name")
        elif checked.name:
            first_row.setdefault(checked.name, number)
        checked_rows.append(checked)
    return checked_rows


def frame_rows(frame: pd.DataFrame) -> list[tuple[int, dict[str, Any]]]:
    """A DataFrame's rows as dicts, blank cells left out, each with its row number: the
    index where it is named ``row`` (as ``read_benefits_csv`` gives, so a filtered frame
    keeps the file's numbers), else 1, 2, ... by position."""
    records = frame.to_dict(orient="records")
    if frame.index.name == "row":
        numbers = [int(n) for n in frame.index]
    else:
        numbers = list(range(1, len(records) + 1))
    return [
        (number, {str(k): v for k, v in record.items() if not missing(v)})
        for number, record in zip(numbers, records, strict=True)
    ]
