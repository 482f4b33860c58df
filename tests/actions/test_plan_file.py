"""Plan files bound to their base, over real HTTP: saved and read back, a stale plan
refused naming each changed object, re-planned against the live state on refresh, a
plan applied to completion refused the second time, an interrupted apply resumed from
its log with nothing sent twice, and every broken key of the file refused by name."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from frame_reads import cell, row_of

from lyt_toolkit import Sample, actions
from lyt_toolkit.actions import (
    ChangePlan,
    change_plan,
    create_benefits,
    plan_file,
    plan_reader,
    reread,
)
from lyt_toolkit.actions.change_plan import CHANGE_COLUMNS, as_saved
from lyt_toolkit.actions.log import LogOwner
from lyt_toolkit.actions.plan_file import (
    PlanAlreadyAppliedError,
    PlanFileError,
    StalePlanError,
)
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.errors import BudgetExceededError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import (
    BUCKET,
    SECRETS,
    TIERS,
    SaveFour,
    SimulatedCrash,
    bonus,
    client_with,
    four_kinds_plan,
    names_on_server,
    one_card_of_many_buckets,
    pull,
)
from .test_cancel import CancellingBenefits

_CHECKED = ("card_definition_found", "card_definition_status")
"""Filled by the snapshot from the card definition: not the object's own state."""


def _hash_by_hand(frame: pd.DataFrame, key: str, drop: tuple[str, ...] = ()) -> str:
    row = frame[frame["id"] == key].drop(columns=list(drop))
    [record] = json.loads(row.to_json(orient="records", date_format="iso", date_unit="us"))
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _outcomes(results: pd.DataFrame) -> dict[str, str]:
    """Each call's outcome in an apply's ``results``."""
    return dict(zip(results["call"], results["outcome"], strict=True))


def _applied_again(client: LoyaltyClient, path: Path, log: Path) -> dict[str, str]:
    """Each call's outcome when the plan saved at ``path`` is applied again with ``log``."""
    return _outcomes(
        ChangePlan.load(path).apply(client, log=log, allow_destroy=True, progress=False)
    )


def _live(client: LoyaltyClient) -> dict[str, Any]:
    after = pull(client)
    return {
        "rewards": after.rewards.set_index("id")["status"].astype(str).to_dict(),
        # the service lists PENDING buckets only: an activated one leaves the list
        "bucket": after.pending_buckets.set_index("id")["status"].get(BUCKET, "unlisted"),
        "tiers": after.tier_structures.set_index("id").loc[TIERS, "status"],
        "bonus": int((after.benefits["name"] == "Bonus 05").sum()),
    }


def test_a_saved_plan_records_its_base_and_reads_back_the_same(
    client: LoyaltyClient, tmp_path: Path
) -> None:
    snapshot = pull(client)
    plan, targets = four_kinds_plan(snapshot)
    path = plan.save(tmp_path / "plan.json")

    document = json.loads(path.read_text())
    assert (document["format"], document["version"]) == ("lyt-change-plan", 2)
    assert document["base"] == {
        "source": snapshot.source,
        "pulled_at": snapshot.pulled_at.isoformat(),
    }
    assert [c["call"] for c in document["changes"]] == plan.changes["call"].tolist()
    reward = targets["move_reward_to_draft"]
    hashes = {(t["kind"], t["key"]): t["sha256"] for t in document["touched"]}
    card = targets["card"]
    no_benefit = hashlib.sha256(b"[]").hexdigest()  # the IDs holding the name in the base
    assert hashes == {
        ("card_definitions", card): _hash_by_hand(snapshot.card_definitions, card, ("listed",)),
        ("benefits", "Bonus 05"): no_benefit,
        ("rewards", reward): _hash_by_hand(snapshot.rewards, reward),
        ("pending_buckets", BUCKET): _hash_by_hand(
            snapshot.pending_buckets, BUCKET, ("program_status", "member_status")
        ),
        ("tier_structures", TIERS): _hash_by_hand(snapshot.tier_structures, TIERS, _CHECKED),
    }

    loaded = ChangePlan.load(path)
    # the summary counts the re-read; the file and its sha256 close a loaded plan's text
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    assert str(loaded) == f"{as_saved(plan)}\nFile: {path} (sha256 {sha256})"
    pd.testing.assert_frame_equal(loaded.changes, plan.changes)
    assert [p.action for p in loaded.parts] == [p.action for p in plan.parts]
    for mine, theirs in zip(loaded.parts, plan.parts, strict=True):
        assert [i.target for i in mine.items] == [i.target for i in theirs.items]
        assert [i.payload for i in mine.items] == [i.payload for i in theirs.items]
    assert loaded.base.pulled_at == snapshot.pulled_at
    # the reward, the tier structure, the bucket's card, the card definition, the name
    assert loaded.reread_cost().needed == 5


def test_a_plan_file_s_keys_are_spelled_only_to_name_one_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, save_four: SaveFour
) -> None:
    """A key's name is masked and cut (``clipped``) only for the refusal naming it: loading a
    valid file spells none (it spelled each: 327,211 for a plan of 6,469 items)."""
    path = tmp_path / "plan.json"
    plan, _ = save_four(path)
    spelled: list[str] = []
    clipped = plan_reader.clipped

    def spelling(text: str, width: int = 60) -> str:
        spelled.append(text)
        return clipped(text, width)

    monkeypatch.setattr(plan_reader, "clipped", spelling)
    assert len(ChangePlan.load(path)) == len(plan)
    assert spelled == []
    document = json.loads(path.read_text())
    document["touched"][0]["sha256"] = "\udcff"
    path.write_text(json.dumps(document))
    with pytest.raises(PlanFileError, match=r"key 'touched\[0\]\.sha256': not UTF-8 text"):
        ChangePlan.load(path)
    assert spelled == ["touched", "sha256"]


