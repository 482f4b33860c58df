"""Call budgets over real HTTP: headers per plan, the 429 past the budget, windows on the
sandbox clock, plans changed at run time, what never counts, and exact counts under load."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.cli import build_parser, main
from lyt_toolkit.cli.sandbox import _checked_config
from lyt_toolkit.errors import BadRequestError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.loader import ProgramFileError

from .helpers import assert_bad_request, assert_error
from .serving import refusing_to_serve

if TYPE_CHECKING:
    from lyt_toolkit.client import LoyaltyClient

NOW = "2026-01-15T12:00:00Z"
START = int(datetime.fromisoformat(NOW.replace("Z", "+00:00")).timestamp())
"""The sandbox clock at start, as epoch seconds: 12:00:00, the start of an hour."""

LIMIT_HEADERS = ("x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-retry")

CYCLES = {"free": 500, "startup": 10_000, "growth": 30_000, "professional": 100_000}
"""The published plans' budgets per billing cycle (the reference's figures)."""


@pytest.fixture(scope="module")
def qsb() -> Iterator[Sandbox]:
    with Sandbox.start(now=NOW, seed=7) as sb:
        yield sb


@pytest.fixture
def quota_sb(qsb: Sandbox) -> Sandbox:
    """The module's sandbox at ``NOW`` with its starting plan (put back before each test: no
    test reaches ``qsb`` otherwise)."""
    qsb.set_clock(NOW)
    qsb.reset()
    return qsb


def management(sb: Sandbox) -> httpx.Client:
    """A client whose ``get("/management/v1/projects")`` is one counted call."""
    creds = sb.credentials
    headers = {
        "X-Management-Id": creds.management_id,
        "X-Management-Token": creds.management_token,
    }
    # The first /openapi.json builds the whole schema: seconds on a loaded 2-core machine.
    return httpx.Client(base_url=sb.base_url, headers=headers, timeout=60, verify=TLS)


PROJECTS = "/management/v1/projects"


def limits(response: httpx.Response) -> tuple[int, int, int]:
    """``(limit, remaining, retry)`` of an answer."""
    limit, remaining, retry = (int(response.headers[h]) for h in LIMIT_HEADERS)
    return limit, remaining, retry


@pytest.mark.parametrize(
    ("plan", "budget"),
    [("free", 100), ("startup", 1000), ("growth", 2000), ("professional", 5000)],
)
def test_every_answer_carries_the_hourly_budget_of_the_plan(
    quota_sb: Sandbox, plan: str, budget: int
) -> None:
    quota_sb.set_plan(plan)
    with management(quota_sb) as api:
        first, second = api.get(PROJECTS), api.get(PROJECTS)
    assert first.status_code == second.status_code == 200
    assert limits(first) == (budget, budget - 1, START + 3600)
    assert limits(second) == (budget, budget - 2, START + 3600)
    assert "retry-after" not in first.headers and "x-rate-limit-type" not in first.headers
    assert quota_sb.plan() == {
        "plan": plan,
        "limit": budget,
        "window": "hour",
        "used": 2,
        "remaining": budget - 2,
        "resets_at": "2026-01-15T13:00:00.000Z",
        "cycle_limit": CYCLES[plan],
        "cycle_used": 2,
        "cycle_resets_at": "2026-02-01T00:00:00.000Z",
    }


def test_the_call_past_the_budget_is_refused_429_and_not_counted(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("free")
    with management(quota_sb) as api:
        answers = [api.get(PROJECTS) for _ in range(100)]
        quota_sb.advance_clock(600)  # ten minutes into the hour
        refused = [api.get(PROJECTS) for _ in range(3)]
    assert [a.status_code for a in answers] == [200] * 100
    assert [limits(a)[1] for a in answers] == list(range(99, -1, -1))
    for answer in refused:
        body = assert_error(answer, 429, "too_many_requests")
        assert "100 calls per hour" in body["details"]
        assert "2026-01-15T13:00:00.000Z" in body["details"]
        assert limits(answer) == (100, 0, START + 3600)
        assert answer.headers["retry-after"] == "3000"
        assert answer.headers["x-rate-limit-type"] == "api_calls"
    assert quota_sb.plan()["used"] == 100  # the refused calls were not counted


def test_the_window_resets_when_the_sandbox_clock_reaches_its_end(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("3/minute")
    with management(quota_sb) as api:
        assert [api.get(PROJECTS).status_code for _ in range(3)] == [200] * 3
        refused = api.get(PROJECTS)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "60"
        assert limits(refused) == (3, 0, START + 60)
        quota_sb.advance_clock(59.5)
        still = api.get(PROJECTS)
        assert still.status_code == 429 and still.headers["retry-after"] == "1"
        quota_sb.advance_clock(0.5)
        fresh = api.get(PROJECTS)
    assert fresh.status_code == 200
    assert limits(fresh) == (3, 2, START + 120)


def test_a_clock_set_into_another_window_starts_a_fresh_count(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("2/hour")
    with management(quota_sb) as api:
        api.get(PROJECTS), api.get(PROJECTS)
        assert api.get(PROJECTS).status_code == 429
        quota_sb.set_clock("2026-01-15T15:30:00Z")
        moved = api.get(PROJECTS)
    assert moved.status_code == 200
    assert limits(moved) == (2, 1, START + 4 * 3600)


def test_a_plan_set_at_run_time_applies_at_once_with_its_whole_budget(
    quota_sb: Sandbox,
) -> None:
    quota_sb.set_plan("2/minute")
    with management(quota_sb) as api:
        api.get(PROJECTS), api.get(PROJECTS)
        assert api.get(PROJECTS).status_code == 429
        shown = quota_sb.set_plan("5/hour")
        assert shown["plan"] == "5/hour" and shown["remaining"] == 5
        assert limits(api.get(PROJECTS)) == (5, 4, START + 3600)
        quota_sb.set_plan("unlimited")
        unlimited = [api.get(PROJECTS) for _ in range(20)]
    assert all(a.status_code == 200 for a in unlimited)
    assert not any(h in a.headers for a in unlimited for h in LIMIT_HEADERS)
    assert quota_sb.plan()["limit"] is None and quota_sb.plan()["remaining"] is None


def test_reset_puts_back_the_plan_the_sandbox_started_with(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("1/minute")
    quota_sb.reset()
    assert quota_sb.plan()["plan"] == "unlimited"
    with management(quota_sb) as api:
        assert not any(h in api.get(PROJECTS).headers for h in LIMIT_HEADERS)


def test_the_admin_api_and_the_docs_never_count(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("2/minute")
    with management(quota_sb) as api:
        for _ in range(2):
            for path in ("/_sandbox/plan", "/_sandbox/clock"):
                answer = api.get(path, headers=quota_sb.key_headers())
                assert answer.status_code == 200
                assert not any(h in answer.headers for h in LIMIT_HEADERS)
            assert api.get("/openapi.json").status_code == 200
            assert api.get("/docs").status_code == 200
            assert api.get("/nowhere").status_code == 404
        assert limits(api.get(PROJECTS)) == (2, 1, START + 60)


def test_refused_credentials_and_missing_resources_count(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("3/minute")
    with httpx.Client(base_url=quota_sb.base_url, verify=TLS) as api:
        unauthorized = api.get(PROJECTS)
        missing = api.get("/v1/promotions/tiers/promo_nothing0000", headers=quota_sb.key_headers())
        token = api.post(
            "/oauth/token",
            data={"grant_type": "client_credentials", "scope": "loyalties"},
            headers=quota_sb.key_headers(),
        )
        refused = api.get(PROJECTS)
    assert_error(unauthorized, 401)
    assert limits(unauthorized)[1] == 2
    assert missing.status_code == 404 and limits(missing)[1] == 1
    assert token.status_code == 200 and limits(token)[1] == 0
    assert_error(refused, 429)


def test_calls_in_parallel_are_counted_exactly(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("60/minute")
    creds = quota_sb.credentials
    headers = {"X-Management-Id": creds.management_id, "X-Management-Token": creds.management_token}

    async def all_at_once() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=20)
        async with httpx.AsyncClient(base_url=quota_sb.base_url, limits=limits, verify=TLS) as api:
            return await asyncio.gather(*(api.get(PROJECTS, headers=headers) for _ in range(100)))

    answers = asyncio.run(all_at_once())
    served_ok = [a for a in answers if a.status_code == 200]
    assert len(served_ok) == 60
    assert sorted(limits(a)[1] for a in served_ok) == list(range(60))
    assert [a.status_code for a in answers].count(429) == 40
    assert quota_sb.plan()["used"] == 60


@pytest.mark.parametrize("plan", ["gold", "0/hour", "10/day", "-5/minute", "1.5/hour", ""])
def test_a_plan_that_is_not_one_is_refused_naming_plan(quota_sb: Sandbox, plan: str) -> None:
    with httpx.Client(
        base_url=quota_sb.base_url, headers=quota_sb.key_headers(), verify=TLS
    ) as api:
        answer = api.put("/_sandbox/plan", json={"plan": plan})
        missing = api.put("/_sandbox/plan", json={})
    body = assert_bad_request(answer, "plan: ", "free, startup, growth, professional")
    assert repr(plan) in body["details"]
    assert_bad_request(missing, "plan")
    with pytest.raises(ValueError, match=r"^plan: .*is not a plan"):
        quota_sb.set_plan(plan)
    assert quota_sb.plan()["plan"] == "unlimited"


def test_sandbox_start_takes_a_plan_and_refuses_one_that_is_not() -> None:
    with Sandbox.start(now=NOW, seed=7, plan="Growth") as sb, management(sb) as api:
        assert limits(api.get(PROJECTS)) == (2000, 1999, START + 3600)
    with (
        pytest.raises(ValueError, match=r"^plan: 'platinum' is not a plan"),
        Sandbox.start(now=NOW, plan="platinum"),
    ):
        pass


def _program_with_plans(*plans: Any) -> dict[str, Any]:
    projects = [
        {"id": f"proj_Quota{i:02d}", "name": f"Quota {i}", "plan": plan}
        for i, plan in enumerate(plans)
    ]
    return {"format": "lyt-program/1", "projects": projects}


def test_the_program_file_sets_the_plan_of_its_first_project() -> None:
    program = _program_with_plans({"webhooks": True, "api_calls": "2/minute"}, {})
    with Sandbox.start(program, now=NOW) as sb, management(sb) as api:
        assert limits(api.get(PROJECTS)) == (2, 1, START + 60)
        sb.set_plan("startup")
        sb.reset()
        assert sb.plan()["plan"] == "2/minute"
    with Sandbox.start(program, now=NOW, plan="free") as sb, management(sb) as api:
        assert limits(api.get(PROJECTS)) == (100, 99, START + 3600)


def test_a_plan_in_the_program_file_that_is_not_one_is_named_with_its_place() -> None:
    program = _program_with_plans(
        {"api_calls": "startup"}, {"api_calls": "lots"}, {"api_cals": "free"}, "free"
    )
    with pytest.raises(ProgramFileError) as refused, Sandbox.start(program, now=NOW):
        pass
    assert str(refused.value).splitlines() == [
        "projects[1] proj_Quota01: plan.api_calls: 'lots' is not a plan; expected free,"
        " startup, growth, professional, unlimited, N/hour or N/minute"
        " (N a whole number from 1 to 1000000000)",
        "projects[2] proj_Quota02: plan.api_cals: unknown key",
        "projects[3] proj_Quota03: plan: must be an object",
    ]


def test_serve_refuses_a_plan_that_is_not_one(capsys: pytest.CaptureFixture[str]) -> None:
    with refusing_to_serve():
        assert main(["sandbox", "serve", "--plan", "5/fortnight"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lyt sandbox serve: --plan: '5/fortnight' is not a plan"), err


def test_serve_passes_its_plan_to_the_sandbox() -> None:
    args = build_parser().parse_args(["sandbox", "serve", "--plan", "4/minute"])
    assert _checked_config(args).plan == "4/minute"
    assert _checked_config(build_parser().parse_args(["sandbox", "serve"])).plan is None


def test_answers_of_injected_faults_and_bad_requests_count(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("5/minute")
    with management(quota_sb) as api:
        bad = api.get("/v2/loyalties/rewards", params={"limit": 0}, headers=quota_sb.v2_headers())
        quota_sb.set_faults(unavailable=1.0, retry_after=0)
        try:
            faulted = api.get(PROJECTS)
        finally:
            quota_sb.clear_faults()
    assert_error(bad, 400)
    assert limits(bad)[1] == 3  # the token request counted first
    assert_error(faulted, 503)
    assert limits(faulted)[1] == 2


def answered_at(response: httpx.Response) -> datetime:
    """The instant an answer's ``Date`` header gives."""
    return parsedate_to_datetime(response.headers["date"])


