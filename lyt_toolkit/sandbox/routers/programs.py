"""Programs, members with their cards, pending point buckets and their activation."""

from __future__ import annotations

from typing import Annotated

from fastapi import BackgroundTasks, Request, Response

from ...models import ActivationResult, Member, MemberWithCards, Page, PendingBucket, Program
from ...models.ids import IdPrefix
from ...models.listing import MEMBERS, PENDING_BUCKETS, PROGRAMS
from ..deps import state_of
from ..services import programs
from ..store_reads import read_store, write_store
from .common import (
    PAGING,
    document_response,
    get_route,
    id_path,
    json_response,
    list_page,
    list_route,
    loyalty_router,
)

router = loyalty_router("/programs")

ProgramId = Annotated[str, id_path(IdPrefix.PROGRAM, "programId", "program ID")]
MemberId = Annotated[str, id_path(IdPrefix.MEMBER, "memberId", "member ID")]
CardId = Annotated[str, id_path(IdPrefix.CARD, "cardId", "card ID")]
BucketId = Annotated[str, id_path(IdPrefix.PENDING_BUCKET, "bucketId", "pending points bucket ID")]

_CARD = "/{programId}/members/{memberId}/cards/{cardId}"


list_route(router, "", PROGRAMS, Page[Program])
get_route(router, "/{programId}", PROGRAMS, Program, ProgramId)


@router.get("/{programId}/members", dependencies=[PAGING], response_model=Page[Member])
async def list_members(program_id: ProgramId, request: Request) -> Response:
    state = state_of(request)
    await read_store(state.store, programs.require_program, state, program_id)
    return await list_page(request, state, "members", MEMBERS, scope=program_id)


@router.get("/{programId}/members/{memberId}", response_model=MemberWithCards)
async def get_member(program_id: ProgramId, member_id: MemberId, request: Request) -> Response:
    """A member with its cards."""
    state = state_of(request)
    read = programs.member_with_cards_json
    return json_response(await read_store(state.store, read, state, program_id, member_id))


@router.get(f"{_CARD}/pending-points", dependencies=[PAGING], response_model=Page[PendingBucket])
async def list_pending_buckets(
    program_id: ProgramId,
    member_id: MemberId,
    card_id: CardId,
    request: Request,
) -> Response:
    state = state_of(request)
    await read_store(state.store, programs.card_in_path, state, program_id, member_id, card_id)
    return await list_page(request, state, "pending_buckets", PENDING_BUCKETS, scope=card_id)


@router.post(f"{_CARD}/pending-points/{{bucketId}}/activate", response_model=ActivationResult)
async def activate_pending_bucket(
    program_id: ProgramId,
    member_id: MemberId,
    card_id: CardId,
    bucket_id: BucketId,
    background: BackgroundTasks,
    request: Request,
) -> Response:
    """Activate a bucket ahead of its date; the transaction completes in the background."""
    state = state_of(request)
    activate = programs.activate_bucket
    result = await write_store(
        state.store, activate, state, program_id, member_id, card_id, bucket_id
    )
    transaction = result["transaction"]["id"]
    background.add_task(programs.settle_later, state, transaction, bucket_id, state.instance)
    return document_response(result)
