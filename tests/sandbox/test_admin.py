"""The sandbox's own admin API: faults, clock and reset."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.errors import BadRequestError
from lyt_toolkit.sandbox import Sandbox

from .helpers import assert_bad_request, assert_error

REWARDS = "/v2/loyalties/rewards"
NOW = "2026-01-15T12:00:00.000Z"


def admin(
    sb: Sandbox, keys: dict[str, str], method: str, path: str, **kwargs: Any
) -> httpx.Response:
    return httpx.request(method, f"{sb.base_url}/_sandbox{path}", headers=keys, **kwargs)


def test_rate_limit_fault_answers_429_with_retry_after(
    restore: Sandbox, api: httpx.Client, key_headers: dict[str, str]
) -> None:
    restore.set_faults(rate_limit=1.0, retry_after=3)
    response = api.get(REWARDS)
    assert_error(response, 429)
    assert response.headers["Retry-After"] == "3"
    assert admin(restore, key_headers, "GET", "/clock").status_code == 200  # admin is exempt
    restore.clear_faults()
    assert api.get(REWARDS).status_code == 200


def test_unavailable_fault_answers_503(restore: Sandbox, api: httpx.Client) -> None:
    restore.set_faults(unavailable=1.0)
    assert_error(api.get(REWARDS), 503)
    assert_error(api.post("/v2/loyalties/rewards/lrew_c0ffee0001/draft"), 503)
    restore.clear_faults()
    assert api.get("/v2/loyalties/rewards/lrew_c0ffee0001").json()["status"] == "ACTIVE"


def test_the_faults_count_the_requests_they_answered_since_they_were_set(
    restore: Sandbox, api: httpx.Client, key_headers: dict[str, str]
) -> None:
    """What a test waits on to know a client was refused, rather than on a while."""
    restore.set_faults(rate_limit=1.0, retry_after=7)
    assert restore.faults()["answered"] == {"rate_limit": 0, "unavailable": 0}
    assert [api.get(REWARDS).status_code for _ in range(3)] == [429] * 3
    restore.now()  # admin calls are neither faulted nor counted
    seen = admin(restore, key_headers, "GET", "/faults").json()
    assert seen == {
        **restore.set_faults(rate_limit=1.0, retry_after=7),
        "answered": {"rate_limit": 3, "unavailable": 0},
    }
    assert restore.faults()["answered"] == {"rate_limit": 0, "unavailable": 0}  # set anew
    restore.set_faults(unavailable=1.0)
    assert api.get(REWARDS).status_code == 503
    assert restore.faults()["answered"] == {"rate_limit": 0, "unavailable": 1}
    restore.clear_faults()
    assert api.get(REWARDS).status_code == 200
    cleared = restore.faults()
    assert (cleared["rate_limit"], cleared["unavailable"]) == (0, 0)
    assert cleared["answered"] == {"rate_limit": 0, "unavailable": 0}


@pytest.mark.waits
def test_delay_fault_slows_requests_down(restore: Sandbox, api: httpx.Client) -> None:
    restore.set_faults(delay_seconds=2.0, delay_fraction=1.0)
    started = time.perf_counter()
    assert api.get(REWARDS).status_code == 200
    assert time.perf_counter() - started >= 2.0
    started = time.perf_counter()
    restore.now()  # admin paths are never delayed (a wide margin: the machine may be busy)
    assert time.perf_counter() - started < 2.0


def test_fractions_of_faults_are_seeded(restore: Sandbox, api: httpx.Client) -> None:
    def run() -> list[int]:
        restore.set_faults(rate_limit=0.3, unavailable=0.2, seed=42)
        return [api.get(REWARDS, params={"limit": 1}).status_code for _ in range(40)]

    first = run()
    assert {200, 429, 503} == set(first)
    assert run() == first  # the same seed draws the same faults


def test_full_page_cursor_ends_a_full_last_page_with_a_cursor_to_an_empty_one(
    restore: Sandbox, api: httpx.Client
) -> None:
    listed = len(api.get(REWARDS, params={"limit": 100}).json()["data"])
    assert api.get(REWARDS, params={"limit": listed}).json()["cursor"] is None
    restore.set_faults(full_page_cursor=True)
    full = api.get(REWARDS, params={"limit": listed}).json()
    assert len(full["data"]) == listed and full["cursor"]["next"].startswith("lcrsrew_")
    after = api.get(REWARDS, params={"limit": listed, "cursor": full["cursor"]["next"]}).json()
    assert after["data"] == [] and after["cursor"] is None
    short = api.get(REWARDS, params={"limit": listed + 1}).json()
    assert len(short["data"]) == listed and short["cursor"] is None  # a short page still ends
    restore.clear_faults()


@pytest.mark.parametrize(
    "settings",
    [{"rate_limit": 1.5}, {"unavailable": -0.1}, {"delay_seconds": 100}, {"surprise": 1}],
)
def test_bad_fault_settings_are_400(
    sandbox: Sandbox, key_headers: dict[str, str], settings: dict
) -> None:
    assert_error(admin(sandbox, key_headers, "PUT", "/faults", json=settings), 400)


@pytest.mark.parametrize(
    ("helper", "arguments", "named"),
    [
        ("set_faults", {"rate_limit": 1.5}, "rate_limit"),
        ("set_faults", {"surprise": 1}, "surprise"),
        ("set_clock", {"now": "soon"}, "now"),
        ("set_clock", {"now": "9999-12-31T23:59Z"}, "now"),
        ("advance_clock", {"seconds": -5}, "seconds"),
    ],
)
def test_admin_helpers_raise_the_sandbox_answer_naming_the_field(
    restore: Sandbox, helper: str, arguments: dict, named: str
) -> None:
    with pytest.raises(BadRequestError) as refused:
        getattr(restore, helper)(**arguments)
    error = refused.value
    assert error.status == 400 and error.details is not None and error.details.startswith(named)
    assert error.details in str(error) and error.path is not None and error.path in str(error)
    assert restore.now() == NOW  # nothing changed


def test_admin_needs_the_key_pair(sandbox: Sandbox, management_headers: dict[str, str]) -> None:
    assert_error(admin(sandbox, {}, "POST", "/reset"), 401)
    assert_error(admin(sandbox, management_headers, "PUT", "/faults", json={}), 401)


def test_clock_set_and_advance(restore: Sandbox, key_headers: dict[str, str]) -> None:
    assert restore.now() == NOW
    assert restore.advance_clock(90) == "2026-01-15T12:01:30.000Z"
    assert restore.set_clock("2026-03-01T00:00:00Z") == "2026-03-01T00:00:00.000Z"
    bad = admin(restore, key_headers, "POST", "/clock/set", json={"now": "soon"})
    assert_bad_request(bad, "now")
    negative = admin(restore, key_headers, "POST", "/clock/advance", json={"seconds": -5})
    assert_bad_request(negative, "seconds")
    too_far = admin(restore, key_headers, "POST", "/clock/set", json={"now": "9999-12-31T23:59Z"})
    assert_bad_request(too_far, "now")
    restore.set_clock("8999-06-01T00:00:00Z")
    beyond = admin(restore, key_headers, "POST", "/clock/advance", json={"seconds": 3e8})
    assert_bad_request(beyond, "seconds")
    assert restore.now() == "8999-06-01T00:00:00.000Z"


def test_reset_restores_the_loaded_data(
    restore: Sandbox,
    api: httpx.Client,
    management_headers: dict[str, str],
) -> None:
    before_rewards = api.get(REWARDS, params={"limit": 100}).json()["data"]
    benefit = {
        "name": "Made before reset",
        "type": "POINTS",
        "points": {"value": 1, "card_definition_id": "lcdef_c0ffee0001"},
    }
    created = api.post("/v2/loyalties/benefits", json=benefit).json()
    api.post("/v2/loyalties/rewards/lrew_c0ffee0001/draft")
    api.delete("/v2/loyalties/tier-structures/lts_c0ffee0001")
    hook = "/management/v1/projects/proj_NwMain01/webhooks/wh_NwMainLoyalty01"
    assert (
        httpx.delete(restore.base_url + hook, headers=management_headers, verify=TLS).status_code
        == 204
    )

    restore.reset()
    with httpx.Client(base_url=restore.base_url, headers=restore.v2_headers(), verify=TLS) as again:
        assert again.get(REWARDS, params={"limit": 100}).json()["data"] == before_rewards
        assert again.get(f"/v2/loyalties/benefits/{created['id']}").status_code == 404
        status = again.get("/v2/loyalties/tier-structures/lts_c0ffee0001").json()["status"]
        assert status == "ACTIVE"
    hooks = httpx.get(
        restore.base_url + "/management/v1/projects/proj_NwMain01/webhooks",
        headers=management_headers,
        verify=TLS,
    ).json()["data"]
    assert "wh_NwMainLoyalty01" in {h["id"] for h in hooks}
