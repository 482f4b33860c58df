"""Property-based fuzzing of the sandbox over its own OpenAPI document.

Schemathesis generates requests from ``/openapi.json`` and sends them, with valid
credentials so they reach the handlers, to a sandbox of this module's own. Every
answer must be non-5xx, carry a documented status and content type, and match
the documented schema. The admin API is left out: it resets tokens and injects
faults on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from interrupting import HANG
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

pytestmark = pytest.mark.slow

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzz_sandbox() -> Iterator[Sandbox]:
    with Sandbox.start(now="2026-01-15T12:00:00Z", seed=3) as sb:
        yield sb


@pytest.fixture(scope="module")
def fuzz_headers(fuzz_sandbox: Sandbox) -> dict[str, str]:
    creds = fuzz_sandbox.credentials
    return {
        **fuzz_sandbox.v2_headers("loyalties api promotions"),
        "X-Management-Id": creds.management_id,
        "X-Management-Token": creds.management_token,
    }


def sandbox_document() -> dict:
    """The OpenAPI document a sandbox serves at ``/openapi.json`` (read from its app)."""
    from lyt_toolkit.sandbox.app import create_app

    return create_app().openapi()


DOCUMENT = sandbox_document()
schema = schemathesis.openapi.from_dict(DOCUMENT).exclude(path_regex=r"^/_sandbox")


def test_live_sandbox_serves_the_fuzzed_document(fuzz_sandbox: Sandbox) -> None:
    # The first request builds the document: seconds on a loaded machine, past httpx's
    # default 5 s (a fresh clone's run timed out there); the wait only turns a hang into a
    # failure.
    served = httpx.get(f"{fuzz_sandbox.base_url}/openapi.json", timeout=HANG, verify=TLS).json()
    assert served == DOCUMENT
    for path, operations in served["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], (method, path)
            assert "400" in operation["responses"], (method, path)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)
def test_sandbox_survives_fuzzing(
    case: schemathesis.Case, fuzz_sandbox: Sandbox, fuzz_headers: dict[str, str]
) -> None:
    case.call_and_validate(base_url=fuzz_sandbox.base_url, headers=fuzz_headers, checks=CHECKS)
