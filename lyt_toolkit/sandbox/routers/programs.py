"""Programs, members with their cards, pending point buckets and their activation."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import BackgroundTasks, Depends, Request, Response

from ...models.enums import (
    ActivationStatus,
    CardTransactionStatus,
    CardTransactionType,
    MemberStatus,
    PendingBucketStatus,
    PendingPointsType,
    ProgramStatus,
)
from ...models.ids import IdPrefix
from ...models.listing import MEMBERS, PENDING_BUCKETS, PROGRAMS
from ..errors import locked, not_found
from ..loader import store_resource
from ..state import SandboxState, get_state
from .common import PAGING, id_path, list_answer, loyalty_router, require

router = loyalty_router("/programs")

ProgramPath = Annotated[str, id_path(IdPrefix.PROGRAM, "program ID")]
MemberPath = Annotated[str, id_path(IdPrefix.MEMBER, "member ID")]
CardPath = Annotated[str, id_path(IdPrefix.CARD, "card ID")]
BucketPath = Annotated[str, id_path(IdPrefix.PENDING_BUCKET, "pending points bucket ID")]


@router.get("", dependencies=[PAGING])
def list_programs(request: Request, state: SandboxState = Depends(get_state)) -> Response:
    return list_answer(request, state, "programs", PROGRAMS)


@router.get("/{programId}")
def get_program(programId: ProgramPath, state: SandboxState = Depends(get_state)) -> dict[str, Any]:
    return require(state, "programs", programId, "program")


@router.get("/{programId}/members", dependencies=[PAGING])
def list_members(
    programId: ProgramPath,
    request: Request,
    state: SandboxState = Depends(get_state),
) -> Response:
    require(state, "programs", programId, "program")
    return list_answer(request, state, "members", MEMBERS, scope=programId)


@router.get("/{programId}/members/{memberId}")
def get_member(
    programId: ProgramPath, memberId: MemberPath, state: SandboxState = Depends(get_state)
) -> dict[str, Any]:
    """A member with its cards."""
    require(state, "programs", programId, "program")
    member = require(state, "members", memberId, "member", scope=programId)
    cards = state.store.all("cards", scope=memberId)
    return {**member, "cards": [_member_card(card) for card in cards]}


def _member_card(card: dict[str, Any]) -> dict[str, Any]:
    internal = {"member_id", "program_id", "member_role", "created_at"}
    simple = {k: v for k, v in card.items() if k not in internal}
    simple.setdefault("object", "card")
    return {
        "member_role": card.get("member_role", "OWNER"),
        "created_at": card.get("created_at"),
        "card": simple,
        "object": "member_card",
    }


def _card_in_path(
    state: SandboxState, program_id: str, member_id: str, card_id: str
) -> tuple[dict, dict, dict]:
    """Program, member and card, each 404 when missing or not on this path."""
    program = require(state, "programs", program_id, "program")
    member = require(state, "members", member_id, "member", scope=program_id)
    card = require(state, "cards", card_id, "card", scope=member_id)
    return program, member, card


@router.get("/{programId}/members/{memberId}/cards/{cardId}/pending-points", dependencies=[PAGING])
def list_pending_buckets(
    programId: ProgramPath,
    memberId: MemberPath,
    cardId: CardPath,
    request: Request,
    state: SandboxState = Depends(get_state),
) -> Response:
    _card_in_path(state, programId, memberId, cardId)
    return list_answer(request, state, "pending_buckets", PENDING_BUCKETS, scope=cardId)


@router.post("/{programId}/members/{memberId}/cards/{cardId}/pending-points/{bucketId}/activate")
def activate_pending_bucket(
    programId: ProgramPath,
    memberId: MemberPath,
    cardId: CardPath,
    bucketId: BucketPath,
    background: BackgroundTasks,
    state: SandboxState = Depends(get_state),
) -> dict[str, Any]:
    """Activate a bucket ahead of its date; the transaction completes in the background."""
    with state.store.transaction():
        program, member, card = _card_in_path(state, programId, memberId, cardId)
        bucket = state.store.get("pending_buckets", bucketId, scope=cardId)
        if bucket is None:
            raise not_found("pending_points_bucket", bucketId)
        _check_activation(state, program, member, card, bucket)
        if state.store.get(_SETTLING, bucketId) is not None:
            raise locked(f"Bucket {bucketId}: an activation is already in progress")
        transaction = _activation_transaction(state, bucket)
        store_resource(state.store, "card_transactions", transaction)
        settling = {"id": bucketId, "transaction_id": transaction["id"]}
        state.store.put(_SETTLING, settling, listed=False)
    background.add_task(_settle_later, state, transaction["id"], bucketId)
    return {
        "transaction": transaction,
        "status": ActivationStatus.TRANSACTION_CREATED.value,
        "message": "Points activation transaction created",
    }


_SETTLING = "settling_activations"
"""Store kind: bucket ID -> the activation transaction not yet settled.

