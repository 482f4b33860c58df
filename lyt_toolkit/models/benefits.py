"""Benefits: what a tier or an earning rule grants (points, products, coupons).

A benefit carries exactly one configuration object, the one named after its
``type``. Responses are parsed leniently; :class:`BenefitCreate` enforces the
rule locally so a bad body fails before it is sent, naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .common import OMIT_IF_NONE, ApiModel, Number, Open, RequestModel, Timestamp
from .enums import (
    BenefitCreateStatus,
    BenefitStatus,
    BenefitType,
    CalculationType,
    DigitalBenefitType,
    MaterialType,
    StockType,
)
from .ids import BenefitId, CardDefinitionId
from .rewards import CampaignTarget, GiftVoucherTarget, ProductTarget, SkuTarget

__all__ = [
    "BENEFIT_TYPE_FIELDS",
    "CONFIG_FIELD",
    "DIGITAL_TYPE_FIELDS",
    "Benefit",
    "BenefitCreate",
    "BenefitDigital",
    "BenefitMaterial",
    "BenefitPoints",
    "BenefitStock",
    "BenefitTypeFields",
    "PointsProportional",
    "ProportionalEvery",
    "ProportionalItemRule",
    "ProportionalMetadata",
    "ProportionalMetadataGroup",
    "ProportionalOrder",
    "ProportionalOrderItems",
    "ProportionalTarget",
    "StockLimited",
]


@dataclass(frozen=True)
class BenefitTypeFields:
    """What one benefit type needs: its configuration object and its fields in flat form.

    The flat form (one level of named fields, as in a CSV row or a form) is
    what people fill in; ``name``, ``type``, ``status`` and ``stock_quantity``
    apply to every type and are not listed.
    """

    config: str
    fields: tuple[str, ...]


BENEFIT_TYPE_FIELDS: dict[BenefitType, BenefitTypeFields] = {
    BenefitType.POINTS: BenefitTypeFields("points", ("card_definition_id", "points_value")),
    BenefitType.POINTS_PROPORTIONAL: BenefitTypeFields(
        "points_proportional", ("card_definition_id", "order_amount_every", "order_amount_value")
    ),
    BenefitType.MATERIAL: BenefitTypeFields("material", ("product_id", "sku_id")),
    BenefitType.DIGITAL: BenefitTypeFields("digital", ("digital_type", "campaign_id", "balance")),
}
"""Each benefit type's configuration object and flat fields (``sku_id`` is optional)."""

DIGITAL_TYPE_FIELDS: dict[DigitalBenefitType, tuple[str, ...]] = {
    DigitalBenefitType.GIFT_VOUCHERS: ("campaign_id", "balance"),
    DigitalBenefitType.DISCOUNT_COUPONS: ("campaign_id",),
}
"""The flat fields each kind of DIGITAL benefit takes beside ``digital_type``."""

CONFIG_FIELD: dict[BenefitType, str] = {
    kind: fields.config for kind, fields in BENEFIT_TYPE_FIELDS.items()
}
"""The configuration object each benefit type requires."""


class StockLimited(ApiModel):
    """How many times a limited benefit can still be granted (0 = exhausted)."""

    quantity: int = Field(ge=0)


class BenefitStock(ApiModel):
    """Unlimited stock, or a limited quantity."""

    type: StockType = StockType.UNLIMITED
    limited: Annotated[StockLimited | None, OMIT_IF_NONE] = None

    @model_validator(mode="before")
    @classmethod
    def _infer_type(cls, data: Any) -> Any:
        # The create body only shows ``{limited: {...}}``; the type follows from it.
        if isinstance(data, dict) and "type" not in data and data.get("limited") is not None:
            return {**data, "type": StockType.LIMITED}
        return data


class BenefitPoints(ApiModel):
    """A fixed number of points credited to cards of one definition."""

    value: int = Field(ge=0)
    card_definition_id: CardDefinitionId


class ProportionalEvery(ApiModel):
    """``value`` points for every ``every`` units of an amount."""

    every: int = Field(ge=1)
    value: Number = Field(ge=0)


class ProportionalMetadata(ProportionalEvery):
    """``value`` points for every ``every`` units of a numeric metadata property."""

    property: str = Field(min_length=1)


class ProportionalOrder(ApiModel):
    """Order-level bases for proportional points."""

    amount: Annotated[ProportionalEvery | None, OMIT_IF_NONE] = None
    total_amount: Annotated[ProportionalEvery | None, OMIT_IF_NONE] = None
    metadata: Annotated[ProportionalMetadata | None, OMIT_IF_NONE] = None


class ProportionalMetadataGroup(ApiModel):
    """A metadata basis (customer or custom event)."""

    metadata: ProportionalMetadata


class ProportionalTarget(ApiModel):
    """An order item selector: a product, a SKU or a products collection."""

    type: str
    product: Annotated[ProductTarget | None, OMIT_IF_NONE] = None
    sku: Annotated[ProductTarget | None, OMIT_IF_NONE] = None
    products_collection: Annotated[ProductTarget | None, OMIT_IF_NONE] = None