def test_the_date_header_follows_the_sandbox_clock(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("5/minute")
    with management(quota_sb) as api:
        first = api.get(PROJECTS)
        quota_sb.advance_clock(45)
        later = api.get(PROJECTS)
        docs = api.get("/openapi.json")  # not counted, and still on the sandbox clock
    assert first.headers.get_list("date") == [first.headers["date"]]  # uvicorn's is gone
    assert answered_at(first) == datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC)
    assert answered_at(later) == answered_at(docs) == datetime(2026, 1, 15, 12, 0, 45, tzinfo=UTC)
    assert limits(later)[2] - answered_at(later).timestamp() == 15  # the reset, seen from Date


def test_a_client_learns_the_reset_on_the_sandbox_clock(
    make_client: Callable[..., LoyaltyClient],
) -> None:
    with Sandbox.start(now=NOW, seed=7, plan="5/minute") as sb:
        sb.advance_clock(45)  # the window ends at 12:01:00, 15 s away on the sandbox clock
        with make_client(sb) as client:
            client.request("GET", PROJECTS)
            left = client.quota.seconds_to_reset()
            remaining = client.quota.remaining
    assert remaining == 4
    assert left is not None and 13 <= left <= 15  # 15 s less the time the call took


def reminded(response: httpx.Response) -> bool:
    """Whether an answer carries the billing cycle's reminder."""
    return response.headers.get("x-rate-limit-type") == "api_calls_cycle"


