"""Every client method against the sandbox, returning models."""

from __future__ import annotations

import json

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.models import (
    AccessToken,
    ActivationResult,
    Benefit,
    CardDefinition,
    InvalidTierResult,
    MemberWithCards,
    Page,
    PendingBucket,
    Program,
    Project,
    Reward,
    TierStructure,
    ValidTierResult,
    Webhook,
)
from lyt_toolkit.sandbox.config import DEMO_PROGRAM

PROGRAM = "lprg_c0ffee0001"
MEMBER = "lmbr_c0ffee0001"
CARD = "lcrd_c0ffee0001"
FUTURE_BUCKET = "lcppb_c0ffee0001"


def test_rewards_list_get_draft(client: LoyaltyClient) -> None:
    page = client.rewards.list(limit=5, order="name")
    assert isinstance(page, Page) and len(page.data) == 5
    assert all(isinstance(r, Reward) for r in page.data)
    assert [r.name for r in page.data] == sorted(r.name for r in page.data)
    assert page.next_cursor is not None

    reward = client.rewards.get("lrew_c0ffee0001")
    assert reward.id == "lrew_c0ffee0001" and reward.status == "ACTIVE"
    drafted = client.rewards.draft("lrew_c0ffee0001")
    assert drafted.status == "DRAFT"
    assert client.rewards.get("lrew_c0ffee0001").status == "DRAFT"


def test_rewards_iter_with_filter(client: LoyaltyClient) -> None:
    found = list(client.rewards.iter(limit=2, filters={"name": {"$contains": "gift card"}}))
    program = json.loads(DEMO_PROGRAM.read_text(encoding="utf-8"))
    gift_cards = {r["id"] for r in program["rewards"] if "gift card" in r["name"].lower()}
    assert len(gift_cards) > 2  # more than one page
    assert {r.id for r in found} == gift_cards and len(found) == len(gift_cards)


def test_benefits_list_iter_get_create(client: LoyaltyClient) -> None:
    page = client.benefits.list(limit=100)
    assert all(isinstance(b, Benefit) for b in page.data)
    assert all(b.status != "DELETED" for b in page.data)
    assert {b.id for b in client.benefits.iter(limit=3)} == {b.id for b in page.data}

    benefit = client.benefits.get("lben_c0ffee0001")
    assert benefit.type == "POINTS" and benefit.points is not None

    created = client.benefits.create(
        {
            "name": "Client test bonus",
            "type": "POINTS",
            "points": {"value": 42, "card_definition_id": "lcdef_c0ffee0001"},
        }
    )
    assert created.status == "DRAFT" and created.points is not None
    assert created.points.value == 42
    assert client.benefits.get(created.id).name == "Client test bonus"


def test_benefit_create_accepts_model(client: LoyaltyClient) -> None:
    from lyt_toolkit.models import BenefitCreate

    body = BenefitCreate(
        name="Model-built bonus",
        type="POINTS",
        status="ACTIVE",
        points={"value": 5, "card_definition_id": "lcdef_c0ffee0001"},
    )
    created = client.benefits.create(body)
    assert created.status == "ACTIVE"


def test_card_definitions(client: LoyaltyClient) -> None:
    page = client.card_definitions.list(limit=2)
    assert len(page.data) == 2 and all(isinstance(c, CardDefinition) for c in page.data)
    everything = list(client.card_definitions.iter(limit=2))
    assert len(everything) >= 5
    one = client.card_definitions.get("lcdef_c0ffee0001")
    assert one.name == "Northwind Beans"


def test_tier_structures_list_iter_get_delete(client: LoyaltyClient) -> None:
    page = client.tier_structures.list(filters={"type": {"$is": "POINT_EARNED"}})
    assert page.data and all(t.type == "POINT_EARNED" for t in page.data)
    ids = [t.id for t in client.tier_structures.iter(limit=4)]
    assert "lts_c0ffee0003" in ids
    assert isinstance(client.tier_structures.get("lts_c0ffee0003"), TierStructure)
    deleted = client.tier_structures.delete("lts_c0ffee0003")
    assert deleted.id == "lts_c0ffee0003"
    assert deleted.status == "DELETED"
    assert client.tier_structures.get("lts_c0ffee0003").status == "DELETED"