def test_a_valid_plan_file_s_text_is_checked_whole_and_a_value_no_plan_holds_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, save_four: SaveFour
) -> None:
    """Text that can hold no surrogate (UTF-8 bytes escaping none) is not checked value by
    value (each was: 182,985 checks for a plan of 6,100 items); a file that may hold one,
    or a number or nesting no plan holds, is walked, naming the first such value's key."""
    path = tmp_path / "plan.json"
    plan, _ = save_four(path)
    checked: list[str] = []
    check_text = plan_reader._check_text

    def counted(read: Any, at: Any, text: str) -> Any:
        checked.append(text)
        return check_text(read, at, text)

    monkeypatch.setattr(plan_reader, "_check_text", counted)
    assert len(ChangePlan.load(path)) == len(plan)
    assert checked == []
    document = json.loads(path.read_text())
    # a character escaped as a surrogate pair is text: the walk finds nothing to refuse
    path.write_text(json.dumps({**document, "base": {**document["base"], "source": "\U0001f600"}}))
    assert ChangePlan.load(path).base.source == "\U0001f600"
    assert checked != []
    deep: Any = 1
    for _ in range(8):
        deep = [deep]
    for where, value, refusal in [
        ("source", "\ud83d", r"key 'base\.source': holds a lone surrogate"),
        ("source", "\udcff", r"key 'base\.source': not UTF-8 text \(byte 0xFF\)"),
        ("calls", float("nan"), r"key 'changes\[0\]\.calls': nan is not a number a plan"),
        ("calls", 2**63, r"key 'changes\[0\]\.calls': 9223372036854775808 is beyond a 64"),
        ("calls", 10**50, r"key 'changes\[0\]\.calls': an integer of 51 digits is beyond"),
        ("calls", deep, r"key 'changes\[0\]\.calls(\[0\]){6}': nested deeper than a plan"),
    ]:
        changed = json.loads(path.read_text())
        if where == "source":
            changed["base"]["source"] = value
        else:
            changed["changes"][0]["calls"] = value
        path.write_text(json.dumps(changed))
        with pytest.raises(PlanFileError, match=refusal):
            ChangePlan.load(path)
        path.write_text(json.dumps(document))
    # the first in the file's order: the base's text before a change's number
    document["base"]["source"] = "\ud83d"
    document["changes"][0]["calls"] = float("nan")
    path.write_text(json.dumps(document))
    with pytest.raises(PlanFileError, match=r"key 'base\.source': holds a lone surrogate"):
        ChangePlan.load(path)


def test_a_loaded_plan_counts_its_re_read_once_for_its_summary_and_its_file_s_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, save_four: SaveFour
) -> None:
    """Each count of the re-read walks every touched entry (slow at thousands of items):
    loading counts it once to check the file's summary, an older toolkit's ways only for a
    summary that is not this toolkit's, and the plan's summaries reuse one count."""
    path = tmp_path / "plan.json"
    save_four(path)
    counts: list[bool] = []

    def counting(*args: Any, **kwargs: Any) -> int:
        counts.append(kwargs.get("listed", True))
        return reread.reread_calls(*args, **kwargs)

    for module in (plan_file, change_plan):
        monkeypatch.setattr(module, "reread_calls", counting)
    loaded = ChangePlan.load(path)
    assert counts == [True]  # the summary this toolkit writes: no older way tried
    for _ in range(3):
        assert loaded.summary().endswith("9 calls (5 re-reads, then 4 writes)")
        str(loaded), repr(loaded), loaded.to_string(), loaded.reread_cost()
    assert counts == [True, True]
    document = json.loads(path.read_text())  # an older toolkit's: the writes alone
    document["summary"] = document["summary"].replace(
        "9 calls (5 re-reads, then 4 writes)", "4 calls"
    )
    path.write_text(json.dumps(document))
    counts.clear()
    assert len(ChangePlan.load(path)) == len(loaded)
    assert counts == [True, False]  # each way counted once


