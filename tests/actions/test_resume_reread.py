"""A resumed apply re-reads only what it still writes to, over real HTTP: an object whose
every write the log shows done (changed, or deleted) is not read again, the estimate is the
calls sent, and the outcome is an uninterrupted apply's; an object with a write left (a card
definition two creates need, one done) is still re-read and checked."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ActionLog, ChangePlan, StalePlanError, create_benefits
from lyt_toolkit.actions.change_plan import reread_line
from lyt_toolkit.actions.reread import left_to_read
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program

from .helpers import bonus, client_with, names_on_server, pull

PROGRAM = generate_program(
    rewards=8,
    benefits=1,
    card_definitions=2,
    tier_structures=5,
    members=1,
    pending_buckets=0,
    seed=3,
)
"""7 ACTIVE rewards and 5 tier structures: a plan of 12 objects, one write each."""
OBJECTS = 12
REWARDS = 7
"""The rewards among them: re-read by one listing (``reread.IDS_PER_READ`` a call)."""


def _rereads(done: int) -> int:
    """The calls of the re-read after the first ``done`` writes (the rewards', then the
    tier structures'): one listing for the rewards left, one read per tier structure."""
    rewards_left = max(0, REWARDS - done)
    return (OBJECTS - done - rewards_left) + (1 if rewards_left else 0)


class _Cancelling:
    """A resource group whose ``method`` sets ``cancel`` as its call number ``at`` is sent
    (the apply stops after it, the rest cancelled and not logged)."""

    def __init__(self, real: Any, method: str, cancel: threading.Event, at: int) -> None:
        self._real, self._method, self._cancel, self._at = real, method, cancel, at
        self.sent = 0

    def __getattr__(self, name: str) -> Any:
        call = getattr(self._real, name)
        if name != self._method:
            return call

        def counted(*args: Any) -> Any:
            self.sent += 1
            if self.sent == self._at:
                self._cancel.set()
            return call(*args)

        return counted


def _save_plan(client: LoyaltyClient, path: Path) -> None:
    """Every ACTIVE reward to draft, every tier structure deleted: 12 objects."""
    edit = actions.edit(pull(client))
    edit.rewards.loc[edit.rewards["status"] == "ACTIVE", "status"] = "DRAFT"
    edit.tier_structures = edit.tier_structures.iloc[:0]
    plan = edit.plan()
    assert len(plan.changes) == OBJECTS and plan.unsupported.empty
    plan.save(path)


def _state(client: LoyaltyClient) -> dict[str, dict[str, str]]:
    """Each reward's and tier structure's live status."""
    after = pull(client)
    return {
        kind: getattr(after, kind).set_index("id")["status"].astype(str).to_dict()
        for kind in ("rewards", "tier_structures")
    }


def _stopped(client: LoyaltyClient, path: Path, log: Path, group: str, at: int) -> None:
    """The plan at ``path`` applied with ``log``, stopped once write ``at`` of ``group``
    (``rewards``' drafts or ``tier_structures``' deletes) is sent."""
    cancel = threading.Event()
    method = "draft" if group == "rewards" else "delete"
    stopping = client_with(
        client, **{group: _Cancelling(getattr(client, group), method, cancel, at)}
    )
    ChangePlan.load(path).apply(
        stopping,
        log=log,
        allow_destroy=True,
        concurrency=1,
        progress=False,
        cancel=cancel,
    )


@pytest.fixture(scope="module")
def applied_whole(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, dict[str, str]]:
    """``_state`` of ``PROGRAM`` once the plan is applied whole, not interrupted: what each
    resumed apply must leave (once a module)."""
    path = tmp_path_factory.mktemp("whole") / "plan.json"
    with start_sandbox(data=PROGRAM) as sb, make_client(sb) as client:
        _save_plan(client, path)
        ChangePlan.load(path).apply(
            client, log=path.with_name("whole.jsonl"), allow_destroy=True, progress=False
        )
        return _state(client)


@pytest.mark.parametrize(
    ("group", "at", "done"),
    [("rewards", 3, 3), ("tier_structures", 2, 7 + 2)],
    ids=["stopped-in-the-changes", "stopped-in-the-deletes"],
)
@pytest.mark.parametrize("refresh", [False, True], ids=["resumed", "refreshed"])
def test_a_resumed_apply_re_reads_only_the_objects_it_still_writes_to(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    group: str,
    at: int,
    done: int,
    refresh: bool,
    applied_whole: dict[str, dict[str, str]],
) -> None:
    """Stopped after ``done`` writes, resumed with the log (``refresh``: re-planned against
    the live rows read, the plan's own changes dropping out instead of skipped)."""
    path, log = tmp_path / "plan.json", tmp_path / "log.jsonl"
    with start_sandbox(data=PROGRAM) as sb, make_client(sb) as client:
        _save_plan(client, path)
        _stopped(client, path, log, group, at)
        assert not (tmp_path / "plan.json.applied").exists()

        sent: list[tuple[str, str]] = []

        def note(request: httpx.Request) -> None:
            sent.append((request.method, request.url.path))

        with (
            httpx.Client(event_hooks={"request": [note]}, verify=TLS) as http,
            make_client(sb, http_client=http) as later,
        ):
            later.programs.list(limit=1)  # its token, before the count
            loaded = ChangePlan.load(path)
            estimate = loaded.cost(later, log=log, budget_share=1.0).needed
            used, sent[:] = sb.plan()["used"], []
            results = loaded.apply(
                later, log=log, refresh=refresh, allow_destroy=True, progress=False
            )
            calls = sb.plan()["used"] - used
        ids = {*loaded.changes["key"]}
        reads = [p for m, p in sent if m == "GET" and p.rsplit("/", 1)[-1] in ids]
        listings = [p for m, p in sent if m == "GET" and p.endswith("/rewards")]
        writes = [p for m, p in sent if m != "GET"]
        # the objects the log shows written: not read (the rewards left: one listing)
        assert len(reads) + len(listings) == _rereads(done)
        assert len(listings) == (done < REWARDS)
        assert len(writes) == OBJECTS - done
        assert calls == estimate == len(sent) == _rereads(done) + OBJECTS - done
        counts = results["outcome"].value_counts()
        skipped = {} if refresh else {"skipped_already_done": done}
        assert counts[counts > 0].to_dict() == {**skipped, "succeeded": OBJECTS - done}
        assert (tmp_path / "plan.json.applied").exists()
        assert _state(client) == applied_whole  # as if not interrupted


def test_the_summary_the_cost_and_the_re_read_line_count_the_same_smaller_re_read(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    path, log = tmp_path / "plan.json", tmp_path / "log.jsonl"
    with start_sandbox(data=PROGRAM) as sb, make_client(sb) as client:
        _save_plan(client, path)
        _stopped(client, path, log, "rewards", 3)
        loaded = ChangePlan.load(path)
        # without the log: every object (the 7 rewards in one listing, 5 tier structures)
        assert loaded.reread_cost().needed == _rereads(0) == 6
        assert loaded.reread_cost(log=log).needed == _rereads(3) == 6
        assert loaded.cost(log=log).needed == 6 + OBJECTS - 3
        assert loaded.summary(log=log).endswith("; 15 calls (6 re-reads, then 9 writes)")
        assert loaded.summary().endswith("; 18 calls (6 re-reads, then 12 writes)")
        assert loaded.check_apply(client, log=log, allow_destroy=True).needed == 15
        assert reread_line(loaded, client, log).startswith(
            "Re-reading 9 of 12 touched objects (not the other 3: the log shows them written):"
            " calls needed: 6;"
        )
        assert len(loaded.live_rows(client, log=log)) == OBJECTS - 3


def test_lyt_apply_resumed_prints_and_sends_the_smaller_re_read(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "plan.json"
    log = tmp_path / "plan.json.log.jsonl"  # lyt apply's default log
    with start_sandbox(data=PROGRAM) as sb, make_client(sb) as client:
        _save_plan(client, path)
        _stopped(client, path, log, "tier_structures", 2)
        configure_lyt(sb)
        used = sb.plan()["used"]
        assert main(["apply", str(path), "--allow-destroy"]) == 0
        out = capsys.readouterr().out
        assert "; 6 calls (3 re-reads, then 3 writes)" in out  # the summary, from the log
        assert "Re-reading 3 of 12 touched objects (not the other 9:" in out
        assert "calls needed: 3;" in out  # the token came before
        assert "Applied: 9 skipped_already_done, 3 succeeded, 0 failed" in out
        assert sb.plan()["used"] - used == 1 + 6  # lyt's own token, then the 6 calls


def _renamed_card_plan(client: LoyaltyClient, path: Path) -> str:
    """A plan creating "Bonus 05" and "Bonus 06" on one card definition, whose base holds
    the definition as it was before a rename (someone's edit since the pull); the card."""
    snapshot = pull(client)
    definitions = snapshot.card_definitions.copy()
    card = str(definitions["id"].iloc[0])
    definitions.loc[definitions["id"] == card, "name"] = "Before the rename"
    base = ProgramSnapshot.from_frames(
        {**snapshot.frames(), "card_definitions": definitions},
        source=snapshot.source,
        pulled_at=snapshot.pulled_at,
    )
    edit = actions.edit(base)
    both = pd.concat([bonus(card), bonus(card).assign(name="Bonus 06")], ignore_index=True)
    edit.benefits = pd.concat([edit.benefits, both], ignore_index=True)
    edit.plan().save(path)
    return card


def test_an_object_with_a_write_left_is_still_re_read_and_checked(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path
) -> None:
    """The card definition both creates need, one of them done by the first run: it is
    re-read, and its rename since the pull is staleness; with both done, it is not read."""
    path, log = tmp_path / "plan.json", tmp_path / "log.jsonl"
    card = _renamed_card_plan(client, path)
    create_benefits(bonus(card)).execute(client, log=log, progress=False)  # the first run's
    loaded = ChangePlan.load(path)
    assert loaded.reread_cost(log=log).needed == 2  # the card definition, one listing
    used = fresh.plan()["used"]
    with pytest.raises(StalePlanError) as caught:
        loaded.apply(client, log=log, progress=False)
    assert caught.value.stale == [f"card_definitions {card}"]
    assert fresh.plan()["used"] - used == 2  # the card definition, "Bonus 06"'s listing
    assert names_on_server(client, "Bonus 06") == []

    # the plan's own run (its lines after its plan line): an unsaved run's would be no plan's
    own = ActionLog(log, plan=loaded.sha256)
    create_benefits(bonus(card).assign(name="Bonus 06")).execute(client, log=own, progress=False)
    assert loaded.reread_cost(log=log).needed == 0
    used = fresh.plan()["used"]
    results = loaded.apply(client, log=log, progress=False)
    assert fresh.plan()["used"] == used  # nothing left to read or write
    assert set(results["outcome"]) == {"skipped_already_done"}


def test_an_object_is_left_out_of_the_re_read_once_every_write_to_it_is_done() -> None:
    """The rule alone: an object is left out once every write to it is done."""
    creates = pd.DataFrame({"name": ["A", "B"], "card_definition_id": ["C", "C"]})
    touched = [
        {"kind": "card_definitions", "key": "C", "call": "create_benefit"},
        {"kind": "benefits", "key": "A", "call": "create_benefit"},
        {"kind": "benefits", "key": "B", "call": "create_benefit"},
        {"kind": "pending_buckets", "key": "b1", "call": "activate_pending_bucket"},
        {"kind": "pending_buckets", "key": "b2", "call": "activate_pending_bucket"},
    ]
    inputs = {"create_benefit": creates}

    def left(**done: set[str]) -> list[str]:
        return [t["key"] for t in left_to_read(touched, inputs, done)]

    assert left() == ["C", "A", "B", "b1", "b2"]
    assert left(create_benefit={"A"}, activate_pending_bucket={"b1"}) == ["C", "B", "b2"]
    assert left(create_benefit={"A", "B"}, activate_pending_bucket={"b1", "b2"}) == []
    assert left(move_reward_to_draft={"A", "b1"}) == ["C", "A", "B", "b1", "b2"]  # other call