@pytest.mark.parametrize("plan", sorted(CYCLES))
def test_the_cycle_reminder_comes_from_the_call_past_the_cycle_budget(
    quota_sb: Sandbox, plan: str
) -> None:
    cycle = CYCLES[plan]
    shown = quota_sb.set_plan(plan, cycle_used=cycle - 2)
    assert (shown["cycle_limit"], shown["cycle_used"]) == (cycle, cycle - 2)
    with management(quota_sb) as api:
        answers = [api.get(PROJECTS) for _ in range(4)]
    assert [a.status_code for a in answers] == [200] * 4
    assert [reminded(a) for a in answers] == [False, False, True, True]
    hourly = shown["limit"]
    assert [limits(a) for a in answers] == [(hourly, hourly - n, START + 3600) for n in range(1, 5)]
    assert not any("retry-after" in a.headers for a in answers)
    assert quota_sb.plan()["cycle_used"] == cycle + 2


def test_calls_refused_for_the_hour_do_not_count_in_the_cycle(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("free", cycle_used=400)
    with management(quota_sb) as api:
        answers = [api.get(PROJECTS) for _ in range(100)]  # the hour's budget: cycle at 500
        refused = [api.get(PROJECTS) for _ in range(2)]
        quota_sb.advance_clock(3600)
        next_hour = api.get(PROJECTS)
    assert [a.status_code for a in answers] == [200] * 100
    assert not any(reminded(a) for a in answers)
    for answer in refused:
        assert_error(answer, 429)
        assert answer.headers["x-rate-limit-type"] == "api_calls"
    assert next_hour.status_code == 200 and reminded(next_hour)
    assert quota_sb.plan()["cycle_used"] == 501


def test_a_new_month_on_the_sandbox_clock_starts_a_fresh_cycle(quota_sb: Sandbox) -> None:
    quota_sb.set_clock("2026-12-31T23:30:00Z")
    quota_sb.set_plan("free", cycle_used=500)
    with management(quota_sb) as api:
        spent = api.get(PROJECTS)
        assert quota_sb.plan()["cycle_resets_at"] == "2027-01-01T00:00:00.000Z"
        quota_sb.advance_clock(1800)
        fresh = api.get(PROJECTS)
        shown = quota_sb.plan()
        quota_sb.set_clock("2026-12-15T00:00:00Z")  # back into December: another cycle again
        back = quota_sb.plan()
    assert spent.status_code == fresh.status_code == 200
    assert reminded(spent) and not reminded(fresh)
    assert (shown["cycle_used"], shown["cycle_resets_at"]) == (1, "2027-02-01T00:00:00.000Z")
    assert (back["cycle_used"], back["cycle_resets_at"]) == (0, "2027-01-01T00:00:00.000Z")


def test_custom_and_unlimited_plans_have_no_cycle(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("free", cycle_used=500)
    with management(quota_sb) as api:
        assert reminded(api.get(PROJECTS))
        for plan in ("1000/hour", "50/minute", "unlimited"):
            shown = quota_sb.set_plan(plan)
            assert (shown["cycle_limit"], shown["cycle_resets_at"]) == (None, None)
            answers = [api.get(PROJECTS) for _ in range(3)]
            assert [a.status_code for a in answers] == [200] * 3
            assert not any("x-rate-limit-type" in a.headers for a in answers)
    assert quota_sb.plan()["cycle_used"] == 3


def test_a_plan_put_in_force_or_reset_starts_its_cycle_at_zero(quota_sb: Sandbox) -> None:
    quota_sb.set_plan("startup", cycle_used=10_000)
    with management(quota_sb) as api:
        assert reminded(api.get(PROJECTS))
        assert quota_sb.set_plan("startup")["cycle_used"] == 0
        assert not reminded(api.get(PROJECTS))
    quota_sb.set_plan("growth", cycle_used=29_000)
    quota_sb.reset()
    assert quota_sb.plan()["cycle_used"] == 0


@pytest.mark.parametrize("cycle_used", [-1, "5", 2.5, True, [3]])
def test_a_cycle_count_that_is_not_one_is_refused_naming_cycle_used(
    quota_sb: Sandbox, cycle_used: object
) -> None:
    with httpx.Client(
        base_url=quota_sb.base_url, headers=quota_sb.key_headers(), verify=TLS
    ) as api:
        taken = api.put("/_sandbox/plan", json={"plan": "free", "cycle_used": 7})
        answer = api.put("/_sandbox/plan", json={"plan": "growth", "cycle_used": cycle_used})
    assert taken.status_code == 200 and taken.json()["cycle_used"] == 7
    assert_bad_request(answer, "cycle_used: ")
    with pytest.raises(BadRequestError, match="cycle_used: "):
        quota_sb.set_plan("growth", cycle_used=cycle_used)  # type: ignore[arg-type]
    assert (quota_sb.plan()["plan"], quota_sb.plan()["cycle_used"]) == ("free", 7)


@pytest.mark.parametrize("plan", ["unlimited", "100/hour"])
def test_a_cycle_count_for_a_plan_without_a_cycle_is_refused(quota_sb: Sandbox, plan: str) -> None:
    with pytest.raises(BadRequestError, match=rf"cycle_used: the {plan} plan has no billing"):
        quota_sb.set_plan(plan, cycle_used=0)
    assert quota_sb.plan()["plan"] == "unlimited"
