"""Programs: members with their cards, and activating a pending points bucket.

An activation answers at once with a PENDING transaction; ``settle_activation``
completes it later (the router schedules it as a background task), and
``settle_open_activations`` finishes those still open (a stopped sandbox's, or at once).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic_core import to_json

from ...models import Member, MemberWithCards
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
from ..clock import iso, parse_instant
from ..errors import locked, not_found
from ..loader import create_resource, store_resource
from ..state import SandboxState
from .lookup import require, stored_json

Doc = dict[str, Any]


def require_program(state: SandboxState, program_id: str) -> Doc:
    """The program, or 404."""
    return require(state, "programs", program_id, "program")


def member_with_cards_json(state: SandboxState, program_id: str, member_id: str) -> bytes:
    """A member of the program with its cards, as JSON: the bytes the ``MemberWithCards``
    model dumps, written once from the stored documents when they are spelled as the model
    would send them (the stored member and cards are their models' own dumps), else
    through the model."""
    stored_json(state, "programs", program_id, "program")
    member = require(state, "members", member_id, "member", scope=program_id)
    cards = [_member_card(card) for card in state.store.all("cards", scope=member_id)]
    answer = {**member, "cards": cards}
    if tuple(member) == _MEMBER_FIELDS and all(map(_sent_as_stored, cards)):
        return to_json(answer)
    return MemberWithCards.model_validate(answer).model_dump_json(by_alias=True).encode()


_MEMBER_FIELDS = tuple(Member.model_fields)
"""A stored member's keys when it holds no others: ``cards`` then follows them in the
model's own order too."""


def _sent_as_stored(member_card: Doc) -> bool:
    """Whether ``MemberCard`` sends this card's entry as it is: a role that is a string and
    a creation time spelled as the service spells one (a program file may spell it
    otherwise, the one field of the entry not stored as its model dumps it)."""
    created_at = member_card["created_at"]
    if type(member_card["member_role"]) is not str or type(created_at) is not str:
        return False
    try:
        return iso(parse_instant(created_at)) == created_at
    except (ValueError, OverflowError):
        return False


def _member_card(card: Doc) -> Doc:
    internal = {"member_id", "program_id", "member_role", "created_at"}
    simple = {k: v for k, v in card.items() if k not in internal}
    simple.setdefault("object", "card")
    return {
        "member_role": card.get("member_role", "OWNER"),
        "created_at": card.get("created_at"),
        "card": simple,
        "object": "member_card",
    }


def card_in_path(
    state: SandboxState, program_id: str, member_id: str, card_id: str
) -> tuple[Doc, Doc, Doc]:
    """Program, member and card, each 404 when missing or not on this path."""
    program = require_program(state, program_id)
    member = require(state, "members", member_id, "member", scope=program_id)
    card = require(state, "cards", card_id, "card", scope=member_id)
    return program, member, card


def activate_bucket(
    state: SandboxState, program_id: str, member_id: str, card_id: str, bucket_id: str
) -> Doc:
    """Start activating a bucket ahead of its date: the PENDING transaction and the answer
    (as ``ActivationResult`` dumps it).

    The caller settles it later with ``settle_activation`` (or ``settle_later``).
    """
    with state.store.transaction():
        program, member, card = card_in_path(state, program_id, member_id, card_id)
        bucket = state.store.get("pending_buckets", bucket_id, scope=card_id)
        if bucket is None:
            raise not_found("pending_points_bucket", bucket_id)
        _check_activation(state, program, member, card, bucket)
        if state.store.get(_SETTLING, bucket_id) is not None:
            raise locked(f"Bucket {bucket_id}: an activation is already in progress")
        transaction = create_resource(
            state.store, "card_transactions", _activation_transaction(state, bucket)
        )
        settling = {"id": bucket_id, "transaction_id": transaction["id"]}
        state.store.insert(_SETTLING, settling, listed=False)
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
    state: SandboxState, program: Doc, member: Doc, card: Doc, bucket: Doc
) -> None:
    """423 unless program and member are ACTIVE, the card holds points as pending, and the
    bucket is PENDING with a date still ahead."""
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


def settle_later(state: SandboxState, transaction_id: str, bucket_id: str, instance: str) -> None:
    """The asynchronous part of an activation, run after the answer has gone out; nothing
    when the sandbox was reset or loaded again meanwhile (``instance``, the state's when the
    activation was answered, no longer its own): the store is not even held, where a
    moment's hold would send the new state's reads to the thread pool."""
    time.sleep(state.config.activation_delay)
    if state.instance == instance:
        settle_activation(state, transaction_id, bucket_id)


def settle_open_activations(state: SandboxState) -> int:
    """Finish every activation not yet settled: those a stopped sandbox left (resumed ``--db``
    files), or those in progress, at once (``POST /_sandbox/settle``); how many."""
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
