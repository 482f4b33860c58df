"""Schemathesis against the reference documents, pointed at the sandbox: zero 5xx.

The sandbox's own document is fuzzed by ``test_fuzz.py``; here requests are generated
from the public interface's documents (the repo's copy in ``tests/reference``), so
they carry what a client written from those documents could send. Only "never a
5xx" is checked: where the reference and the spec differ on statuses, the spec wins.
A sandbox of this module's own takes the writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig

from lyt_toolkit.sandbox import Sandbox

from .tally import TALLY

pytestmark = pytest.mark.slow

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
FUZZ = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)


CONFIG = SchemathesisConfig.from_dict(
    {"phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}}}
)
"""Examples and fuzzing only: the coverage phase alone sends ~300 requests an operation."""

PLACEHOLDER = re.compile(r"{([^}]+)}")


def _path_names_match_template(document: dict[str, Any]) -> dict[str, Any]:
    """Some reference operations name their one path parameter ``id`` while the path
    says ``{rewardId}``; for fuzzing, the parameter takes the template's name."""
    for path, item in document["paths"].items():
        placeholders = PLACEHOLDER.findall(path)
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            params = [p for p in operation.get("parameters", []) if p.get("in") == "path"]
            if len(params) == 1 and len(placeholders) == 1:
                params[0]["name"] = placeholders[0]
    return document


def reference_schema(name: str) -> Any:
    document = json.loads((REFERENCE / f"{name}.subset.openapi.json").read_text())
    return schemathesis.openapi.from_dict(_path_names_match_template(document), config=CONFIG)


LOYALTIES = reference_schema("loyalties-v2")
VALIDATION = reference_schema("promotion-tier-validation")
TIERS = reference_schema("promotion-tiers-list")
OAUTH = reference_schema("oauth")
MANAGEMENT = reference_schema("management-webhooks")


@pytest.fixture(scope="module")
def target() -> Iterator[tuple[str, dict[str, str]]]:
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=5) as sb:
        creds = sb.credentials
        headers = {
            **sb.v2_headers("loyalties api promotions"),
            "X-Management-Id": creds.management_id,
            "X-Management-Token": creds.management_token,
        }
        yield sb.base_url, headers


def call(case: Any, target: tuple[str, dict[str, str]]) -> None:
    base_url, headers = target
    response = case.call(base_url=base_url, headers=headers)
    TALLY.add("schemathesis (reference documents)", response.status_code)
    case.validate_response(response, checks=[not_a_server_error])


@LOYALTIES.parametrize()
@FUZZ
def test_loyalties_reference_never_5xx(case: Any, target: tuple[str, dict[str, str]]) -> None:
    call(case, target)


@VALIDATION.parametrize()
@FUZZ
def test_validation_reference_never_5xx(case: Any, target: tuple[str, dict[str, str]]) -> None:
    call(case, target)


@TIERS.parametrize()
@FUZZ
def test_tiers_reference_never_5xx(case: Any, target: tuple[str, dict[str, str]]) -> None:
    call(case, target)


@OAUTH.parametrize()
@FUZZ
def test_oauth_reference_never_5xx(case: Any, target: tuple[str, dict[str, str]]) -> None:
    call(case, target)


@MANAGEMENT.parametrize()
@FUZZ
def test_management_reference_never_5xx(case: Any, target: tuple[str, dict[str, str]]) -> None:
    call(case, target)
