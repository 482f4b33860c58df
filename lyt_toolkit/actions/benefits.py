"""Create benefits in bulk: from dicts, ``BenefitCreate`` bodies, a DataFrame or a CSV.

Every row is checked locally first (``lyt_toolkit.inputs``); an invalid row is
reported with the field it concerns and is never sent. The target key is the
benefit name, unique per project, so the action log can tell a benefit this
batch already created from one that was there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import APIError, DuplicateFoundError
from ..inputs import (
    FLAT_COLUMNS,
    BenefitImport,
    CheckedBenefit,
    ValidBenefits,
    benefits_from_csv,
    check_benefit_rows,
    column_for,
    flat_row_to_body,
    frame_rows,
)
from ..inputs.benefits_csv import use_plans
from ..models import BenefitCreate
from ..models.benefits import CONFIG_FIELD
from ._listed import NAMES_PER_READ, benefits_named
from ._read_once import ReadInChunks, chunk_reads
from .items import ItemResult, Outcome, PlanItem, Standing
from .plan import ActionPlan, Observer

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..models import Benefit

__all__ = [
    "FLAT_COLUMNS",
    "BenefitImport",
    "BenefitPayload",
    "CreateBenefits",
    "benefits_from_csv",
    "create_benefits",
    "flat_row_to_body",
]


@dataclass(frozen=True)
class BenefitPayload:
    """What creating one benefit sends, and whether its row came in the flat (CSV) form."""

    body: BenefitCreate
    flat: bool


class CreateBenefits(ActionPlan[BenefitPayload]):
    """Create one benefit per valid row; the target key is the benefit name."""

    action = "create_benefit"
    item_columns = {"type": "string", "benefit_status": "string"}
    rehearsal_kinds = frozenset({"benefits", "card_definitions"})
    settled_by = (DuplicateFoundError,)

    def perform(self, client: LoyaltyClient, item: PlanItem[BenefitPayload]) -> ItemResult:
        benefit = client.benefits.create(item.to_send.body)
        return ItemResult(
            Outcome.SUCCEEDED,
            resource_id=benefit.id,
            message=f"created {benefit.type.value} benefit, status {benefit.status.value}",
        )

    def observer(self, client: LoyaltyClient) -> Observer[BenefitPayload]:
        """Looks each name up: a benefit with that name and these settings is done already;
        one with other settings makes the create fail (names are unique). The plan's names
        are listed 10 a call, each listing once for all the items."""
        listed = ReadInChunks(self._names(), NAMES_PER_READ, partial(benefits_named, client))

        def observe(item: PlanItem[BenefitPayload]) -> Standing:
            wanted = item.to_send.body.body()
            named = [b for b in listed.get(item.target) if b.name == item.target]
            for benefit in named:
                if _same(wanted, benefit):
                    return Standing.already(
                        f"already exists as {benefit.id}", resource_id=benefit.id
                    )
            if named:
                return Standing(
                    f"fails: the name is taken by {named[0].id} with other settings (409)",
                    refused=True,
                )
            return Standing(item.summary)

        return observe

    def preview_reads(self, items: list[PlanItem[BenefitPayload]]) -> int:
        """The listings ``observer`` sends for ``items``: one per 10 of the plan's names
        holding one of theirs (``NAMES_PER_READ``), at least."""
        return chunk_reads(self._names(), NAMES_PER_READ, (i.target for i in items))

    def _names(self) -> list[str]:
        return [item.target for item in self.valid_items]

    def field_for(self, item: PlanItem[BenefitPayload], error: APIError) -> str | None:
        payload = item.to_send
        field = _api_field(payload.body, error)
        return column_for(field) if payload.flat else field


def _api_field(body: BenefitCreate, error: APIError) -> str | None:
    """The field of the API body a service error about ``body`` concerns."""
    config = CONFIG_FIELD[body.type]
    if error.status == 409:
        return "name"
    if error.status == 423 or error.resource_type == "card_definition":
        return f"{config}.card_definition_id" if config.startswith("points") else "status"
    if error.resource_type == "product":
        if body.material and body.material.product:
            return "material.product.id"
        return "material.sku.product_id"
    if error.resource_type == "sku":
        return "material.sku.id"
    if error.resource_type == "campaign" or error.key == "invalid_campaign_type":
        gift = body.digital is not None and body.digital.gift_vouchers is not None
        return f"digital.{'gift_vouchers' if gift else 'discount_coupons'}.campaign_id"
    return None


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


def _payload(checked: CheckedBenefit) -> BenefitPayload | None:
    return None if checked.body is None else BenefitPayload(checked.body, checked.flat)


def _items(rows: Iterable[CheckedBenefit]) -> list[PlanItem[BenefitPayload]]:
    return [
        PlanItem(
            target=checked.name,
            summary=f"create {checked.kind} benefit ({checked.status})",
            payload=_payload(checked),
            error=checked.error,
            field=checked.field,
            row=checked.row,
            columns={"type": checked.kind, "benefit_status": checked.status},
        )
        for checked in rows
    ]


def create_benefits(
    rows: BenefitImport | pd.DataFrame | BenefitCreate | Mapping[str, Any] | Iterable[Any],
) -> CreateBenefits:
    """Plan the creation of benefits.

    ``rows``: one body or many (``BenefitCreate`` or dicts in the API's shape or
    in the flat CSV shape), a DataFrame in either shape, or a ``BenefitImport``.
    Rows are numbered as in the file for an import, its valid ``rows``, or a frame
    ``read_benefits_csv`` gave (filtered or not); otherwise 1, 2, ... in order.
    """
    if isinstance(rows, BenefitImport) or (isinstance(rows, ValidBenefits) and rows.intact()):
        return CreateBenefits(_items(rows.checked))  # rows keep the file's numbers
    if isinstance(rows, pd.DataFrame):
        return CreateBenefits(_items(check_benefit_rows(frame_rows(rows))))
    if isinstance(rows, BenefitCreate | Mapping):
        rows = [rows]
    return CreateBenefits(_items(check_benefit_rows(enumerate(rows, start=1))))


use_plans(create_benefits)  # the deprecated BenefitImport.plan (until 0.5.0) plans through it