def test_a_plan_from_a_sampled_base_says_so_under_its_summary_and_its_file_keeps_it(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """On 20,000 members, a 1,000-member sample's every pending bucket set ACTIVATED planned
    370 activations of the program's 8,000 and said nothing of the sample, nor did its file:
    a reviewer read it as the whole program's. The plan now says under its summary that
    its base is a sample and that the other members' cards and buckets were not read."""
    sampled = ProgramSnapshot.pull(client, progress=False, sample=Sample(3, seed=0))
    assert sampled.sample is not None
    plan, _ = four_kinds_plan(sampled)
    note = (
        f"Base: {sampled.sample}: the other members' cards and pending buckets were not read;"
        " this plan changes none of theirs and says nothing of them"
    )
    assert str(plan).splitlines()[1] == note and plan.to_string().splitlines()[1] == note
    assert plan.base_sample == str(sampled.sample)
    assert escape(note) in plan._repr_html_()
    path = plan.save(tmp_path / "plan.json")
    assert json.loads(path.read_text())["base"]["sample"] == str(sampled.sample)
    loaded = ChangePlan.load(path)
    assert loaded.base_sample == str(sampled.sample)
    assert str(loaded).splitlines()[1] == note and escape(note) in loaded._repr_html_()
    whole, _ = save_four(tmp_path / "whole.json")  # a full base: no such line
    assert whole.base_sample is None and "Base:" not in str(whole)


def test_the_re_read_sends_exactly_the_calls_its_cost_says(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    save_four(tmp_path / "plan.json")
    loaded = ChangePlan.load(tmp_path / "plan.json")
    token = 0 if client.holds_token else 1  # the pull ran on a client of its own
    expected = loaded.reread_cost(client).needed
    used = fresh.plan()["used"]
    assert loaded.stale(client) == []
    # the reward, the tier structure, the bucket's card, the bonus's card definition, one
    # listing of the created names, and the token if one was needed
    assert fresh.plan()["used"] - used == expected == 5 + token


def test_a_stale_plan_is_refused_naming_the_changed_object(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    _, targets = save_four(tmp_path / "plan.json")
    reward = targets["move_reward_to_draft"]
    client.rewards.draft(reward)  # production moved on after the pull
    before = _live(client)

    with pytest.raises(StalePlanError) as caught:
        ChangePlan.load(tmp_path / "plan.json").apply(
            client, log=tmp_path / "log.jsonl", allow_destroy=True, progress=False
        )
    assert caught.value.stale == [f"rewards {reward}"]
    assert f"rewards {reward}" in str(caught.value) and "plan.json" in str(caught.value)
    assert "is stale: 1 object changed since the base" in str(caught.value)
    assert _live(client) == before  # nothing sent
    assert before["bucket"] == "PENDING" and before["bonus"] == 0


def test_a_bucket_activated_meanwhile_is_stale_as_no_longer_pending_not_as_gone(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """The service lists a card's PENDING buckets only: a bucket someone else activated
    after the pull leaves its card's list but still exists. The refusal and the refreshed
    plan say it is no longer PENDING (activated or canceled), not that it is gone."""
    plan, _ = save_four(tmp_path / "plan.json")
    row = row_of(plan.base.pending_buckets.set_index("id"), BUCKET)
    client.pending_buckets.activate(row.program_id, row.member_id, row.card_id, BUCKET)
    fresh.settle()
    assert _live(client)["bucket"] == "unlisted"
    loaded = ChangePlan.load(tmp_path / "plan.json")

    unlisted = "no longer PENDING: activated or canceled (not on its card's list)"
    with pytest.raises(StalePlanError) as caught:
        loaded.apply(client, allow_destroy=True, progress=False)
    assert caught.value.stale == [f"pending_buckets {BUCKET} ({unlisted})"]
    assert "no longer exists" not in str(caught.value)
    refreshed = loaded.refreshed(client)
    assert refreshed.unsupported[["key", "reason"]].to_numpy().tolist() == [[BUCKET, unlisted]]


def test_a_bucket_whose_date_the_service_s_clock_reached_since_the_pull_is_stale(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """On 20,000 members, a plan pulled at 12:00 and applied the next day activated 13
    buckets fewer than its rehearsal: their dates had come on the service's clock meanwhile,
    their rows unchanged, so the re-read found nothing stale and the service refused them
    (423); only a pull and ``verify`` afterwards showed it. Such a bucket is now stale,
    its date named; refreshed, the plan judges its buckets by the service's clock (it took
    this machine's: on a sandbox's, every bucket's date had passed), and such a bucket's
    activation is unsupported, not sent (it was planned and sent: 423, then read back)."""
    plan, _ = save_four(tmp_path / "plan.json")
    assert pd.isna(cell(plan.changes.set_index("key"), BUCKET, "blocked_reason"))
    loaded = ChangePlan.load(tmp_path / "plan.json")
    fresh_plan = loaded.refreshed(client).changes.set_index("key")
    assert pd.isna(cell(fresh_plan, BUCKET, "blocked_reason"))  # the service's today: 01-15
    fresh.advance_clock(6 * 86400)  # past the bucket's date, the pull's day + 5
    before = _live(client)

    with pytest.raises(StalePlanError) as caught:
        loaded.apply(client, allow_destroy=True, progress=False)
    assert caught.value.stale == [
        f"pending_buckets {BUCKET} (its date 2026-01-20 is no longer after the service's"
        " today, 2026-01-21: the service refuses to activate it)"
    ]
    assert _live(client) == before  # nothing sent
    later = loaded.refreshed(client)  # refused for good: not sent (a 423 and its read back)
    assert BUCKET not in set(later.changes["key"])
    assert later.unsupported.set_index("key").loc[BUCKET, "reason"] == (
        "its date 2026-01-20 is no longer after the service's today, 2026-01-21: the service"
        " refuses to activate it"
    )


def test_refresh_plans_again_against_the_live_state(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    _, targets = save_four(tmp_path / "plan.json")
    reward = targets["move_reward_to_draft"]
    client.rewards.draft(reward)
    loaded = ChangePlan.load(tmp_path / "plan.json")

    refreshed = loaded.refreshed(client)
    assert refreshed.changes["call"].tolist() == [
        "create_benefit",
        "activate_pending_bucket",
        "delete_tier_structure",
    ]
    results = loaded.apply(client, refresh=True, allow_destroy=True, progress=False)
    assert results["call"].tolist() == refreshed.changes["call"].tolist()
    assert (results["outcome"] == "succeeded").all()
    live = _live(client)
    assert (live["rewards"][reward], live["bucket"], live["tiers"], live["bonus"]) == (
        "DRAFT",
        "unlisted",
        "DELETED",
        1,
    )


def test_a_plan_applied_to_completion_refuses_to_apply_again(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    save_four(tmp_path / "plan.json")
    first = ChangePlan.load(tmp_path / "plan.json").apply(
        client, allow_destroy=True, progress=False
    )
    assert (first["outcome"] == "succeeded").all()
    assert (tmp_path / "plan.json.applied").exists()

    with pytest.raises(PlanAlreadyAppliedError, match=r"plan\.json was applied to completion"):
        ChangePlan.load(tmp_path / "plan.json").apply(client, allow_destroy=True, progress=False)
    assert _live(client)["bonus"] == 1


class _CrashingDeletes:
    """``client.tier_structures`` whose delete dies before sending (the process killed)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def delete(self, tier_structure_id: str) -> Any:
        raise SimulatedCrash(f"crash before deleting {tier_structure_id}")


def test_an_interrupted_apply_resumes_from_its_log_sending_nothing_twice(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    plan, targets = save_four(tmp_path / "plan.json")
    tiers_before = plan.base.tier_structures.set_index("id").loc[TIERS, "status"]
    log = tmp_path / "log.jsonl"
    crashing = client_with(client, tier_structures=_CrashingDeletes(client.tier_structures))
    with pytest.raises(SimulatedCrash):
        ChangePlan.load(tmp_path / "plan.json").apply(
            crashing,
            log=log,
            allow_destroy=True,
            progress=False,
        )
    assert not (tmp_path / "plan.json.applied").exists()
    halfway = _live(client)
    assert (halfway["bucket"], halfway["tiers"], halfway["bonus"]) == ("unlisted", tiers_before, 1)

    # The reward and bucket differ from the base now, but the log says the plan did it.
    assert _applied_again(client, tmp_path / "plan.json", log) == {
        "create_benefit": "skipped_already_done",
        "move_reward_to_draft": "skipped_already_done",
        "activate_pending_bucket": "skipped_already_done",
        "delete_tier_structure": "succeeded",
    }
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]
    live = _live(client)
    assert (live["rewards"][targets["move_reward_to_draft"]], live["tiers"]) == (
        "DRAFT",
        "DELETED",
    )
    assert (tmp_path / "plan.json.applied").exists()


@pytest.mark.parametrize("refresh", [False, True], ids=["resumed", "refreshed"])
def test_writes_in_doubt_that_reached_the_service_are_the_plans_own_not_drift(
    client: LoyaltyClient, tmp_path: Path, refresh: bool, save_four: SaveFour
) -> None:
    """An apply killed with its create and its move in flight: both reached the service, the
    log has only their ``attempted`` lines. Read back (the name is unique and holds the
    plan's settings; the reward is DRAFT), they are the plan's own writes: neither stale nor
    unsupported on refresh, and not sent again (issue 33, item 3)."""
    _, targets = save_four(tmp_path / "plan.json")
    log = tmp_path / "log.jsonl"
    reward = targets["move_reward_to_draft"]
    create_benefits(bonus(targets["card"])).execute(client, progress=False)
    client.rewards.draft(reward)
    for call, target in (("create_benefit", "Bonus 05"), ("move_reward_to_draft", reward)):
        actions.ActionLog(log).record(call, target, "attempted")

    loaded = ChangePlan.load(tmp_path / "plan.json")
    assert loaded.stale(client, log=log) == []
    results = loaded.apply(client, log=log, refresh=refresh, allow_destroy=True, progress=False)
    outcomes = _outcomes(results)
    assert set(outcomes.values()) == {"succeeded"}
    assert outcomes.keys() >= {"create_benefit", "activate_pending_bucket", "delete_tier_structure"}
    created = results.set_index("call").loc["create_benefit"]
    assert bool(created["recovered"])  # read back, not sent
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]
    assert _live(client)["tiers"] == "DELETED"


def test_a_budget_without_room_to_read_back_a_write_in_doubt_is_refused_not_taken_for_drift(
    fresh: Sandbox,
    client: LoyaltyClient,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    save_four: SaveFour,
) -> None:
    """The cost counts the reads back of each write the log holds in doubt: one call short
    of it, the apply is refused before it sends anything, naming the budget, never as a
    stale plan naming the plan's own benefit."""
    _, targets = save_four(tmp_path / "plan.json")
    log = tmp_path / "log.jsonl"
    create_benefits(bonus(targets["card"])).execute(client, progress=False)
    actions.ActionLog(log).record("create_benefit", "Bonus 05", "attempted")
    loaded = ChangePlan.load(tmp_path / "plan.json")
    without_log, with_log = loaded.cost().needed, loaded.cost(log=log).needed
    # "Bonus 05" is read back twice: by the stale check (own_work), then by its part's run
    assert with_log == without_log + 2
    with make_client(fresh, max_wait=0) as impatient:
        impatient.programs.list(limit=1)  # the token, before the budget is set
        fresh.set_plan(f"{with_log}/hour")
        impatient.programs.list(limit=1)  # reads the budget: one call short of the cost
        used = fresh.plan()["used"]
        with pytest.raises(BudgetExceededError, match="1 short"):
            loaded.apply(impatient, log=log, allow_destroy=True, progress=False, budget_share=1)
        assert fresh.plan()["used"] == used  # nothing sent


@pytest.mark.parametrize("saved", [True, False])
def test_a_fresh_client_learns_the_budget_before_the_re_read_and_is_refused(
    fresh: Sandbox,
    client: LoyaltyClient,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    saved: bool,
    save_four: SaveFour,
) -> None:
    """A client that has read no budget yet learns it from its token request, then refuses a
    plan that cannot finish before sending the re-read or any write."""
    plan, _ = save_four(tmp_path / "plan.json")
    loaded = ChangePlan.load(tmp_path / "plan.json") if saved else plan
    needed = loaded.cost().needed  # no client: no token counted
    fresh.set_plan(f"{1 + needed - 1}/hour")
    with (
        make_client(fresh, max_wait=0) as unread,
        pytest.raises(BudgetExceededError, match="1 short"),
    ):
        loaded.apply(unread, allow_destroy=True, progress=False, budget_share=1.0)
    assert fresh.plan()["used"] == 1  # the token request
    fresh.set_plan("unlimited")
    assert _live(client)["bonus"] == 0


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_learns_the_budget_before_the_re_read_and_refuses_a_plan_without_room(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    needed = ChangePlan.load(path).cost().needed  # no client: no token counted
    fresh.set_plan(f"{1 + needed - 1}/hour")
    assert main(["apply", str(path), "--allow-destroy", "--budget-share", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lyt apply: ") and "1 short" in err
    assert fresh.plan()["used"] == 1  # the token request
    fresh.set_plan("unlimited")
    assert _live(client)["bonus"] == 0


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_keeps_to_its_budget_share_and_names_the_option_to_take_more(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    needed = ChangePlan.load(path).cost().needed
    fresh.set_plan(f"{1 + needed}/hour")  # the token, then exactly the re-read and writes
    assert main(["apply", str(path), "--allow-destroy"]) == 1
    err = capsys.readouterr().err
    assert "its share (0.5) of the call budget" in err and "--budget-share 1 " in err
    assert "budget_share" not in err
    assert main(["apply", str(path), "--allow-destroy", "--budget-share", "2"]) == 1
    assert "--budget-share: must be a number above 0 and at most 1, got '2'" in (
        capsys.readouterr().err
    )
    fresh.set_plan(f"{1 + needed}/hour")  # a new window: this run's token, then the rest
    assert main(["apply", str(path), "--allow-destroy", "--budget-share", "1"]) == 0
    assert fresh.plan()["remaining"] == 0
    fresh.set_plan("unlimited")
    assert _live(client)["bonus"] == 1


def test_a_name_taken_by_another_benefit_while_in_doubt_is_still_stale(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """In doubt, a name held by a benefit with other settings is not the plan's write."""
    _, targets = save_four(tmp_path / "plan.json")
    log = tmp_path / "log.jsonl"
    other = bonus(targets["card"]).assign(points_value=7)
    create_benefits(other).execute(client, progress=False)
    actions.ActionLog(log).record("create_benefit", "Bonus 05", "attempted")
    with pytest.raises(StalePlanError, match='benefit name "Bonus 05"'):
        ChangePlan.load(tmp_path / "plan.json").apply(
            client, log=log, allow_destroy=True, progress=False
        )


@pytest.mark.parametrize(
    ("breaks", "key"),
    [
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.update(version=3), "version"),
        (lambda d: d["base"].update(pulled_at="yesterday"), "base.pulled_at"),
        (lambda d: d["changes"][0].pop("call"), "changes[0].call"),
        (lambda d: d["calls"]["move_reward_to_draft"].clear(), "calls.move_reward_to_draft"),
        (lambda d: d["touched"][1].pop("sha256"), "touched[1].sha256"),
        (lambda d: d["touched"][3].update(card_buckets="2"), "touched[3].card_buckets"),
        (lambda d: d["calls"].update(rename_reward=[]), "calls.rename_reward"),
        (lambda d: d["calls"]["create_benefit"][0].pop("type"), "calls.create_benefit[0]"),
        (lambda d: d["touched"].pop(), "touched"),
        (lambda d: d["touched"].pop(1), "touched"),  # the created benefit's name
        (lambda d: d["changes"][1].update(calls="1"), "changes[1].calls"),
    ],
)
def test_every_broken_key_is_refused_naming_the_file_and_key(
    tmp_path: Path, breaks: Any, key: str, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    document = json.loads(path.read_text())
    breaks(document)
    path.write_text(json.dumps(document))
    with pytest.raises(PlanFileError, match=f"^{re.escape(f'{path}: key {key!r}:')}"):
        ChangePlan.load(path)


def test_a_null_card_bucket_count_reads_as_none_given(tmp_path: Path, save_four: SaveFour) -> None:
    """A hand-edited ``card_buckets: null`` is read as the key left out (it once escaped
    ``load`` as a TypeError when the plan counted its re-read)."""
    save_four(tmp_path / "plan.json")
    document = json.loads((tmp_path / "plan.json").read_text())
    document["touched"][3]["card_buckets"] = None
    (tmp_path / "null.json").write_text(json.dumps(document))
    del document["touched"][3]["card_buckets"]
    (tmp_path / "none.json").write_text(json.dumps(document))
    null, none = ChangePlan.load(tmp_path / "null.json"), ChangePlan.load(tmp_path / "none.json")
    assert str(null).splitlines()[:-1] == str(none).splitlines()[:-1]  # but File: (sha256)
    assert null.reread_cost() == none.reread_cost()


def test_a_file_that_is_not_json_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("{not json")
    with pytest.raises(
        PlanFileError, match=f"^{re.escape(f'{path}: not JSON (line 1, column 2)')}"
    ):
        ChangePlan.load(path)


def test_lyt_apply_of_a_one_line_plan_cut_short_names_where_it_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    """A plan file rewritten on one line (``json.dumps``) and cut short: the refusal names
    the column as well as the line, not ``not JSON (line 1): Unterminated string starting
    at`` and no place in a line of thousands of characters."""
    path = tmp_path / "plan.json"
    save_four(path)
    text = json.dumps(json.loads(path.read_text(encoding="utf-8")))
    cut = text.index('"', text.index('"changes"') + 12) + 3  # inside a string
    path.write_text(text[:cut], encoding="utf-8")
    assert main(["apply", str(path)]) == 1
    err = capsys.readouterr().err
    column = text.rindex('"', 0, cut) + 1
    assert f"not JSON (line 1, column {column}): Unterminated string starting at" in err, err


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_exits_0_once_applied_and_1_when_refused(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)

    assert main(["apply", str(path)]) == 1  # deletes need --allow-destroy
    err = capsys.readouterr().err
    assert err.startswith("lyt apply: ") and f"tier structure {TIERS}" in err
    assert _live(client)["bonus"] == 0

    assert main(["apply", str(path), "--allow-destroy"]) == 0
    out = capsys.readouterr().out
    assert "Re-reading 5 touched objects: calls needed: 5;" in out  # the token came before
    assert "Applied: 4 succeeded" in out
    assert (tmp_path / "plan.json.log.jsonl").exists()

    assert main(["apply", str(path), "--allow-destroy"]) == 1
    assert "was applied to completion" in capsys.readouterr().err
    assert _live(client)["bonus"] == 1


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_names_a_log_it_cannot_use_without_a_traceback(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    save_four(path)
    folder = tmp_path / "logs"
    folder.mkdir()
    assert main(["apply", str(path), "--allow-destroy", "--log", str(folder)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"lyt apply: {folder}: is a folder, not a JSON-lines action log\n"
    assert captured.out == ""
    assert _live(client)["bonus"] == 0  # nothing sent


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_refuses_a_log_of_another_service_before_printing_its_counts(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """A log written against another service shows its writes done there: its (smaller)
    counts are not this service's, so the refusal comes before any summary, and before a
    call (``check_apply`` refuses it as ``apply`` would)."""
    path = tmp_path / "plan.json"
    _, targets = save_four(path)
    elsewhere = LogOwner("http://127.0.0.1:9", client.config.app_id)
    with actions.ActionLog(tmp_path / "plan.json.log.jsonl") as log:  # lyt apply's default
        log.claim(elsewhere)
        for call in ("create_benefit", "move_reward_to_draft", "activate_pending_bucket"):
            log.record(call, targets[call], "succeeded")
    loaded = ChangePlan.load(path)
    assert loaded.summary(log=log.path).endswith("; 2 calls (1 re-read, then 1 write)")
    used = fresh.plan()["used"]

    assert main(["apply", str(path), "--allow-destroy"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"lyt apply: {log.path}: this action log belongs to")
    assert f"belongs to {elsewhere}, not to {client.base_url}" in captured.err
    assert captured.out == ""  # no counts, the log's or the plan's
    for check in (loaded, loaded.plan):
        with pytest.raises(actions.ForeignLogError, match="belongs to"):
            check.check_apply(client, log=log.path, allow_destroy=True)
    assert fresh.plan()["used"] == used  # refused before the token request
    assert _live(client)["bonus"] == 0


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_refuses_a_stale_plan_unless_refreshed(
    client: LoyaltyClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    _, targets = save_four(path)
    reward = targets["move_reward_to_draft"]
    client.rewards.draft(reward)

    assert main(["apply", str(path), "--allow-destroy"]) == 1
    err = capsys.readouterr().err
    assert "is stale" in err and f"rewards {reward}" in err
    for secret in SECRETS:
        assert secret not in err

    assert main(["apply", str(path), "--allow-destroy", "--refresh"]) == 0
    out = capsys.readouterr().out
    assert "--refresh: the plan is made again from the live state just read" in out
    assert out.index("--refresh:") < out.index("Applied: 3 succeeded")
    assert _live(client)["tiers"] == "DELETED"


def test_a_version_1_file_creating_nothing_is_read(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """Version 1 differs only in its creates (no touched entries for them, so no check): one
    creating nothing is read, its summary (an older toolkit's: the writes alone) too. One
    creating benefits is refused (``test_plan_file_hostile``)."""
    path = tmp_path / "plan.json"
    save_four(path)
    document = json.loads(path.read_text())
    document["version"] = 1
    document["changes"] = [c for c in document["changes"] if c["call"] != "create_benefit"]
    del document["calls"]["create_benefit"]
    document["touched"] = [t for t in document["touched"] if t["call"] != "create_benefit"]
    said = document["summary"].replace("1 to create", "0 to create")
    document["summary"] = said.replace("9 calls (5 re-reads, then 4 writes)", "3 calls")
    path.write_text(json.dumps(document))
    loaded = ChangePlan.load(path)
    assert loaded.reread_cost().needed == 3
    assert loaded.stale(client) == []
    assert list(loaded.changes.columns) == list(CHANGE_COLUMNS)
    assert loaded.changes["blocked_reason"].isna().all()  # no such key in older files


def test_a_benefit_name_taken_since_the_base_makes_its_create_stale(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    _, targets = save_four(path)
    taken = create_benefits(bonus(targets["card"])).execute(client, progress=False)
    [taker] = taken["resource_id"].tolist()  # someone created "Bonus 05" after the pull
    loaded = ChangePlan.load(path)

    with pytest.raises(StalePlanError) as caught:
        loaded.apply(client, allow_destroy=True, progress=False)
    assert caught.value.stale == [
        f'benefit name "Bonus 05" (now held by {taker}; the plan creates it)'
    ]
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]  # nothing sent

    refreshed = loaded.refreshed(client)
    assert "create_benefit" not in refreshed.changes["call"].tolist()
    assert refreshed.unsupported[["key", "reason"]].to_numpy().tolist() == [
        ["Bonus 05", "a benefit of that name exists in the live program"]
    ]
    results = loaded.apply(
        client, allow_destroy=True, refresh=True, ignore_unsupported=True, progress=False
    )
    assert sorted(results["call"]) == sorted(
        ["move_reward_to_draft", "activate_pending_bucket", "delete_tier_structure"]
    )
    assert names_on_server(client, "Bonus 05") == ["Bonus 05"]  # still only the other one


@pytest.mark.parametrize("change", ["renamed", "gone"])
def test_a_create_whose_card_definition_changed_or_went_is_stale(
    client: LoyaltyClient, tmp_path: Path, change: str
) -> None:
    snapshot = pull(client)
    definitions = snapshot.card_definitions.copy()
    card = str(definitions["id"].iloc[0])
    if change == "renamed":  # the base holds the name the definition had before a rename
        definitions.loc[definitions["id"] == card, "name"] = "Before the rename"
    else:  # a definition the base held and the live program no longer does
        card = "lcdef_00000000ff"
        definitions = pd.concat([definitions, definitions.iloc[[0]].assign(id=card)])
    base = ProgramSnapshot.from_frames(
        {**snapshot.frames(), "card_definitions": definitions.reset_index(drop=True)},
        source=snapshot.source,
        pulled_at=snapshot.pulled_at,
    )
    edit = actions.edit(base)
    edit.benefits = pd.concat([edit.benefits, bonus(card)], ignore_index=True)
    edit.plan().save(tmp_path / "plan.json")
    loaded = ChangePlan.load(tmp_path / "plan.json")
    assert loaded.reread_cost().needed == 2  # the card definition, one listing of names

    with pytest.raises(StalePlanError) as caught:
        loaded.apply(client, progress=False)
    gone = " (no longer exists)" if change == "gone" else ""
    assert caught.value.stale == [f"card_definitions {card}{gone}"]
    assert names_on_server(client, "Bonus 05") == []


def test_a_plan_of_thousands_of_activations_is_saved_in_a_second_not_a_minute(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """Saving hashed each touched row as a frame of its own (a conversion to JSON each) and
    found each bucket's card by a scan of the plan's rows: 3,000 activations took about half
    a minute (5,303 changes on 20,000 members: 66 s, 0.8 s now). The rows are converted at
    once; the file is the same: each row's hash, each card's bucket count."""
    program = one_card_of_many_buckets(3000)
    with start_sandbox(data=program) as sb, make_client(sb) as client:
        snapshot = pull(client)
    buckets = snapshot.pending_buckets
    assert len(buckets) == 3000 and buckets["card_id"].nunique() == 1
    edit = actions.edit(snapshot)
    edit.pending_buckets["status"] = "ACTIVATED"
    plan = edit.plan()

    conversions = []
    to_json = pd.DataFrame.to_json

    def counted(frame: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
        conversions.append(len(frame))
        return to_json(frame, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pd.DataFrame, "to_json", counted)
        plan.save(tmp_path / "plan.json")

    assert len(conversions) < 10, f"{len(conversions)} frame conversions"  # not one a row
    touched = json.loads((tmp_path / "plan.json").read_text())["touched"]
    assert len(touched) == 3000 and {t["card_buckets"] for t in touched} == {3000}
    for entry in touched[::1000]:
        drop = ("program_status", "member_status")  # joined from the member and program
        assert entry["sha256"] == _hash_by_hand(buckets, entry["key"], drop)
    assert ChangePlan.load(tmp_path / "plan.json").reread_cost().needed == 31  # 3,000 / 100 + 1


def test_the_bucket_re_read_walks_every_page_of_a_card_holding_over_100(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    program = one_card_of_many_buckets()
    with start_sandbox(data=program) as sb, make_client(sb) as client:
        snapshot = pull(client)
        buckets = snapshot.pending_buckets
        assert len(buckets) == 150 and buckets["card_id"].nunique() == 1
        last = str(buckets.sort_values("date")["id"].iloc[-1])  # on the card's second page
        edit = actions.edit(snapshot)
        edit.pending_buckets.loc[edit.pending_buckets["id"] == last, "status"] = "ACTIVATED"
        edit.plan().save(tmp_path / "plan.json")
        loaded = ChangePlan.load(tmp_path / "plan.json")

        assert loaded.reread_cost().needed == 2  # two pages of the card's 150 buckets
        token = 0 if client.holds_token else 1
        used = sb.plan()["used"]
        assert loaded.stale(client) == []
        assert sb.plan()["used"] - used == 2 + token

        # found, not "no longer exists": the bucket is on the second page
        card = buckets.iloc[0][["program_id", "member_id", "card_id"]].tolist()
        first = client.pending_buckets.list(*card, limit=100)
        assert len(first.data) == 100 and last not in {b.id for b in first.data}


@pytest.mark.parametrize("full_page_cursor", [False, True])
def test_a_card_of_exactly_100_buckets_is_re_read_whether_or_not_its_full_page_ends_it(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    full_page_cursor: bool,
) -> None:
    """The interface does not say whether a full last page carries a cursor (to an empty
    page): the re-read counts that page, so a card of exactly 100 buckets is not refused as
    grown where it does, and never sends more than it counted where it does not."""
    with start_sandbox(data=one_card_of_many_buckets(100)) as sb, make_client(sb) as client:
        sb.set_faults(full_page_cursor=full_page_cursor)
        snapshot = pull(client)
        assert len(snapshot.pending_buckets) == 100
        bucket = str(snapshot.pending_buckets["id"].iloc[0])
        edit = actions.edit(snapshot)
        edit.pending_buckets.loc[edit.pending_buckets["id"] == bucket, "status"] = "ACTIVATED"
        edit.plan().save(tmp_path / "plan.json")
        loaded = ChangePlan.load(tmp_path / "plan.json")

        assert loaded.reread_cost().needed == 2  # the page of 100 and the one ending it
        token = 0 if client.holds_token else 1
        used = sb.plan()["used"]
        assert loaded.stale(client) == []
        assert sb.plan()["used"] - used == (2 if full_page_cursor else 1) + token


def test_a_cancelled_apply_stops_every_later_part_and_the_log_resumes_it(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """``cancel`` reaches every part: set as the first part's create is sent, the create
    finishes and the three later parts send nothing; the plan is not marked applied, and
    applying it again with the log sends exactly the rest."""
    _, targets = save_four(tmp_path / "plan.json")
    log = tmp_path / "apply.jsonl"
    cancel = threading.Event()
    creates = CancellingBenefits(client.benefits, cancel, cancel_at=1)

    first = ChangePlan.load(tmp_path / "plan.json").apply(
        client_with(client, benefits=creates),
        log=log,
        allow_destroy=True,
        concurrency=1,
        progress=False,
        cancel=cancel,
    )
    assert _outcomes(first) == {
        "create_benefit": "succeeded",
        "move_reward_to_draft": "cancelled",
        "activate_pending_bucket": "cancelled",
        "delete_tier_structure": "cancelled",
    }
    assert not (tmp_path / "plan.json.applied").exists()
    live = _live(client)
    assert live["bonus"] == 1 and live["bucket"] == "PENDING"
    assert live["rewards"][targets["move_reward_to_draft"]] == "ACTIVE"

    assert _applied_again(client, tmp_path / "plan.json", log) == {
        "create_benefit": "skipped_already_done",
        "move_reward_to_draft": "succeeded",
        "activate_pending_bucket": "succeeded",
        "delete_tier_structure": "succeeded",
    }
    assert (tmp_path / "plan.json.applied").exists() and _live(client)["bonus"] == 1


def test_a_new_plan_saved_over_an_applied_one_applies_and_the_old_one_stays_refused(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """The ``.applied`` record is bound to the plan file's content: the next plan saved at
    the same path applies; the applied one written back there is still refused."""
    path = tmp_path / "plan.json"
    save_four(path)
    old = path.read_bytes()
    ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)

    after = pull(client)
    edit = actions.edit(after)
    reward = str(after.rewards.loc[after.rewards["status"] == "ACTIVE", "id"].iloc[0])
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    edit.plan().save(path)
    results = ChangePlan.load(path).apply(client, progress=False)
    assert results["outcome"].tolist() == ["succeeded"]
    assert _live(client)["rewards"][reward] == "DRAFT"
    records = [
        json.loads(line) for line in (tmp_path / "plan.json.applied").read_text().splitlines()
    ]
    assert len(records) == 2 and records[0]["sha256"] != records[1]["sha256"]

    path.write_bytes(old)
    with pytest.raises(PlanAlreadyAppliedError, match=r"plan\.json was applied to completion"):
        ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)
    assert _live(client)["bonus"] == 1


def test_a_marker_without_a_hash_refuses_any_plan_naming_it(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """An older toolkit's marker cannot tell which plan it records: it refuses, saying
    to delete it when the plan is a new one."""
    path = tmp_path / "plan.json"
    save_four(path)
    (tmp_path / "plan.json.applied").write_text('{"applied_at": "2026-01-01T00:00:00+00:00"}\n')
    with pytest.raises(PlanAlreadyAppliedError, match=r"if this is a new plan, delete that marker"):
        ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)


@pytest.mark.parametrize(
    ("progress", "shown", "printed"),
    [
        (False, "text", False),
        (True, "off", False),
        ("callable", "text", False),
        (True, "text", True),
    ],
)
def test_the_re_read_line_is_printed_only_where_progress_shows(
    client: LoyaltyClient,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    progress: Any,
    shown: str,
    printed: bool,
    save_four: SaveFour,
) -> None:
    save_four(tmp_path / "plan.json")
    monkeypatch.setenv("LYT_PROGRESS", shown)
    counts: list[tuple[int, int]] = []
    ChangePlan.load(tmp_path / "plan.json").apply(
        client,
        allow_destroy=True,
        progress=(lambda done, total: counts.append((done, total)))
        if progress == "callable"
        else progress,
    )
    out = capsys.readouterr().out
    assert ("Re-reading 5 touched objects: calls needed: " in out) is printed
    if progress == "callable":  # the whole plan's items, counted across its parts
        assert counts[-1] == (4, 4)


def test_a_cost_without_a_client_says_no_client_was_given(client: LoyaltyClient) -> None:
    plan = four_kinds_plan(pull(client))[0]
    assert str(plan.cost()) == (
        "calls needed: 4; budget unknown (no client given: pass one to read its budget)"
    )
    assert "no limit headers seen yet" in str(plan.cost(client))  # the demo sandbox sends none


def test_a_refusal_names_the_first_stale_objects_and_counts_the_rest(tmp_path: Path) -> None:
    from lyt_toolkit.actions.staleness import NAMED_AT_MOST, stale_error

    stale = [f"rewards lrew_{n:010d}" for n in range(500)]
    error = stale_error(tmp_path / "plan.json", pd.Timestamp("2026-01-15T12:00Z"), stale)
    message = str(error)
    assert "500 objects changed" in message and error.stale == stale
    assert stale[NAMED_AT_MOST - 1] in message and stale[NAMED_AT_MOST] not in message
    assert f"and {500 - NAMED_AT_MOST} more (the error's stale lists them all)" in message
    assert len(message) < 1000
