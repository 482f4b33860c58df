"""The OpenAPI document the sandbox serves: names, success schemas and error statuses."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from interrupting import HANG
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

V2 = "/v2/loyalties"
MEMBER = f"{V2}/programs/{{programId}}/members/{{memberId}}"
BUCKETS = f"{MEMBER}/cards/{{cardId}}/pending-points"

SUCCESS_SCHEMAS = {
    ("post", "/oauth/token"): "AccessToken",
    ("get", f"{V2}/card-definitions"): "Page_CardDefinition_",
    ("get", f"{V2}/card-definitions/{{cardDefinitionId}}"): "CardDefinition",
    ("get", f"{V2}/tier-structures"): "Page_TierStructure_",
    ("get", f"{V2}/tier-structures/{{tierStructureId}}"): "TierStructure",
    ("delete", f"{V2}/tier-structures/{{tierStructureId}}"): "TierStructure",
    ("get", f"{V2}/rewards"): "Page_Reward_",
    ("get", f"{V2}/rewards/{{rewardId}}"): "Reward",
    ("post", f"{V2}/rewards/{{rewardId}}/draft"): "Reward",
    ("get", f"{V2}/benefits"): "Page_Benefit_",
    ("post", f"{V2}/benefits"): "Benefit",
    ("get", f"{V2}/benefits/{{benefitId}}"): "Benefit",
    ("get", f"{V2}/programs"): "Page_Program_",
    ("get", f"{V2}/programs/{{programId}}"): "Program",
    ("get", f"{V2}/programs/{{programId}}/members"): "Page_Member_",
    ("get", MEMBER): "MemberWithCards",
    ("get", BUCKETS): "Page_PendingBucket_",
    ("post", f"{BUCKETS}/{{bucketId}}/activate"): "ActivationResult",
    ("get", "/management/v1/projects"): "CountedList_Project_",
    ("get", "/management/v1/projects/{projectId}/webhooks"): "CountedList_Webhook_",
}
"""The model describing each operation's success body (the routes' ``response_model``)."""


@pytest.fixture(scope="module")
def document(sandbox: Sandbox) -> dict[str, Any]:
    response = httpx.get(
        f"{sandbox.base_url}/openapi.json", timeout=HANG, verify=TLS
    )  # built on first ask
    assert response.status_code == 200
    return response.json()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]


@pytest.mark.parametrize(("method", "path"), list(SUCCESS_SCHEMAS), ids=" ".join)
def test_success_body_is_described_by_its_model(
    document: dict[str, Any], method: str, path: str
) -> None:
    success = document["paths"][path][method]["responses"]["200"]
    schema = success["content"]["application/json"]["schema"]
    assert schema == {"$ref": f"#/components/schemas/{SUCCESS_SCHEMAS[method, path]}"}


def test_every_success_model_is_in_the_components(document: dict[str, Any]) -> None:
    missing = set(SUCCESS_SCHEMAS.values()) - set(document["components"]["schemas"])
    assert missing == set()


def test_path_parameters_keep_the_service_names(document: dict[str, Any]) -> None:
    for _, path, operation in operations(document):
        declared = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
        assert declared == re.findall(r"{(\w+)}", path), path


def test_no_operation_documents_a_422(document: dict[str, Any]) -> None:
    assert [path for _, path, op in operations(document) if "422" in op["responses"]] == []


def test_errors_share_the_one_error_object(document: dict[str, Any]) -> None:
    for _, path, operation in operations(document):
        error = operation["responses"]["400"]["content"]["application/json"]["schema"]
        assert error == {"$ref": "#/components/schemas/Error"}, path