def test_programs_members_buckets_activate(client: LoyaltyClient) -> None:
    programs = client.programs.list()
    assert all(isinstance(p, Program) for p in programs.data)
    assert {p.id for p in client.programs.iter(limit=1)} == {p.id for p in programs.data}
    assert client.programs.get(PROGRAM).id == PROGRAM

    members = client.members.list(PROGRAM, limit=100)
    assert MEMBER in {m.id for m in members.data}
    assert {m.id for m in client.members.iter(PROGRAM, limit=2)} == {m.id for m in members.data}
    member = client.members.get(PROGRAM, MEMBER)
    assert isinstance(member, MemberWithCards)
    assert CARD in {mc.card.id for mc in member.cards if mc.card}

    buckets = client.pending_buckets.list(PROGRAM, MEMBER, CARD)
    assert all(isinstance(b, PendingBucket) for b in buckets.data)
    assert [b.date for b in buckets.data] == sorted(b.date for b in buckets.data)
    walked = list(client.pending_buckets.iter(PROGRAM, MEMBER, CARD, limit=1))
    assert [b.id for b in walked] == [b.id for b in buckets.data]

    result = client.pending_buckets.activate(PROGRAM, MEMBER, CARD, FUTURE_BUCKET)
    assert isinstance(result, ActivationResult)
    assert result.status == "TRANSACTION_CREATED"
    assert result.transaction is not None
    assert result.transaction.type == "PENDING_POINTS_ACTIVATED"


def test_projects_and_webhooks(client: LoyaltyClient) -> None:
    projects = client.projects.list()
    assert all(isinstance(p, Project) for p in projects)
    assert "proj_NwMain01" in {p.id for p in projects}
    hooks = client.webhooks.list("proj_NwMain01")
    assert all(isinstance(h, Webhook) for h in hooks)
    assert "wh_NwMainLoyalty01" in {h.id for h in hooks}
    assert client.webhooks.delete("proj_NwMain01", "wh_NwMainLoyalty01") is None  # type: ignore[func-returns-value]
    assert "wh_NwMainLoyalty01" not in {h.id for h in client.webhooks.list("proj_NwMain01")}


def test_oauth_token(client: LoyaltyClient) -> None:
    token = client.oauth.token(["api", "promotions"])
    assert isinstance(token, AccessToken)
    assert token.scopes == {"api", "promotions"} and token.expires_in > 0
    assert token.access_token not in repr(token)


def test_promotion_tiers_list_and_validate(client: LoyaltyClient) -> None:
    page = client.promotion_tiers.list(limit=100)
    assert page.tiers and page.total >= len(page.tiers)
    assert [t.id for t in client.promotion_tiers.iter(limit=2)] == [t.id for t in page.tiers]
    results = [
        client.promotion_tiers.validate(
            tier.id,
            customer={"source_id": "client-test-customer"},
            order={"amount": 20000, "items": [{"product_id": "prod_0b1e55ed0006", "quantity": 2}]},
        )
        for tier in page.tiers
    ]
    assert all(isinstance(r, ValidTierResult | InvalidTierResult) for r in results)
    assert any(r.valid for r in results) and any(not r.valid for r in results)


def test_each_client_gets_its_half_of_a_group_once(client: LoyaltyClient) -> None:
    from lyt_toolkit import AsyncLoyaltyClient
    from lyt_toolkit.client.resources.rewards import AsyncRewards, Rewards

    assert type(client.rewards) is Rewards and client.rewards is client.rewards
    twin = AsyncLoyaltyClient(config=client.config)
    assert type(twin.rewards) is AsyncRewards and twin.rewards is twin.rewards
    assert repr(LoyaltyClient.rewards) == "<resource group rewards: Rewards | AsyncRewards>"
