"""Bad input is a 400 naming the field; concurrent creates stay consistent."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

from .helpers import assert_bad_request, assert_error

BENEFITS = "/v2/loyalties/benefits"
POINTS = {"value": 10, "card_definition_id": "lcdef_c0ffee0001"}
GOOD = {"name": "Input test", "type": "POINTS", "points": POINTS}


def test_malformed_json_is_400_naming_the_body(api: httpx.Client) -> None:
    response = api.post(
        BENEFITS, content=b'{"name": "x",', headers={"Content-Type": "application/json"}
    )
    assert_bad_request(response, "body", "JSON")


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_wrong_content_type_is_400(api: httpx.Client, content_type: str) -> None:
    import json

    response = api.post(
        BENEFITS, content=json.dumps(GOOD).encode(), headers={"Content-Type": content_type}
    )
    assert_bad_request(response, "content-type")


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({**GOOD, "colour": "red"}, "colour"),
        ({**GOOD, "points": {**POINTS, "bonus": 1}}, "bonus"),
        ({**GOOD, "name": ""}, "name"),
        ({**GOOD, "name": "x" * 201}, "name"),
        ({"type": "POINTS", "points": POINTS}, "name"),
        ({**GOOD, "type": "CASHBACK"}, "type"),
        ({**GOOD, "status": "DELETED"}, "status"),
        ({"name": "x", "type": "POINTS"}, "points"),
        ({**GOOD, "material": {"product": {"id": "prod_0b1e55ed0001"}}}, "material"),
        ({**GOOD, "points": {"value": "many", "card_definition_id": "lcdef_c0ffee0001"}}, "value"),
        ({**GOOD, "points": {"value": 1, "card_definition_id": "LCDEF-1"}}, "card_definition_id"),
        ({**GOOD, "stock": {"limited": {"quantity": "lots"}}}, "stock"),
        ([GOOD], "body"),
        ("just a string", "body"),
    ],
    ids=[
        "extra-field",
        "nested-extra-field",
        "empty-name",
        "long-name",
        "no-name",
        "unknown-type",
        "status-deleted",
        "missing-config",
        "config-of-other-type",
        "value-not-number",
        "bad-card-definition-id",
        "bad-stock",
        "array-body",
        "string-body",
    ],
)
def test_invalid_benefit_bodies_are_400_naming_the_field(
    api: httpx.Client, body: Any, named: str
) -> None:
    assert_bad_request(api.post(BENEFITS, json=body), named)


def test_name_of_200_characters_is_fine(api: httpx.Client, restore: Sandbox) -> None:
    response = api.post(BENEFITS, json={**GOOD, "name": "n" * 200})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("/v2/loyalties/rewards/REW-1", "rewardId"),
        ("/v2/loyalties/rewards/lrew_C0FFEE0001", "rewardId"),
        ("/v2/loyalties/rewards/lben_c0ffee0001", "rewardId"),
        ("/v2/loyalties/benefits/lben_", "benefitId"),
        ("/v2/loyalties/card-definitions/lcdef_xyz", "cardDefinitionId"),
        ("/v2/loyalties/tier-structures/lts-1", "tierStructureId"),
        ("/v2/loyalties/programs/prog_1", "programId"),
        ("/v2/loyalties/programs/lprg_c0ffee0001/members/member1", "memberId"),
        (
            "/v2/loyalties/programs/lprg_c0ffee0001/members/lmbr_c0ffee0001/cards/c1/pending-points",
            "cardId",
        ),
    ],
)
def test_ids_not_matching_their_pattern_are_400(api: httpx.Client, path: str, named: str) -> None:
    assert_bad_request(api.get(path), named)


def test_bucket_id_pattern_is_checked_on_activation(api: httpx.Client) -> None:
    path = (
        "/v2/loyalties/programs/lprg_c0ffee0001/members/lmbr_c0ffee0001"
        "/cards/lcrd_c0ffee0001/pending-points/bucket-1/activate"
    )
    assert_bad_request(api.post(path), "bucketId")


def test_sixteen_concurrent_creates_of_one_name(
    sandbox: Sandbox, v2_headers: dict[str, str], restore: Sandbox
) -> None:
    body = {**GOOD, "name": "Race for this name"}

    async def race() -> list[httpx.Response]:
        async with httpx.AsyncClient(
            base_url=sandbox.base_url, headers=v2_headers, timeout=20, verify=TLS
        ) as client:
            return await asyncio.gather(*(client.post(BENEFITS, json=body) for _ in range(16)))

    responses = asyncio.run(race())
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * 15
    for response in responses:
        if response.status_code == 409:
            assert_error(response, 409, "duplicate_found")
    with httpx.Client(base_url=sandbox.base_url, headers=v2_headers, verify=TLS) as client:
        found = client.get(
            BENEFITS, params={"filters[name][conditions][$is]": "Race for this name"}
        ).json()["data"]
    assert len(found) == 1