The bucket stays PENDING until the background task settles it, so this record
is what turns a second activation in that window away (in the same store
transaction that creates the first one's, hence exactly one wins).
"""


def _check_activation(
    state: SandboxState, program: dict, member: dict, card: dict, bucket: dict
) -> None:
    if program.get("status") != ProgramStatus.ACTIVE:
        raise locked(f"Program {program['id']} is {program.get('status')}, not ACTIVE")
    if member.get("status") != MemberStatus.ACTIVE:
        raise locked(f"Member {member['id']} is {member.get('status')}, not ACTIVE")
    definition = state.store.get("card_definitions", card["card_definition_id"]) or {}
    pending_type = (definition.get("pending_points") or {}).get("type", PendingPointsType.IMMEDIATE)
    if pending_type == PendingPointsType.IMMEDIATE:
        raise locked(
            f"Card definition {card['card_definition_id']} does not hold points as pending"
        )
    if bucket.get("status") != PendingBucketStatus.PENDING:
        raise locked(f"Bucket {bucket['id']} is {bucket.get('status')}, not PENDING")
    today = state.clock.now().date().isoformat()
    if str(bucket.get("date", "")) <= today:
        raise locked(
            f"Bucket {bucket['id']} activation date {bucket.get('date')} is not in the future"
        )


def _activation_transaction(state: SandboxState, bucket: dict[str, Any]) -> dict[str, Any]:
    """The ``PENDING_POINTS_ACTIVATED`` transaction, shaped as the reference example."""
    points = bucket.get("points", {}).get("total", 0)
    return {
        "id": state.ids.new(IdPrefix.CARD_TRANSACTION),
        "card_id": bucket["card_id"],
        "program_id": bucket["program_id"],
        "member_id": bucket["member_id"],
        "card_definition_id": bucket["card_definition_id"],
        "card_type": bucket.get("card_type", "INDIVIDUAL"),
        "type": CardTransactionType.PENDING_POINTS_ACTIVATED.value,
        "details": {
            "reason": "Manual points activation",
            "rejection": None,
            "metadata": {},
            "points": {"total": points, "date": bucket.get("date"), "type": bucket.get("type")},
        },
        "status": CardTransactionStatus.PENDING.value,
        "created_at": state.now_iso(),
        "updated_at": None,
        "object": "card_transaction",
    }


def _settle_later(state: SandboxState, transaction_id: str, bucket_id: str) -> None:
    """The asynchronous part of an activation, run after the answer has gone out."""
    time.sleep(state.config.activation_delay)
    settle_activation(state, transaction_id, bucket_id)


def settle_interrupted_activations(state: SandboxState) -> int:
    """Finish activations a stopped sandbox left unsettled (resumed ``--db`` files)."""
    records = state.store.all(_SETTLING)
    for record in records:
        settle_activation(state, record["transaction_id"], record["id"])
    return len(records)


def settle_activation(state: SandboxState, transaction_id: str, bucket_id: str) -> None:
    """Settle an activation: bucket ACTIVATED, points moved to the balance, transaction APPROVED."""
    store = state.store
    with store.transaction():
        settling = store.get(_SETTLING, bucket_id)
        if settling is None or settling["transaction_id"] != transaction_id:
            return  # the sandbox was reset meanwhile
        store.delete(_SETTLING, bucket_id)
        bucket = store.get("pending_buckets", bucket_id)
        transaction = store.get("card_transactions", transaction_id)
        if (
            bucket is None
            or transaction is None
            or bucket.get("status") != PendingBucketStatus.PENDING
        ):
            return
        now, points = state.now_iso(), bucket.get("points", {}).get("total", 0)
        bucket.update(status=PendingBucketStatus.ACTIVATED.value, updated_at=now)
        store_resource(store, "pending_buckets", bucket)
        card = store.get("cards", bucket["card_id"])
        if card is not None:
            _move_points(card, points)
            store.put("cards", card, scope=card["member_id"])
        transaction.update(status=CardTransactionStatus.APPROVED.value, updated_at=now)
        store_resource(store, "card_transactions", transaction)


def _move_points(card: dict[str, Any], points: float) -> None:
    balance = card.setdefault("balance", {"points": 0, "pending_points": 0})
    balance["points"] = balance.get("points", 0) + points
    balance["pending_points"] = max(balance.get("pending_points", 0) - points, 0)
    lifetime = card.setdefault("lifetime_bucket", {})
    lifetime.setdefault("points", {}).update(
        total=lifetime.get("points", {}).get("total", 0) + points
    )
    pending = lifetime.setdefault("pending_points", {})
    pending["activated"] = pending.get("activated", 0) + points
