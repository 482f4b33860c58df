"""An unsaved plan's write refused for good (404, 409, 423) is logged final with the key of
the write refused: a run again with the log (the same plan, or another holding that write)
neither sends it nor reads it back, as a saved plan's resume does; a write of other values
to that target is sent, and so is the same write once the log is ``reconsider()``-ed.
Counted over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, ActionPlan, ItemResult, Outcome, PlanItem
from lyt_toolkit.actions.log import log_state
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import BUCKET, benefit_rows

Run = Callable[[LoyaltyClient], pd.DataFrame]


def _counted(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient], run: Run
) -> tuple[pd.DataFrame, list[str]]:
    """``run(client)``'s results by target, and each request it sent but the token's."""
    sent: list[str] = []

    def seen(request: httpx.Request) -> None:
        if not request.url.path.endswith("/token"):
            sent.append(f"{request.method} {request.url.path}")

    with (
        httpx.Client(event_hooks={"request": [seen]}, verify=TLS) as http,
        make_client(sb, http_client=http) as client,
    ):
        results = run(client)
    return results.set_index("target"), sent


def _two_refused_one_made(snapshot: ProgramSnapshot) -> pd.DataFrame:
    """Three pending buckets of ``snapshot``: a past date and one of an INACTIVE program
    (each refused 423), and ``BUCKET``, which the service activates."""
    buckets = snapshot.pending_buckets
    pending = buckets["status"] == "PENDING"
    past = buckets.loc[pending & (buckets["date"] < snapshot.pulled_at.normalize()), "id"]
    inactive = buckets.loc[pending & (buckets["program_status"] == "INACTIVE"), "id"]
    return buckets[buckets["id"].isin([past.iloc[0], inactive.iloc[0], BUCKET])]


def _plan(how: str, snapshot: ProgramSnapshot) -> Any:
    """The plan of the three activations, made anew as a user's run again makes it."""
    chosen = _two_refused_one_made(snapshot)
    if how == "ActionPlan.execute":
        return actions.activate_pending_buckets(chosen)
    edit = actions.edit(snapshot)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen["id"]), "status"] = "ACTIVATED"
    return edit.plan()


def _run(how: str, snapshot: ProgramSnapshot, log: Path) -> Run:
    plan = _plan(how, snapshot)
    if how == "ActionPlan.execute":
        return lambda client: plan.execute(client, log=log, progress=False)
    return lambda client: plan.apply(client, log=log, progress=False)


