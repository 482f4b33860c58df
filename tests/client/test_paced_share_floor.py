"""A paced work whose share of a whole window cannot hold a token request and the call it
serves never ends: a token lasts no longer than a window (the sandbox's an hour, as its
window), so each window it would spend its share on a new token and the call would wait for
the next window, where the token has lapsed again. It is refused before the work sends a call
of its own, naming ``budget_share`` and the smallest share that paces on this plan."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from interrupting import Waits, window_used
from shared_tls import TLS

from lyt_toolkit import ProgramSnapshot, actions
from lyt_toolkit._shares import share_of
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.paced_floor import PacedShareTooSmall, least_share
from lyt_toolkit.errors import BudgetExceededError, PullBudgetError
from lyt_toolkit.sandbox import Sandbox

CARD = "lcdef_c0ffee0001"

TOKENS_AT_MOST = 3
"""Token requests a test lets a paced work send before it stops it (it would never end)."""


def _tokens_counted(waits: Waits) -> tuple[list[httpx.Request], Callable[[httpx.Request], None]]:
    """The requests sent (the sandbox's clock moved on by the client's waits before each)
    and the event hook keeping them, which stops the work at its ``TOKENS_AT_MOST``-th token
    request: a window each, it would send them for ever."""
    sent: list[httpx.Request] = []

    def seen(request: httpx.Request) -> None:
        waits.catch_up()
        sent.append(request)
        tokens = [r for r in sent if r.url.path == "/oauth/token"]
        assert len(tokens) < TOKENS_AT_MOST, f"{len(tokens)} token requests, {len(sent)} calls"

    return sent, seen


def test_a_paced_work_whose_window_share_is_one_call_is_refused_before_its_calls(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """10/hour at 0.1 is one call a window: a paced call is refused, naming budget_share and
    0.2 (two calls a window), after the one call that told the budget (the token request the
    call needs anyway), not sent, nor any token after it, window after window."""
    from lyt_toolkit.client import _transport

    fresh.set_plan("10/hour")
    waits = Waits(fresh)
    monkeypatch.setattr(_transport, "pause", lambda seconds, stops: waits.sleep(seconds))
    sent, seen = _tokens_counted(waits)
    with (
        httpx.Client(event_hooks={"request": [seen]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.quota._clock = client._transport.tokens.clock = waits
        with pytest.raises(ValueError) as refused, client.quota.allowance(0.1, paced=True):
            client.programs.list(limit=1)
    assert [r.url.path for r in sent] == ["/oauth/token"]  # it told the budget; nothing after
    assert str(refused.value) == (
        "budget_share=0.1 of a window's 10 calls is 1 call, which cannot hold a token request"
        " and the call it serves (a token lasts no longer than a window): use at least"
        " budget_share=0.2 to pace this work"
    )


def test_a_paced_export_whose_window_share_is_one_call_exits_naming_the_option(
    fresh: Sandbox,
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``lyt export --checkpoint DIR --budget-share 0.1`` on 10/hour exits 2 (a bad option)
    with one line naming ``--budget-share`` and the share that paces, after the token request
    that told the budget; no call waits for a window (the sandbox's fixed clock never brings
    one: it would wait for ever)."""
    from lyt_toolkit.client import _transport

    def never(seconds: float, stops: object) -> None:
        raise AssertionError(f"a call waited {seconds:g} s for the next window")

    fresh.set_plan("10/hour")
    configure_lyt(fresh)
    monkeypatch.setattr(_transport, "pause", never)
    argv = ["export", "--out", str(tmp_path / "out"), "--checkpoint", str(tmp_path / "pull")]
    code = main([*argv, "--budget-share", "0.1"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert err == (
        "lyt export: --budget-share 0.1 of a window's 10 calls is 1 call, which cannot hold a"
        " token request and the call it serves (a token lasts no longer than a window): use at"
        " least --budget-share 0.2 to pace this work\n"
    )
    assert window_used(fresh) == 1  # the token request that told the budget
    assert not (tmp_path / "out").exists()


def test_a_paced_allowance_is_refused_as_it_is_taken_when_the_budget_is_known(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """The budget known (an earlier call told it), the share is refused as the paced
    allowance is taken, nothing sent for it; at the share it names (two calls a window: the
    token request and the call) a paced call goes, in a whole window."""
    fresh.set_plan("10/hour")
    with make_client(fresh) as client:
        client.programs.list(limit=1)  # its token, then the list: the budget told
        with pytest.raises(ValueError, match=r"budget_share=0\.1 of a window's 10 calls"):
            client.quota.allowance(0.1, paced=True).__enter__()
        assert window_used(fresh) == 2  # nothing sent for the paced work
    fresh.set_plan("10/hour")  # a whole window: a share of it is 0.2 of 10
    with make_client(fresh) as client, client.quota.allowance(0.2, paced=True):
        client.programs.list(limit=1)
    assert window_used(fresh) == 2  # its token request and the call it served


@pytest.mark.parametrize(
    ("limit", "least"),
    [(10, 0.2), (3, 0.67), (7, 0.29), (2, 1.0), (1000, 0.002), (60, 0.034), (1, None)],
)
def test_the_least_share_holds_a_token_request_and_a_call_to_two_digits(
    limit: int, least: float | None
) -> None:
    assert least_share(limit) == least
    if least is not None:
        assert share_of(limit, least) >= 2 > share_of(limit, least - 10 ** -(len(f"{least}") - 2))


def test_a_share_too_small_says_itself_as_plain_decimals() -> None:
    """A command line turns ``budget_share=0.00002`` into its option; ``2e-05`` it could not."""
    assert str(PacedShareTooSmall(0.00001, 100_000)).endswith(
        "use at least budget_share=0.00002 to pace this work"
    )
    assert str(PacedShareTooSmall(0.5, 1)).endswith(
        "no share of a window of 1 call can pace a work"
    )


def test_a_plan_refused_on_a_share_too_small_to_pace_names_the_share_that_paces(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """Refused for the window (0.1 of 10/hour: one call), a plan's ways forward name the share
    that paces it with ``paced=True`` (alone, it would be refused as too small), and that share
    is taken by a paced allowance."""
    fresh.set_plan("10/hour")
    plan = actions.create_benefits(
        [
            {
                "name": f"Floor {i}",
                "type": "POINTS",
                "points": {"value": 5, "card_definition_id": CARD},
            }
            for i in range(3)
        ]
    )
    with make_client(fresh) as client:
        client.programs.list(limit=1)  # the budget told
        with pytest.raises(BudgetExceededError) as refused:
            plan.execute(client, progress=False, budget_share=0.1)
        assert window_used(fresh) == 2  # nothing sent for the plan
        assert "pass paced=True to" not in str(refused.value)
        assert str(refused.value).endswith(
            " or pass paced=True with budget_share=0.2 to send its share of every window,"
            " waiting for each reset, until it is done (resumable from its log)"
        )
        with client.quota.allowance(0.2, paced=True):  # the share named paces
            pass


def test_a_pull_refused_on_a_share_too_small_to_pace_offers_no_paced_pull(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """A checkpointed (paced) pull at 0.1 of 10/hour would be refused as too small: the
    refusal of the pull does not offer it (taken, it would refuse itself, naming the share
    that paces)."""
    fresh.set_plan("10/hour")
    with make_client(fresh) as client, pytest.raises(PullBudgetError) as refused:
        ProgramSnapshot.pull(client, progress=False, budget_share=0.1)
    assert all(way.argument[0] != "checkpoint" for way in refused.value.ways if way.argument)
    assert "checkpoint" not in str(refused.value)
