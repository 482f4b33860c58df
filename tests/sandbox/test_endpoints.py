"""Every endpoint's success path and every error row of the spec, over real HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

from .helpers import P1, P2, assert_bad_request, assert_error, eventually, walk

V2 = "/v2/loyalties"


def members_path(program: str = P1) -> str:
    return f"{V2}/programs/{program}/members"


def buckets_path(program: str, member: str, card: str) -> str:
    return f"{members_path(program)}/{member}/cards/{card}/pending-points"


def activate(
    api: httpx.Client, program: str, member: str, card: str, bucket: str
) -> httpx.Response:
    return api.post(f"{buckets_path(program, member, card)}/{bucket}/activate")


# -- token ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/oauth/token", "/v1/oauth/token"])
def test_token_is_issued_on_both_paths(
    sandbox: Sandbox, key_headers: dict[str, str], path: str
) -> None:
    response = httpx.post(
        sandbox.base_url + path,
        data={"grant_type": "client_credentials", "scope": "loyalties api"},
        headers=key_headers,
        verify=TLS,
    )
    assert response.status_code == 200, response.text
    token = response.json()
    assert token["token_type"] == "Bearer"
    assert token["scope"] == "loyalties api"
    assert token["client_id"] == sandbox.credentials.app_id
    assert token["expires_in"] > 0
    assert isinstance(token["expires_at"], int)
    assert len(token["access_token"]) >= 32


# -- card definitions, tier structures ----------------------------------------


def test_card_definitions_get_and_list(api: httpx.Client) -> None:
    listed = walk(api, f"{V2}/card-definitions", [("limit", 2)])
    ids = [c["id"] for c in listed]
    assert "lcdef_c0ffee0001" in ids and len(ids) == len(set(ids))
    one = api.get(f"{V2}/card-definitions/lcdef_c0ffee0001").json()
    assert one["object"] == "card_definition" and one["status"] == "ACTIVE"
    assert one["pending_points"]["type"] == "PERIOD_BASED"


def test_missing_card_definition_is_404_naming_it(api: httpx.Client) -> None:
    body = assert_error(api.get(f"{V2}/card-definitions/lcdef_0000ff"), 404, "not_found")
    assert body["resource_id"] == "lcdef_0000ff"
    assert body["resource_type"] == "card_definition"


def test_delete_tier_structure_returns_it_deleted(api: httpx.Client, restore: Sandbox) -> None:
    response = api.delete(f"{V2}/tier-structures/lts_c0ffee0002")
    assert response.status_code == 200, response.text
    deleted = response.json()
    assert deleted["id"] == "lts_c0ffee0002" and deleted["status"] == "DELETED"
    assert deleted["updated_at"] is not None
    assert_error(api.delete(f"{V2}/tier-structures/lts_c0ffee0002"), 404, "not_found")
    listed = api.get(f"{V2}/tier-structures/lts_c0ffee0001").json()
    assert listed["status"] == "ACTIVE"


def test_delete_missing_tier_structure_is_404(api: httpx.Client) -> None:
    body = assert_error(api.delete(f"{V2}/tier-structures/lts_00ff"), 404)
    assert (body["resource_id"], body["resource_type"]) == ("lts_00ff", "tier_structure")


# -- rewards --------------------------------------------------------------------


def test_rewards_list_and_get(api: httpx.Client) -> None:
    page = api.get(f"{V2}/rewards").json()
    assert page["object"] == "list" and len(page["data"]) == 10
    assert page["cursor"]["next"].startswith("lcrsrew_")
    reward = api.get(f"{V2}/rewards/{page['data'][0]['id']}").json()
    assert reward == page["data"][0]
    assert reward["object"] == "reward"


def test_draft_moves_active_reward_to_draft(api: httpx.Client, restore: Sandbox) -> None:
    response = api.post(f"{V2}/rewards/lrew_c0ffee0001/draft")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "DRAFT"
    assert api.get(f"{V2}/rewards/lrew_c0ffee0001").json()["status"] == "DRAFT"
    assert_error(api.post(f"{V2}/rewards/lrew_c0ffee0001/draft"), 409)


@pytest.mark.parametrize(
    "reward_id", ["lrew_c0ffee0006", "lrew_c0ffee0007", "lrew_c0ffee0008"], ids=str
)
def test_draft_from_non_active_is_409_and_changes_nothing(
    api: httpx.Client, reward_id: str
) -> None:
    before = api.get(f"{V2}/rewards/{reward_id}").json()
    assert before["status"] != "ACTIVE"
    assert_error(api.post(f"{V2}/rewards/{reward_id}/draft"), 409)
    assert api.get(f"{V2}/rewards/{reward_id}").json() == before


def test_draft_missing_reward_is_404(api: httpx.Client) -> None:
    body = assert_error(api.post(f"{V2}/rewards/lrew_00ff/draft"), 404)
    assert (body["resource_id"], body["resource_type"]) == ("lrew_00ff", "reward")


# -- benefits -----------------------------------------------------------------------

POINTS = {"value": 50, "card_definition_id": "lcdef_c0ffee0001"}
BODIES: dict[str, dict[str, object]] = {
    "POINTS": {"points": POINTS},
    "POINTS_PROPORTIONAL": {
        "points_proportional": {
            "card_definition_id": "lcdef_c0ffee0001",
            "order": {"amount": {"every": 100, "value": 1.5}},
        }
    },
    "MATERIAL": {
        "material": {"sku": {"product_id": "prod_0b1e55ed0001", "id": "sku_0b1e55ed0101"}}
    },
    "DIGITAL": {"digital": {"gift_vouchers": {"campaign_id": "camp_NwGiftCards01", "balance": 5}}},
}


def test_benefits_list_hides_deleted(api: httpx.Client) -> None:
    listed = walk(api, f"{V2}/benefits", [("limit", 100)])
    assert listed and all(b["status"] in ("ACTIVE", "DRAFT") for b in listed)
    assert "lben_c0ffee0006" not in {b["id"] for b in listed}
    assert_error(api.get(f"{V2}/benefits/lben_c0ffee0006"), 404, "not_found")


def test_get_benefit(api: httpx.Client) -> None:
    benefit = api.get(f"{V2}/benefits/lben_c0ffee001b").json()
    assert benefit["stock"] == {"type": "LIMITED", "limited": {"quantity": 1000}}
    assert benefit["object"] == "benefit" and "points" in benefit


@pytest.mark.parametrize("kind", list(BODIES))
def test_create_benefit_of_every_type(api: httpx.Client, restore: Sandbox, kind: str) -> None:
    response = api.post(
        f"{V2}/benefits", json={"name": f"New {kind}", "type": kind, **BODIES[kind]}
    )
    assert response.status_code == 200, response.text
    created = response.json()
    assert created["id"].startswith("lben_") and created["object"] == "benefit"
    assert created["status"] == "DRAFT" and created["stock"] == {"type": "UNLIMITED"}
    assert created["created_at"].startswith("2026-01-15T12:00:00")
    config_keys = {"points", "points_proportional", "material", "digital"} & set(created)
    assert config_keys == {kind.lower()}
    assert api.get(f"{V2}/benefits/{created['id']}").json() == created
    listed = api.get(f"{V2}/benefits", params={"limit": 1}).json()["data"]
    assert listed[0]["id"] == created["id"]  # newest first


def test_create_active_benefit_with_limited_stock(api: httpx.Client, restore: Sandbox) -> None:
    body = {
        "name": "Limited bonus",
        "type": "POINTS",
        "status": "ACTIVE",
        "points": POINTS,
        "stock": {"limited": {"quantity": 3}},
    }
    created = api.post(f"{V2}/benefits", json=body).json()
    assert created["status"] == "ACTIVE"
    assert created["stock"]["limited"] == {"quantity": 3}


def test_duplicate_benefit_name_is_409_duplicate_found(api: httpx.Client) -> None:
    body = {"name": "Free Espresso", "type": "POINTS", "points": POINTS}
    assert_error(api.post(f"{V2}/benefits", json=body), 409, "duplicate_found")


def test_deleted_benefit_name_can_be_reused(api: httpx.Client, restore: Sandbox) -> None:
    body = {"name": "App Review Bonus", "type": "POINTS", "points": POINTS}
    assert api.post(f"{V2}/benefits", json=body).status_code == 200


@pytest.mark.parametrize("card_definition", ["lcdef_c0ffee0004"])
def test_active_benefit_on_non_active_card_definition_is_423(
    api: httpx.Client, card_definition: str
) -> None:
    body = {
        "name": "Locked bonus",
        "type": "POINTS",
        "status": "ACTIVE",
        "points": {"value": 5, "card_definition_id": card_definition},
    }
    assert_error(api.post(f"{V2}/benefits", json=body), 423, "resource_locked")
    assert (
        api.get(f"{V2}/benefits", params={"filters[name][conditions][$is]": "Locked bonus"}).json()[
            "data"
        ]
        == []
    )


def test_draft_benefit_on_draft_card_definition_is_allowed(
    api: httpx.Client, restore: Sandbox
) -> None:
    body = {
        "name": "Draft bonus",
        "type": "POINTS",
        "points": {**POINTS, "card_definition_id": "lcdef_c0ffee0004"},
    }
    assert api.post(f"{V2}/benefits", json=body).status_code == 200


@pytest.mark.parametrize(
    ("kind", "config", "resource_type", "resource_id"),
    [
        (
            "POINTS",
            {"points": {"value": 1, "card_definition_id": "lcdef_0000ff"}},
            "card_definition",
            "lcdef_0000ff",
        ),
        (
            "POINTS",
            {"points": {"value": 1, "card_definition_id": "lcdef_c0ffee0005"}},
            "card_definition",
            "lcdef_c0ffee0005",
        ),
        ("MATERIAL", {"material": {"product": {"id": "prod_0000ff"}}}, "product", "prod_0000ff"),
        (
            "MATERIAL",
            {"material": {"sku": {"product_id": "prod_0b1e55ed0002", "id": "sku_0b1e55ed0101"}}},
            "sku",
            "sku_0b1e55ed0101",
        ),
        (
            "DIGITAL",
            {"digital": {"discount_coupons": {"campaign_id": "camp_Missing"}}},
            "campaign",
            "camp_Missing",
        ),
    ],
    ids=[
        "card-definition",
        "deleted-card-definition",
        "product",
        "sku-of-other-product",
        "campaign",
    ],
)
def test_benefit_references_must_exist(
    api: httpx.Client, kind: str, config: dict, resource_type: str, resource_id: str
) -> None:
    body = {"name": "Dangling", "type": kind, **config}
    error = assert_error(api.post(f"{V2}/benefits", json=body), 404, "not_found")
    assert (error["resource_type"], error["resource_id"]) == (resource_type, resource_id)


def test_digital_benefit_campaign_type_must_match(api: httpx.Client) -> None:
    body = {
        "name": "Wrong campaign",
        "type": "DIGITAL",
        "digital": {"gift_vouchers": {"campaign_id": "camp_NwCoupons01", "balance": 5}},
    }
    assert_bad_request(api.post(f"{V2}/benefits", json=body), "digital.gift_vouchers.campaign_id")


# -- programs, members, cards, pending buckets -----------------------------------------


def test_programs_list_and_get(api: httpx.Client) -> None:
    programs = api.get(f"{V2}/programs").json()["data"]
    assert {p["id"] for p in programs} == {P1, P2}
    assert api.get(f"{V2}/programs/{P1}").json()["status"] == "ACTIVE"
    error = assert_error(api.get(f"{V2}/programs/lprg_00ff"), 404)
    assert error["resource_type"] == "program"


def test_members_list_and_member_with_cards(api: httpx.Client) -> None:
    members = walk(api, members_path(), [("limit", 2)])
    assert {m["program_id"] for m in members} == {P1}
    assert "lmbr_c0ffee0005" not in {m["id"] for m in members}  # another program's member
    member = api.get(f"{members_path()}/lmbr_c0ffee0001").json()
    assert member["id"] == "lmbr_c0ffee0001"
    cards = {c["card"]["id"]: c for c in member["cards"]}
    assert set(cards) == {"lcrd_c0ffee0001", "lcrd_c0ffee0002"}
    assert all(c["object"] == "member_card" for c in member["cards"])
    assert cards["lcrd_c0ffee0001"]["card"]["balance"]["points"] == 1840
    assert_error(api.get(f"{members_path()}/lmbr_c0ffee0005"), 404)  # not in this program


def test_pending_buckets_list_of_a_card(api: httpx.Client) -> None:
    buckets = walk(api, buckets_path(P1, "lmbr_c0ffee0001", "lcrd_c0ffee0001"), [("limit", 2)])
    assert {b["card_id"] for b in buckets} == {"lcrd_c0ffee0001"}
    dates = [b["date"] for b in buckets]
    assert dates == sorted(dates) and len(buckets) == 4  # lcppb_c0ffee0005 is ACTIVATED
    assert {b["status"] for b in buckets} == {"PENDING"}  # the service lists PENDING only
    wrong_member = buckets_path(P1, "lmbr_c0ffee0002", "lcrd_c0ffee0001")
    assert assert_error(api.get(wrong_member), 404)["resource_type"] == "card"


def test_activation_creates_pending_transaction_then_settles(
    api: httpx.Client, restore: Sandbox
) -> None:
    member_path = f"{members_path()}/lmbr_c0ffee0001"
    card = "lcrd_c0ffee0001"

    def balance() -> dict:
        cards = api.get(member_path).json()["cards"]
        return next(c["card"]["balance"] for c in cards if c["card"]["id"] == card)

    before = balance()
    response = activate(api, P1, "lmbr_c0ffee0001", card, "lcppb_c0ffee0001")
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["status"] == "TRANSACTION_CREATED" and result["message"]
    transaction = result["transaction"]
    assert transaction["type"] == "PENDING_POINTS_ACTIVATED"
    assert transaction["status"] == "PENDING"
    assert transaction["card_id"] == card and transaction["id"].startswith("lctx_")
    points = transaction["details"]["points"]["total"]
    assert points > 0

    def listed() -> set[str]:
        buckets = walk(api, buckets_path(P1, "lmbr_c0ffee0001", card), [("limit", 100)])
        return {b["id"] for b in buckets}

    assert eventually(lambda: "lcppb_c0ffee0001" not in listed())  # no longer PENDING
    assert balance()["points"] == before["points"] + points
    assert balance()["pending_points"] == before["pending_points"] - points
    again = activate(api, P1, "lmbr_c0ffee0001", card, "lcppb_c0ffee0001")
    assert_error(again, 423, "resource_locked")  # no longer PENDING


def test_concurrent_activations_of_one_bucket_settle_once(
    sandbox: Sandbox, api: httpx.Client, v2_headers: dict[str, str], restore: Sandbox
) -> None:
    """While the first activation settles, the bucket is still PENDING; the others are 423."""
    member, card, bucket = "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0001"
    member_path = f"{members_path()}/{member}"

    def points() -> int:
        cards = api.get(member_path).json()["cards"]
        return next(c["card"]["balance"]["points"] for c in cards if c["card"]["id"] == card)

    before = points()
    start = threading.Barrier(8)

    def one_activation(_: int) -> httpx.Response:
        with httpx.Client(
            base_url=sandbox.base_url, headers=v2_headers, timeout=10, verify=TLS
        ) as client:
            start.wait()
            return activate(client, P1, member, card, bucket)

    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(one_activation, range(8)))
    won = [r for r in responses if r.status_code == 200]
    assert len(won) == 1, [r.text for r in responses]
    assert won[0].json()["status"] == "TRANSACTION_CREATED"
    for response in responses:
        if response is not won[0]:
            body = assert_error(response, 423, "resource_locked")
            assert "in progress" in body["details"] or "not PENDING" in body["details"]
    gained = won[0].json()["transaction"]["details"]["points"]["total"]
    listing = buckets_path(P1, member, card)

    def settled() -> bool:
        return all(b["status"] != "PENDING" for b in walk(api, listing) if b["id"] == bucket)

    assert eventually(settled)
    assert points() == before + gained
    time.sleep(0.2)  # a second settlement, had one been scheduled, would land by now
    assert points() == before + gained


@pytest.mark.parametrize(
    ("program", "member", "card", "bucket", "why"),
    [
        (P1, "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0003", "activation date"),
        (P1, "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0004", "activation date"),
        (P1, "lmbr_c0ffee0003", "lcrd_c0ffee0005", "lcppb_c0ffee0009", "Member"),
        (P2, "lmbr_c0ffee0005", "lcrd_c0ffee0007", "lcppb_c0ffee000a", "Program"),
        (P1, "lmbr_c0ffee0002", "lcrd_c0ffee0004", "lcppb_c0ffee0008", "pending"),
        (P1, "lmbr_c0ffee0002", "lcrd_c0ffee0003", "lcppb_c0ffee000c", "not PENDING"),
    ],
    ids=[
        "date-past",
        "date-today",
        "member-inactive",
        "program-inactive",
        "pending-points-disabled",
        "bucket-canceled",
    ],
)
def test_activation_preconditions_give_423(
    api: httpx.Client, program: str, member: str, card: str, bucket: str, why: str
) -> None:
    body = assert_error(activate(api, program, member, card, bucket), 423, "resource_locked")
    assert why in body["details"]


@pytest.mark.parametrize(
    ("path", "resource_type"),
    [
        ((P1, "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_00ff"), "pending_points_bucket"),
        ((P1, "lmbr_c0ffee0001", "lcrd_c0ffee0003", "lcppb_c0ffee0007"), "card"),
        ((P1, "lmbr_00ff", "lcrd_c0ffee0001", "lcppb_c0ffee0001"), "member"),
        (("lprg_00ff", "lmbr_c0ffee0001", "lcrd_c0ffee0001", "lcppb_c0ffee0001"), "program"),
        ((P1, "lmbr_c0ffee0002", "lcrd_c0ffee0003", "lcppb_c0ffee0001"), "pending_points_bucket"),
    ],
)
def test_activation_of_something_missing_is_404(
    api: httpx.Client, path: tuple[str, str, str, str], resource_type: str
) -> None:
    body = assert_error(activate(api, *path), 404, "not_found")
    assert body["resource_type"] == resource_type


# -- management ------------------------------------------------------------------------


@pytest.fixture
def management(sandbox: Sandbox, management_headers: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sandbox.base_url, headers=management_headers, verify=TLS) as client:
        yield client


def test_projects_and_webhooks_list(management: httpx.Client) -> None:
    projects = management.get("/management/v1/projects").json()
    assert projects["object"] == "list" and projects["total"] == len(projects["data"]) == 3
    assert all("plan" not in p for p in projects["data"])
    hooks = management.get("/management/v1/projects/proj_NwMain01/webhooks").json()
    assert {h["id"] for h in hooks["data"]} == {"wh_NwMainLoyalty01", "wh_NwMainCustomers02"}


def test_delete_webhook_is_204_then_404(management: httpx.Client, restore: Sandbox) -> None:
    path = "/management/v1/projects/proj_NwMain01/webhooks/wh_NwMainLoyalty01"
    response = management.delete(path)
    assert response.status_code == 204 and response.content == b""
    hooks = management.get("/management/v1/projects/proj_NwMain01/webhooks").json()["data"]
    assert "wh_NwMainLoyalty01" not in {h["id"] for h in hooks}
    body = assert_error(management.delete(path), 404, "not_found")
    assert (body["resource_id"], body["resource_type"]) == ("wh_NwMainLoyalty01", "webhook")


def test_webhook_of_another_project_is_404(management: httpx.Client) -> None:
    path = "/management/v1/projects/proj_NwStage01/webhooks/wh_NwMainLoyalty01"
    assert assert_error(management.delete(path), 404)["resource_type"] == "webhook"


def test_missing_project_is_404(management: httpx.Client) -> None:
    body = assert_error(management.delete("/management/v1/projects/proj_Nope/webhooks/wh_1"), 404)
    assert (body["resource_id"], body["resource_type"]) == ("proj_Nope", "project")


def test_plan_without_webhooks_is_402(management: httpx.Client) -> None:
    base = "/management/v1/projects/proj_NwStarter01/webhooks"
    assert_error(management.get(base), 402, "missing_required_feature")
    assert_error(management.delete(f"{base}/wh_NwStarterLegacy01"), 402, "missing_required_feature")


def test_unknown_path_is_the_error_object(api: httpx.Client) -> None:
    assert_error(api.get("/v2/loyalties/nothing-here"), 404)
    assert_error(api.put(f"{V2}/rewards"), 405)


@pytest.mark.parametrize(
    ("rule", "calculation_type"),
    [
        ({"order": {"total_amount": {"every": 100, "value": 1}}}, "POST_DISCOUNT_ORDER_AMOUNT"),
        (
            {"customer": {"metadata": {"every": 1, "value": 2, "property": "visits"}}},
            "CUSTOMER_METADATA_VALUE",
        ),
        (
            {
                "order_items": {
                    "subtotal_amount": {
                        "every": 100,
                        "value": 1,
                        "applicable_to": [{"type": "sku", "sku": {"id": "sku_0b1e55ed0101"}}],
                    }
                }
            },
            "POST_DISCOUNT_ORDER_ITEMS_AMOUNT",
        ),
    ],
    ids=["order-total", "customer-metadata", "items-subtotal"],
)
def test_proportional_calculation_type_follows_its_rule(
    api: httpx.Client, restore: Sandbox, rule: dict, calculation_type: str
) -> None:
    body = {
        "name": f"Proportional {calculation_type}",
        "type": "POINTS_PROPORTIONAL",
        "points_proportional": {"card_definition_id": "lcdef_c0ffee0001", **rule},
    }
    response = api.post(f"{V2}/benefits", json=body)
    assert response.status_code == 200, response.text
    config = response.json()["points_proportional"]
    assert config["calculation_type"] == calculation_type
    assert set(config) == {"calculation_type", "card_definition_id", *rule}


def test_proportional_with_two_rules_is_400(api: httpx.Client) -> None:
    body = {
        "name": "Ambiguous",
        "type": "POINTS_PROPORTIONAL",
        "points_proportional": {
            "card_definition_id": "lcdef_c0ffee0001",
            "order": {"amount": {"every": 1, "value": 1}, "total_amount": {"every": 1, "value": 1}},
        },
    }
    assert_bad_request(api.post(f"{V2}/benefits", json=body), "points_proportional")
