"""A refresh after a stale refusal re-plans the rows kept beside its log once, over real HTTP:
its cost re-plans them (to count the writes it drops; ``check_apply``, as ``lyt apply``
checks first) and the apply that follows on the same
rows takes that plan up; rows kept anew since are re-planned, never the old plan sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit.actions import ChangePlan, change_plan, kept_dropped
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SaveOne, activate, refused_stale


def _counting(monkeypatch: pytest.MonkeyPatch, name: str, *modules: Any) -> list[int]:
    """A count of the calls of function ``name`` made from here on through ``modules``
    (each one's binding of it), by any caller."""
    count = [0]
    function = getattr(modules[0], name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return function(*args, **kwargs)

    for module in modules:
        monkeypatch.setattr(module, name, counted)
    return count


def _replans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A count of the re-plans (``replan.replanned``) made from here on, by any caller."""
    return _counting(monkeypatch, "replanned", change_plan, kept_dropped)


def _refused(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], path: Path, log: Path
) -> None:
    """The plan at ``path`` applied unpaced and refused as stale: its rows kept beside
    ``log``."""
    with make_client(fresh) as client, pytest.raises(StalePlanError):
        ChangePlan.load(path).apply(client, log=log, progress=False)


def _activate(fresh: Sandbox, client: LoyaltyClient, bucket: pd.Series) -> None:
    """``bucket`` activated by someone else (``client``), settled."""
    activate(client, bucket)
    fresh.settle()


def _succeeded(results: pd.DataFrame) -> set[str]:
    return set(results.loc[results["outcome"] == "succeeded", "target"])


def test_a_refresh_after_its_cost_re_plans_the_kept_rows_once(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """Earlier the cost re-planned the kept rows, then the apply's own check and the apply
    re-planned them again: 1.3 s each for 800 kept cards."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = refused_stale(fresh, make_client, path, log, save_one)
    assert len(chosen) > 2
    replans = _replans(monkeypatch)
    with make_client(fresh) as client:
        client.fetch_token()  # its clock the service's (the sandbox's is fixed, not today)
        saved = ChangePlan.load(path)
        # what lyt apply --refresh checks first: its cost re-plans
        saved.check_apply(client, log=log, refresh=True, ignore_unsupported=True)
        assert replans[0] == 1
        results = saved.apply(
            client, log=log, progress=False, refresh=True, ignore_unsupported=True
        )
    assert replans[0] == 1  # taken up: the rows, the log and the date as they were
    assert _succeeded(results) == set(chosen["id"]) - {chosen.iloc[-1]["id"]}


def test_a_refresh_re_plans_rows_kept_anew_after_its_cost(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """Another bucket activated after the cost, a check refused again keeps the rows anew:
    the refresh re-plans from those, once (the plan its cost made is not sent: it would
    activate that bucket). Earlier it re-planned them twice, its check and its apply."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = refused_stale(fresh, make_client, path, log, save_one)  # its last activated
    assert len(chosen) > 2
    first, last = chosen.iloc[0], chosen.iloc[-1]
    replans = _replans(monkeypatch)
    with make_client(fresh) as client:
        client.fetch_token()
        saved = ChangePlan.load(path)
        saved.check_apply(client, log=log, refresh=True, ignore_unsupported=True)
        _activate(fresh, client, first)  # made by someone else after the cost
    _refused(fresh, make_client, path, log)  # a check reads afresh: the rows kept anew
    before = replans[0]
    with make_client(fresh) as client:
        client.fetch_token()
        results = saved.apply(
            client, log=log, progress=False, refresh=True, ignore_unsupported=True
        )
    assert replans[0] - before == 1  # its check's, from the rows kept anew, taken up
    assert _succeeded(results) == set(chosen["id"]) - {first["id"], last["id"]}


def test_a_refresh_checked_by_a_client_holding_no_token_re_plans_the_kept_rows_once(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """As ``lyt apply --refresh`` checks first: the client has heard nothing yet, so its date is
    this machine's, not the sandbox's (fixed at 2026-01-15). Its check, sure to send a call,
    learns the budget (and the service's date) before the cost re-plans. Earlier the cost
    re-planned by this machine's date, then again by the service's once the token came."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = refused_stale(fresh, make_client, path, log, save_one)
    replans = _replans(monkeypatch)
    with make_client(fresh) as client:
        assert not client.holds_token
        saved = ChangePlan.load(path)
        saved.check_apply(client, log=log, refresh=True, ignore_unsupported=True)
        assert replans[0] == 1  # before: 2
        results = saved.apply(
            client, log=log, progress=False, refresh=True, ignore_unsupported=True
        )
    assert replans[0] == 1
    assert _succeeded(results) == set(chosen["id"]) - {chosen.iloc[-1]["id"]}


def test_a_refresh_taking_its_costs_plan_up_types_the_kept_rows_once(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    save_one: SaveOne,
) -> None:
    """The apply's own check counts what the refresh drops from the plan its first check
    made (held): the kept rows are typed for that plan alone. Earlier each check typed them
    again (0.45 s a check at 300 kept cards) only to take the plan held up."""
    path, log = tmp_path / "plan.json", tmp_path / "plan.log.jsonl"
    chosen = refused_stale(fresh, make_client, path, log, save_one)
    typed = _counting(monkeypatch, "_kept_rows", kept_dropped)
    with make_client(fresh) as client:
        client.fetch_token()
        saved = ChangePlan.load(path)
        saved.check_apply(client, log=log, refresh=True, ignore_unsupported=True)
        assert typed[0] == 1
        results = saved.apply(
            client, log=log, progress=False, refresh=True, ignore_unsupported=True
        )
    assert typed[0] == 1  # before: 2, its own check's
    assert _succeeded(results) == set(chosen["id"]) - {chosen.iloc[-1]["id"]}
