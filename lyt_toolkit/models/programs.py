"""Programs, members, cards, pending point buckets and card transactions."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from .common import OMIT_IF_NONE, ApiModel, Metadata, Number, Open, Timestamp
from .enums import (
    ActivationStatus,
    CardDefinitionType,
    CardTransactionStatus,
    CardTransactionType,
    MemberRole,
    MemberStatus,
    PendingBucketStatus,
    PendingPointsType,
    PointsExpirationType,
    ProgramStatus,
)
from .ids import CardDefinitionId, CardId, MemberId, PendingBucketId, ProgramId
from .rewards import ValidityHours

__all__ = [
    "ActivationResult",
    "Card",
    "CardBalance",
    "CardTransaction",
    "CardTransactionDetails",
    "IdRef",
    "LifetimeBucket",
    "LifetimePendingPoints",
    "LifetimePoints",
    "Member",
    "MemberCard",
    "MemberWithCards",
    "NextActivation",
    "NextExpiration",
    "PendingBucket",
    "PointsBucket",
    "PointsTotal",
    "Program",
    "TransactionPoints",
]


class Program(ApiModel):
    """A loyalty program: the frame that members and cards belong to."""

    id: ProgramId
    name: str
    status: Open[ProgramStatus]
    start_date: Timestamp | None = None
    end_date: Timestamp | None = None
    validity_hours: Annotated[ValidityHours | None, OMIT_IF_NONE] = None
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["program"] = "program"


class Member(ApiModel):
    """A customer's membership in one program."""

    id: MemberId
    customer_id: str = Field(pattern=r"^cust_[a-zA-Z0-9]+")
    program_id: ProgramId
    status: MemberStatus
    metadata: Metadata = Field(default_factory=dict)
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["member"] = "member"


class LifetimePoints(ApiModel):
    """Running totals of every points movement a card has seen."""

    total: Number = 0
    earned: Number = 0
    added: Number = 0
    purchased: Number = 0
    purchased_reversed: Number = 0
    subtracted: Number = 0
    expired: Number = 0
    spent: Number = 0
    refunded: Number = 0
    returned: Number = 0
    locked: Number = 0
    unlocked: Number = 0


class LifetimePendingPoints(ApiModel):
    """Running totals of pending points: all, activated and canceled."""

    total: Number = 0
    activated: Number = 0
    canceled: Number = 0


class LifetimeBucket(ApiModel):
    """Lifetime counters of a card."""

    points: LifetimePoints = Field(default_factory=LifetimePoints)
    pending_points: LifetimePendingPoints = Field(default_factory=LifetimePendingPoints)


class CardBalance(ApiModel):
    """What a card holds now: spendable and pending points."""

    points: Number = 0
    pending_points: Number = 0


class NextExpiration(ApiModel):
    """The next batch of points to expire."""

    points: Number = 0
    date: dt.date


class NextActivation(ApiModel):
    """The next batch of pending points to activate."""

    points: Number = 0
    type: Open[PendingPointsType]
    date: Annotated[dt.date | None, OMIT_IF_NONE] = None
    cancel_date: Annotated[dt.date | None, OMIT_IF_NONE] = None


class Card(ApiModel):
    """A member's loyalty card; ``code`` may be null until generated."""

    id: CardId
    card_definition_id: CardDefinitionId
    card_type: CardDefinitionType = CardDefinitionType.INDIVIDUAL
    code: str | None = None
    lifetime_bucket: LifetimeBucket = Field(default_factory=LifetimeBucket)
    balance: CardBalance = Field(default_factory=CardBalance)
    next_expiration: NextExpiration | None = None
    next_activation: NextActivation | None = None
    object: Literal["card"] = "card"
    member_id: Annotated[MemberId | None, OMIT_IF_NONE] = None
    program_id: Annotated[ProgramId | None, OMIT_IF_NONE] = None


class MemberCard(ApiModel):
    """A card as listed on a member, with the member's role on it."""

    member_role: Open[MemberRole] = MemberRole.OWNER
    created_at: Timestamp
    card: Card | None = None
    object: Literal["member_card"] = "member_card"


class MemberWithCards(Member):
    """A member together with its cards, one per card definition of the program."""

    cards: list[MemberCard] = Field(default_factory=list)


class PointsTotal(ApiModel):
    """A number of points."""

    total: Number


class PendingBucket(ApiModel):
    """Points earned on a card that wait until ``date`` to become spendable."""

    id: PendingBucketId
    card_id: CardId
    card_definition_id: CardDefinitionId
    program_id: ProgramId
    card_type: CardDefinitionType = CardDefinitionType.INDIVIDUAL
    member_id: MemberId
    points: PointsTotal
    date: dt.date
    type: Open[PendingPointsType]
    status: Open[PendingBucketStatus]
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["card_pending_points_bucket"] = "card_pending_points_bucket"


class IdRef(ApiModel):
    """A bare reference to another object."""

    id: str


class TransactionPoints(ApiModel):
    """Points a transaction moved; negative for debits."""

    total: Number
    expiration_date: Annotated[dt.date | None, OMIT_IF_NONE] = None
    expiration_type: Annotated[Open[PointsExpirationType] | None, OMIT_IF_NONE] = None
    date: Annotated[dt.date | None, OMIT_IF_NONE] = None
    type: Annotated[str | None, OMIT_IF_NONE] = None


class PointsBucket(ApiModel):
    """A batch of points sharing an expiration."""

    id: str
    points: PointsTotal
    expiration_date: Annotated[dt.date | None, OMIT_IF_NONE] = None
    expiration_type: Annotated[Open[PointsExpirationType] | None, OMIT_IF_NONE] = None


class CardTransactionDetails(ApiModel):
    """Context of a card transaction; variant-specific parts are omitted when absent."""

    reason: str | None = None
    rejection: dict | None = None
    metadata: Metadata = Field(default_factory=dict)
    points: Annotated[TransactionPoints | None, OMIT_IF_NONE] = None
    bucket: Annotated[PointsBucket | None, OMIT_IF_NONE] = None
    buckets: Annotated[list[PointsBucket] | None, OMIT_IF_NONE] = None
    date: Annotated[dt.date | None, OMIT_IF_NONE] = None
    reward: Annotated[IdRef | None, OMIT_IF_NONE] = None
    reward_transaction: Annotated[IdRef | None, OMIT_IF_NONE] = None
    card_transaction: Annotated[IdRef | None, OMIT_IF_NONE] = None
    purchase: Annotated[dict | None, OMIT_IF_NONE] = None
    order: Annotated[IdRef | None, OMIT_IF_NONE] = None
    order_transaction: Annotated[IdRef | None, OMIT_IF_NONE] = None
    target_card: Annotated[IdRef | None, OMIT_IF_NONE] = None
    purchase_transaction: Annotated[IdRef | None, OMIT_IF_NONE] = None


class CardTransaction(ApiModel):
    """One movement of points on a card."""

    id: str
    card_id: CardId
    program_id: ProgramId
    member_id: MemberId
    card_definition_id: CardDefinitionId
    card_type: CardDefinitionType = CardDefinitionType.INDIVIDUAL
    type: Open[CardTransactionType]
    details: CardTransactionDetails | None = None
    status: Open[CardTransactionStatus]
    created_at: Timestamp
    updated_at: Timestamp | None = None
    object: Literal["card_transaction"] = "card_transaction"


class ActivationResult(ApiModel):
    """Outcome of activating a pending bucket: the transaction it created, if any."""

    transaction: CardTransaction | None = None
    status: ActivationStatus
    message: str
