"""A preview of activations counts the reads it sends, and sends each of them once.

The preview of an activation reads each card's bucket list, each member and each program
(and the card definitions): two reads an item and more when several threads missed the
shared reads together, where its budget check counted one an item. At 20,000 members, 1,500
activations were counted 1,500 reads, fit half of a professional window (2,500), and sent
2,914.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program

PROGRAM = generate_program(members=120, rewards=1, benefits=1, seed=5)
BUCKETS = pd.DataFrame(
    {
        "program_id": b["program_id"],
        "member_id": b["member_id"],
        "card_id": b["card_id"],
        "bucket_id": b["id"],
    }
    for b in PROGRAM["pending_buckets"]
    if b["status"] == "PENDING"
)
CARDS, MEMBERS = BUCKETS["card_id"].nunique(), BUCKETS["member_id"].nunique()
DEFINITIONS = len({b["card_definition_id"] for b in PROGRAM["pending_buckets"]})


def test_the_program_holds_buckets_that_share_cards() -> None:
    assert len(BUCKETS) > CARDS and BUCKETS["program_id"].nunique() == 1


def test_a_preview_sends_each_shared_read_once_and_counts_them(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    plan = actions.activate_pending_buckets(BUCKETS)
    assert plan.preview_reads(plan.valid_items) == CARDS + MEMBERS + 1 + 1
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan("100000/hour")
        preview = plan.preview(client, concurrency=8, progress=False)
        sent = client.quota.calls_used
    assert preview["activatable"].notna().all()
    # the token, each card's list, member and program once, each card definition once
    assert sent == 1 + CARDS + MEMBERS + 1 + DEFINITIONS


def test_a_preview_whose_reads_do_not_fit_its_share_is_refused_before_any_read(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    plan = actions.activate_pending_buckets(BUCKETS)
    # half of what is left after the token request holds one read an item, not the preview's
    limit = 2 * (len(BUCKETS) + 1) + 2
    assert len(BUCKETS) <= (limit - 1) // 2 < CARDS + MEMBERS + 1 + 1
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan(f"{limit}/hour")
        with pytest.raises(BudgetExceededError) as refused:
            plan.preview(client, progress=False)
        assert sb.plan()["used"] == 1  # the token request, which tells the budget
    assert refused.value.needed == CARDS + MEMBERS + 1 + 1  # the token is held by then


PENDING_DEFINITIONS = len(
    {b["card_definition_id"] for b in PROGRAM["pending_buckets"] if b["status"] == "PENDING"}
)
NAMED = BUCKETS.assign(
    card_definition_id=[
        b["card_definition_id"] for b in PROGRAM["pending_buckets"] if b["status"] == "PENDING"
    ]
)
"""The buckets with the card definition each names, as a snapshot's rows give it."""


def test_a_preview_counts_every_card_definition_its_buckets_name(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    plan = actions.activate_pending_buckets(NAMED)
    reads = CARDS + MEMBERS + 1 + PENDING_DEFINITIONS
    assert PENDING_DEFINITIONS > 1
    # half of what is left after the token request holds one definition, not all of them
    limit = 2 * (reads - PENDING_DEFINITIONS + 1) + 1
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan(f"{limit}/hour")
        with pytest.raises(BudgetExceededError, match=rf"preview \({reads} reads\)") as refused:
            plan.preview(client, progress=False)
        assert sb.plan()["used"] == 1
    assert refused.value.needed == plan.preview_reads(plan.valid_items) == reads


def test_a_preview_of_buckets_naming_no_definition_says_at_least(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    plan = actions.activate_pending_buckets(BUCKETS)
    reads = CARDS + MEMBERS + 1 + 1
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        sb.set_plan(f"{2 * reads}/hour")
        with pytest.raises(BudgetExceededError, match=rf"preview \(at least {reads} reads\)"):
            plan.preview(client, progress=False)


def test_a_change_plan_names_its_activations_definitions_from_the_base(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    with start_sandbox(PROGRAM) as sb, make_client(sb) as client:
        edit = actions.edit(ProgramSnapshot.pull(client, progress=False))
    pending = edit.pending_buckets["status"] == "PENDING"
    edit.pending_buckets.loc[pending, "status"] = "ACTIVATED"
    [part] = [p for p in edit.plan().parts if p.action == "activate_pending_bucket"]
    assert part.preview_reads(part.valid_items) == CARDS + MEMBERS + 1 + PENDING_DEFINITIONS