class ProportionalItemRule(ProportionalEvery):
    """Points per unit of an item quantity or amount, for selected items."""

    applicable_to: list[ProportionalTarget] = Field(default_factory=list)


class ProportionalOrderItems(ApiModel):
    """Item-level bases for proportional points."""

    amount: Annotated[ProportionalItemRule | None, OMIT_IF_NONE] = None
    subtotal_amount: Annotated[ProportionalItemRule | None, OMIT_IF_NONE] = None
    quantity: Annotated[ProportionalItemRule | None, OMIT_IF_NONE] = None


class PointsProportional(ApiModel):
    """Points computed from an order, customer or event value."""

    calculation_type: Annotated[Open[CalculationType] | None, OMIT_IF_NONE] = None
    card_definition_id: CardDefinitionId
    order: Annotated[ProportionalOrder | None, OMIT_IF_NONE] = None
    customer: Annotated[ProportionalMetadataGroup | None, OMIT_IF_NONE] = None
    custom_event: Annotated[ProportionalMetadataGroup | None, OMIT_IF_NONE] = None
    order_items: Annotated[ProportionalOrderItems | None, OMIT_IF_NONE] = None


class BenefitMaterial(ApiModel):
    """A physical benefit: a product or one of its SKUs."""

    type: Open[MaterialType]
    product: Annotated[ProductTarget | None, OMIT_IF_NONE] = None
    sku: Annotated[SkuTarget | None, OMIT_IF_NONE] = None

    @model_validator(mode="before")
    @classmethod
    def _infer_type(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" not in data:
            kind = MaterialType.SKU if data.get("sku") is not None else MaterialType.PRODUCT
            return {**data, "type": kind}
        return data


class BenefitDigital(ApiModel):
    """A digital benefit: gift vouchers or discount coupons of a campaign."""

    type: Open[DigitalBenefitType]
    gift_vouchers: Annotated[GiftVoucherTarget | None, OMIT_IF_NONE] = None
    discount_coupons: Annotated[CampaignTarget | None, OMIT_IF_NONE] = None

    @model_validator(mode="before")
    @classmethod
    def _infer_type(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" not in data:
            gift = data.get("gift_vouchers") is not None
            kind = DigitalBenefitType.GIFT_VOUCHERS if gift else DigitalBenefitType.DISCOUNT_COUPONS
            return {**data, "type": kind}
        return data


class Benefit(ApiModel):
    """A grantable benefit as the service returns it."""

    id: BenefitId
    name: str
    type: BenefitType
    status: BenefitStatus
    stock: Annotated[BenefitStock | None, OMIT_IF_NONE] = None
    points: Annotated[BenefitPoints | None, OMIT_IF_NONE] = None
    points_proportional: Annotated[PointsProportional | None, OMIT_IF_NONE] = None
    material: Annotated[BenefitMaterial | None, OMIT_IF_NONE] = None
    digital: Annotated[BenefitDigital | None, OMIT_IF_NONE] = None
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["benefit"] = "benefit"

    @property
    def config(self) -> ApiModel | None:
        """The configuration object matching ``type``."""
        return getattr(self, CONFIG_FIELD[self.type])


def _extra_paths(model: BaseModel, prefix: str = "") -> list[str]:
    """Dotted paths of fields the caller added that the interface does not define."""
    found = [f"{prefix}{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, BaseModel):
                step = f"{name}[{i}]" if isinstance(value, list) else name
                found += _extra_paths(item, f"{prefix}{step}.")
    return found


class BenefitCreate(RequestModel):
    """The body that creates a benefit; checks the type/configuration rule locally."""

    name: str = Field(min_length=1, max_length=200)
    type: BenefitType
    status: BenefitCreateStatus = BenefitCreateStatus.DRAFT
    points: BenefitPoints | None = Field(default=None, validate_default=True)
    points_proportional: PointsProportional | None = Field(default=None, validate_default=True)
    material: BenefitMaterial | None = Field(default=None, validate_default=True)
    digital: BenefitDigital | None = Field(default=None, validate_default=True)
    stock: BenefitStock | None = None

    @field_validator("points", "points_proportional", "material", "digital", "stock")
    @classmethod
    def _check_config(cls, value: ApiModel | None, info: ValidationInfo) -> ApiModel | None:
        name = info.field_name
        if value is not None:
            extra = _extra_paths(value)
            if extra:
                raise ValueError(f"unknown field(s) {', '.join(extra)}")
        if name == "stock":
            return value
        chosen = info.data.get("type")
        if chosen is None:  # the type itself failed; that error is reported there
            return value
        if CONFIG_FIELD[chosen] == name and value is None:
            raise ValueError(f"required when type is {chosen.value}")
        if CONFIG_FIELD[chosen] != name and value is not None:
            raise ValueError(f"must be null or omitted when type is {chosen.value}")
        return value