@pytest.mark.parametrize("how", ["ActionPlan.execute", "ChangePlan.apply"])
def test_an_unsaved_plan_run_again_neither_sends_nor_reads_back_its_refusals_for_good(
    how: str,
    fresh: Sandbox,
    fresh_pulled: ProgramSnapshot,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    log = tmp_path / "run.jsonl"
    first, sent = _counted(fresh, make_client, _run(how, fresh_pulled, log))
    refused = first.index[first["outcome"] == "failed"]
    assert len(refused) == 2 and (first.loc[refused, "status"] == 423).all()
    assert sum(call.startswith("POST") for call in sent) == 3, sent

    again, sent = _counted(fresh, make_client, _run(how, fresh_pulled, log))
    # Nothing: neither the two refused writes again nor their read backs (2 POSTs, 2 GETs).
    assert sent == [], sent
    assert _plan(how, fresh_pulled).cost(log=log).needed == 0  # and its cost says so
    assert (again.loc[refused, "outcome"] == "failed").all()  # still named in the results
    assert (again.loc[refused, "status"] == 423).all()
    messages = again.loc[refused, "message"]
    assert messages.str.startswith("not sent again: refused for good at").all(), messages
    assert messages.str.contains("then reconsider() the log to send it again", regex=False).all(), (
        messages
    )
    assert again.loc[BUCKET, "outcome"] == "skipped_already_done"
    final = [json.loads(line) for line in log.open()]
    final = [line for line in final if line.get("final") is True]
    assert {line["target"] for line in final} == set(refused)
    assert all(len(line["write"]) == 64 for line in final)  # the write's sha256, no value

    # The log read as it will read once reconsidered, nothing written: its cost counts them.
    lines = log.read_bytes()
    expected = _plan(how, fresh_pulled).cost(log=ActionLog(log).as_reconsidered()).needed
    assert log.read_bytes() == lines
    ActionLog(log).reconsider()  # what refused them put right (say): sent again, once
    reconsidered, sent = _counted(fresh, make_client, _run(how, fresh_pulled, log))
    assert sum(call.startswith("POST") for call in sent) == 2, sent
    # Every call (a change plan's base tells the refusals' reads back; rows alone, the writes).
    assert expected == (len(sent) if how == "ChangePlan.apply" else 2), (sent, expected)
    assert (reconsidered.loc[refused, "status"] == 423).all()


def test_another_unsaved_plan_sends_a_write_refused_for_good_only_when_it_is_another_write(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """A benefit of a card definition that does not exist is refused 404. A plan made of
    other rows into the same log is told apart write by write: the refused row, unchanged, is
    not sent again (the same write, refused the same way), a new row is, and the refused
    name written with another card definition is another write: sent."""
    log = tmp_path / "run.jsonl"
    missing = benefit_rows("Unsaved", 1, card_definition_id="lcdef_0000000000dead")
    made, new = benefit_rows("Unsaved made", 1), benefit_rows("Unsaved new", 1)

    def run(rows: list[dict[str, Any]]) -> Run:
        plan = actions.create_benefits(rows)
        return lambda client: plan.execute(client, log=log, progress=False)

    first, sent = _counted(fresh, make_client, run(missing + made))
    name = missing[0]["name"]
    assert (first.loc[name, "outcome"], first.loc[name, "status"]) == ("failed", 404)
    assert len(sent) == 2, sent

    other, sent = _counted(fresh, make_client, run([*missing, *new]))
    assert sent == ["POST /v2/loyalties/benefits"], sent  # the new row's only
    assert other.loc[name, "message"].startswith("not sent again: refused for good")
    assert other.loc[new[0]["name"], "outcome"] == "succeeded"

    elsewhere = benefit_rows("Unsaved", 1, card_definition_id="lcdef_0000000000beef")
    changed, sent = _counted(fresh, make_client, run(elsewhere))
    assert sent == ["POST /v2/loyalties/benefits"], sent  # another write: sent
    assert changed.loc[name, "status"] == 404


def test_a_saved_plan_and_an_unsaved_one_never_take_the_others_refusals_for_good(
    tmp_path: Path,
) -> None:
    """A refusal for good is its plan's: a log read for a saved plan file leaves out an
    unsaved run's (keyed by its write), and an unsaved plan's reading leaves out a saved
    plan's (keyed by no write): each sends the write again."""
    plan = actions.create_benefits(benefit_rows("Bound", 2))
    one, two = (item.target for item in plan.items)
    path = tmp_path / "run.jsonl"
    with ActionLog(path) as log:  # an unsaved run's refusal of one, then a saved plan's of two
        log.record(plan.action, one, "failed", status=404, final=True, write="0" * 64)
        log.record(plan.action, two, "failed", status=404, final=True)
    assert set(ActionLog(path, plan="f" * 64).state(plan.action).refused) == {two}
    assert log_state(path, plan.action, items=plan.items).refused == {}


def test_every_write_refused_for_good_at_a_target_stays_unsent_not_only_the_last(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """Two writes to one target, each refused 404 (a benefit of a card definition that does
    not exist, then of another): the first, run again with the log, is still not sent
    (the second refusal's line does not stand for it), until the log is reconsidered. Nothing
    is made, so the directory's sandbox serves as it is."""
    log = tmp_path / "run.jsonl"
    first = benefit_rows("Twice refused", 1, card_definition_id="lcdef_0000000000dead")
    second = benefit_rows("Twice refused", 1, card_definition_id="lcdef_0000000000beef")

    def run(rows: list[dict[str, Any]]) -> Run:
        plan = actions.create_benefits(rows)
        return lambda client: plan.execute(client, log=log, progress=False)

    for rows in (first, second):  # each another write: sent, refused
        refused, sent = _counted(sb, make_client, run(rows))
        assert sent == ["POST /v2/loyalties/benefits"], sent
        assert refused.loc[first[0]["name"], "status"] == 404

    again, sent = _counted(sb, make_client, run(first))
    assert sent == [], sent  # the first write's refusal still counts
    assert again.loc[first[0]["name"], "message"].startswith("not sent again: refused for good")
    assert actions.create_benefits(second).cost(log=log).needed == 0

    ActionLog(log).reconsider()
    _, sent = _counted(sb, make_client, run(first))
    assert sent == ["POST /v2/loyalties/benefits"], sent  # sent again, once reconsidered


class _OnCard:
    """A value of a plan of one's own with no ``repr`` of its own: its default names its
    address, another in every process (and for every such object alive at once)."""

    def __init__(self, card_definition_id: str, since: datetime) -> None:
        self.card_definition_id = card_definition_id
        self.since = since


class _CreateOnCard(ActionPlan[_OnCard]):
    """A plan of one's own: a benefit named by the target, of the payload's card definition."""

    action = "create_benefit_on_card"

    def perform(self, client: LoyaltyClient, item: PlanItem[_OnCard]) -> ItemResult:
        points = {"value": 10, "card_definition_id": item.to_send.card_definition_id}
        body = {"name": item.target, "type": "POINTS", "points": points}
        return ItemResult(Outcome.SUCCEEDED, resource_id=client.benefits.create(body).id)


def _on_card(since: datetime, card_definition_id: str = "lcdef_0000000000dead") -> _CreateOnCard:
    on = _OnCard(card_definition_id, since)
    return _CreateOnCard([PlanItem("Own plan 0000", "create", payload=on)])


def test_a_plan_of_ones_own_built_again_of_equal_values_is_the_same_write(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """An equal payload built anew (another object of no ``repr`` of its own, its moment a
    pandas Timestamp where it was a datetime, as a frame's row gives it) is the write refused
    for good: not sent again. Both plans are alive at once, as two processes' would be."""
    log = tmp_path / "run.jsonl"
    first = _on_card(datetime(2026, 1, 1, tzinfo=UTC))
    refused, sent = _counted(sb, make_client, lambda c: first.execute(c, log=log, progress=False))
    assert sent == ["POST /v2/loyalties/benefits"], sent
    assert refused.loc["Own plan 0000", "status"] == 404

    again = _on_card(pd.Timestamp("2026-01-01", tz="UTC"))
    _, sent = _counted(sb, make_client, lambda c: again.execute(c, log=log, progress=False))
    assert sent == [], sent  # the same write: not sent again
    assert first.items[0].payload is not again.items[0].payload

    other = _on_card(datetime(2026, 1, 1, tzinfo=UTC), "lcdef_0000000000beef")
    _, sent = _counted(sb, make_client, lambda c: other.execute(c, log=log, progress=False))
    assert sent == ["POST /v2/loyalties/benefits"], sent  # another value: another write


class _CreateOfPoints(ActionPlan[pd.Series]):
    """A plan of one's own whose payload is a long Series: a benefit of a card definition
    that does not exist (refused 404), worth the points' sum."""

    action = "create_benefit_of_points"

    def perform(self, client: LoyaltyClient, item: PlanItem[pd.Series]) -> ItemResult:
        points = {"value": int(item.to_send.sum()), "card_definition_id": "lcdef_0000000000dead"}
        body = {"name": item.target, "type": "POINTS", "points": points}
        return ItemResult(Outcome.SUCCEEDED, resource_id=client.benefits.create(body).id)


def _of_points(middle: int) -> _CreateOfPoints:
    """A thousand points, the 500th ``middle``: its ``repr`` shows neither."""
    points = pd.Series(range(1000), name="points")
    points[500] = middle
    return _CreateOfPoints([PlanItem("Own points 0000", "create", payload=points)])


def test_a_series_unlike_the_one_refused_for_good_only_past_its_shown_values_is_sent(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient], tmp_path: Path
) -> None:
    """Two unsaved plans of long Series payloads that differ in a value their ``repr`` cuts
    out are two writes: the second is sent, not taken for the first, refused for good."""
    log = tmp_path / "run.jsonl"
    first, other = _of_points(1), _of_points(2)
    assert repr(first.items[0].payload) == repr(other.items[0].payload)
    refused, sent = _counted(sb, make_client, lambda c: first.execute(c, log=log, progress=False))
    assert sent == ["POST /v2/loyalties/benefits"], sent
    assert refused.loc["Own points 0000", "status"] == 404

    _, sent = _counted(sb, make_client, lambda c: other.execute(c, log=log, progress=False))
    assert sent == ["POST /v2/loyalties/benefits"], sent  # another write: sent
