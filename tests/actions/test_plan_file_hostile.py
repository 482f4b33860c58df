"""A saved plan file as an attacker edits, links, swaps or feeds it, over real HTTP: each
route is refused before any write (most before any call), on one line naming the file and
what is wrong, and no token planted in the file is ever printed."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan, PlanAlreadyAppliedError, StalePlanError
from lyt_toolkit.actions.lock import LockHeldError, held
from lyt_toolkit.actions.plan_reader import MAX_BYTES, PlanFileError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import SECRETS, TIERS, SaveFour, one_card_of_many_buckets, pull

Document = dict[str, Any]


def _saved(save_four: SaveFour, path: Path) -> tuple[Document, dict[str, str]]:
    """The four-kind plan of the live program saved to ``path``: its document and targets."""
    _, targets = save_four(path)
    return json.loads(path.read_text(encoding="utf-8")), targets


def _refused(path: Path, key: str = "") -> str:
    """Loading ``path`` is refused on one line naming the file (and ``key``): the message."""
    with pytest.raises(PlanFileError) as caught:
        ChangePlan.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: " + (f"key {key!r}: " if key else "")), message
    assert "\n" not in message
    return message


def _untouched(client: LoyaltyClient, targets: dict[str, str]) -> None:
    """None of the four-kind plan's writes reached the service."""
    after = pull(client)
    assert after.rewards.set_index("id").loc[targets["move_reward_to_draft"], "status"] == "ACTIVE"
    assert after.tier_structures.set_index("id").loc[TIERS, "status"] != "DELETED"
    assert not (after.benefits["name"] == targets["create_benefit"]).any()


# -- tokens planted in the file -----------------------------------------------------------


def _in_format(document: Document, token: str) -> None:
    document["format"] = token


def _in_a_change_key(document: Document, token: str) -> None:
    document["changes"][0]["key"] = token


def _in_a_call_cell(document: Document, token: str) -> None:
    document["calls"]["move_reward_to_draft"][0]["id"] = token


def _as_a_key_name(document: Document, token: str) -> None:
    document["calls"]["delete_tier_structure"][0][token] = "x"


PLANTED: dict[str, Callable[[Document, str], None]] = {
    "format": _in_format,
    "a change's key": _in_a_change_key,
    "a call's cell": _in_a_call_cell,
    "a column's name": _as_a_key_name,
}


@pytest.mark.parametrize("where", PLANTED)
@pytest.mark.parametrize("token", range(len(SECRETS)), ids=["app token", "management token"])
@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_token_planted_in_a_plan_file_is_never_printed_by_lyt_apply(
    fresh: Sandbox,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    where: str,
    token: int,
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    PLANTED[where](document, SECRETS[token])
    path.write_text(json.dumps(document), encoding="utf-8")
    used = fresh.plan()["used"]

    assert main(["apply", str(path), "--allow-destroy"]) == 1
    out, err = capsys.readouterr()
    assert err.startswith(f"lyt apply: {path}: key ") and err.count("\n") == 1, err
    assert "***" in err
    for secret in SECRETS:
        assert secret not in out + err
    assert fresh.plan()["used"] == used  # refused before connecting


@pytest.mark.parametrize("where", PLANTED)
@pytest.mark.parametrize("token", range(len(SECRETS)), ids=["app token", "management token"])
@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_token_planted_in_a_plan_file_is_never_quoted_by_change_plan_load(
    client: LoyaltyClient, tmp_path: Path, where: str, token: int, save_four: SaveFour
) -> None:
    """``ChangePlan.load`` knows no client: the tokens the environment configures (here by
    ``lyt_to_fresh``) are masked in its error, as ``lyt apply`` masks them."""
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    PLANTED[where](document, SECRETS[token])
    path.write_text(json.dumps(document), encoding="utf-8")

    message = _refused(path)
    assert "***" in message
    for secret in SECRETS:
        assert secret not in message


@pytest.mark.parametrize("where", PLANTED)
@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_bearer_token_no_one_configured_is_masked_whole_by_change_plan_load(
    tmp_path: Path, where: str, save_four: SaveFour
) -> None:
    """Another project's token, pasted into the file: quoted as ``Bearer ***``, not as its
    first 50 characters."""
    foreign = "eyJhbGciOiJIUzI1NiJ9.pasted-into-the-plan.0123456789abcdef"
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    PLANTED[where](document, f"Bearer {foreign}")
    path.write_text(json.dumps(document), encoding="utf-8")

    message = _refused(path)
    assert "Bearer ***" in message and foreign[:8] not in message, message


# -- IDs that look like the reviewed ones ------------------------------------------------


@pytest.mark.parametrize(
    "disguise",
    [
        lambda key: key.replace("e", "\u0435"),  # Cyrillic e
        lambda key: key + "\u200b",  # zero-width space
        lambda key: key.replace("0", "\uff10"),  # full-width digit
        lambda key: f"{key}/../lrew_c0ffee0002",  # another reward by path
        lambda key: f"{key}?status=ACTIVE",
    ],
    ids=["cyrillic", "zero-width", "full-width", "path", "query"],
)
def test_an_id_disguised_everywhere_in_the_file_is_refused_by_its_shape(
    tmp_path: Path, disguise: Callable[[str], str], save_four: SaveFour
) -> None:
    """The disguised ID put consistently in the change, its call and its touched entry:
    no hash or row disagrees, but no service ID looks like it."""
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    reward = targets["move_reward_to_draft"]
    disguised = disguise(reward)
    for row in [*document["changes"], *document["touched"]]:
        if row["key"] == reward:
            row["key"] = disguised
    document["calls"]["move_reward_to_draft"][0]["id"] = disguised
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")

    assert "lrew_<hex digits>" in _refused(path, "calls.move_reward_to_draft[0]")


# -- the touched entries --------------------------------------------------------------------


def test_an_object_touched_twice_is_refused_naming_both_entries(
    tmp_path: Path, save_four: SaveFour
) -> None:
    """A second entry for one object could carry another base hash than the reviewed one."""
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    reward = targets["move_reward_to_draft"]
    first = next(n for n, t in enumerate(document["touched"]) if t["key"] == reward)
    document["touched"].append({**document["touched"][first], "sha256": "0" * 64})
    path.write_text(json.dumps(document), encoding="utf-8")

    message = _refused(path, f"touched[{len(document['touched']) - 1}]")
    assert f"touched[{first}] again" in message and reward in message


# -- what the path is ---------------------------------------------------------------------


def test_a_pipe_for_a_plan_file_is_refused_without_waiting_on_it(
    tmp_path: Path, save_four: SaveFour
) -> None:
    """A FIFO is not read (a reader would block until some writer came, then take whatever
    it wrote); a folder is named as one."""
    saved = tmp_path / "plan.json"
    _saved(save_four, saved)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)

    def feed() -> None:  # what a writer would pass off as the plan
        try:
            with fifo.open("wb") as pipe:
                pipe.write(saved.read_bytes())
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        assert "is a pipe or a device, not a plan file" in _refused(fifo)
    finally:  # let the writer's open return, and so the thread end
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        writer.join()
        os.close(reader)
    assert "is a folder, not a plan file" in _refused(tmp_path)


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    with path.open("wb") as file:  # sparse: no disk is used
        file.write(b'{"format": "lyt-change-plan", "pad": "')
        file.truncate(MAX_BYTES + 1)
    assert "over 256 MiB" in _refused(path)


# -- links, swaps and the ledger -----------------------------------------------------------


def test_a_plan_applied_through_one_link_is_refused_through_another_before_any_call(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    real = tmp_path / "reviewed" / "plan.json"
    real.parent.mkdir()
    _saved(save_four, real)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.symlink_to(real)
    second.symlink_to(real)
    ChangePlan.load(first).apply(client, allow_destroy=True, progress=False)
    used = fresh.plan()["used"]

    again = ChangePlan.load(second)
    assert again.applied_marker == real.with_name("plan.json.applied")
    with pytest.raises(PlanAlreadyAppliedError, match="was applied to completion"):
        again.apply(client, allow_destroy=True, progress=False)
    assert fresh.plan()["used"] == used


def test_two_links_to_one_plan_take_one_lock(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """An apply through one link holds the plan; one through another link is refused."""
    real = tmp_path / "plan.json"
    _, targets = _saved(save_four, real)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    first.symlink_to(real)
    second.symlink_to(real)
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:
        with held(first, "is being applied"):
            holding.set()
            done.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        holding.wait()
        with pytest.raises(LockHeldError, match="is being applied by another process"):
            ChangePlan.load(second).apply(client, allow_destroy=True, progress=False)
    finally:
        done.set()
        holder.join()
    _untouched(client, targets)


def test_a_marker_damaged_by_bytes_not_utf8_still_refuses_the_applied_plan(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    _saved(save_four, path)
    ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)
    with ChangePlan.load(path).applied_marker.open("ab") as marker:
        marker.write(b'{"applied_at": "caf\xe9", \xff\xfe\n')  # a damaged line after it

    with pytest.raises(PlanAlreadyAppliedError):
        ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)
    configure_lyt(fresh)
    assert main(["apply", str(path), "--allow-destroy"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt apply: {path} was applied to completion") and err.count("\n") == 1


def test_a_file_swapped_after_load_is_not_what_is_applied(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """The plan loaded (and shown) is the plan applied: a file rewritten between ``load``
    and ``apply`` sends none of its calls, and the ledger records the bytes loaded."""
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    loaded = ChangePlan.load(path)
    document["changes"] = [c for c in document["changes"] if c["key"] != TIERS]
    del document["calls"]["delete_tier_structure"]
    document["touched"] = [t for t in document["touched"] if t["key"] != TIERS]
    document["summary"] = (
        document["summary"]
        .replace("1 to delete", "0 to delete")
        .replace("9 calls (5 re-reads, then 4 writes)", "7 calls (4 re-reads, then 3 writes)")
    )
    path.write_text(json.dumps(document), encoding="utf-8")  # the swap

    results = loaded.apply(client, progress=False, allow_destroy=True)
    assert sorted(results["call"]) == sorted(loaded.inputs) and "delete_tier_structure" in set(
        results["call"]
    )
    assert set(results["outcome"]) == {"succeeded"}
    assert loaded.applied_before() is not None
    assert ChangePlan.load(path).applied_before() is None  # the swapped file: another plan


def test_a_copy_of_an_applied_plan_is_refused_as_stale_before_any_write(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """A copy elsewhere has no marker beside it: the re-read (calls the docs count) finds
    every object the plan changed no longer as its base hash says, and nothing is sent."""
    path = tmp_path / "plan.json"
    _, targets = _saved(save_four, path)
    ChangePlan.load(path).apply(client, allow_destroy=True, progress=False)
    copy = tmp_path / "elsewhere" / "plan.json"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    before = pull(client)

    with pytest.raises(StalePlanError, match=targets["move_reward_to_draft"]):
        ChangePlan.load(copy).apply(client, allow_destroy=True, progress=False)
    after = pull(client)
    assert (after.benefits["name"] == targets["create_benefit"]).sum() == 1
    for kind in ("rewards", "tier_structures", "benefits"):
        assert getattr(after, kind).equals(getattr(before, kind)), kind


# -- a downgrade, an understated count -----------------------------------------------------


@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_file_relabelled_version_1_to_skip_its_creates_check_is_refused_before_any_call(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """Version 1 files hold no base hashes of their creates: relabelled so, a file would
    create a benefit whatever took its name or changed its card since. A version 1 file
    creating nothing is still read."""
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    document["version"] = 1
    document["touched"] = [t for t in document["touched"] if t["call"] != "create_benefit"]
    document["summary"] = document["summary"].replace(
        "9 calls (5 re-reads, then 4 writes)", "7 calls (3 re-reads, then 4 writes)"
    )
    path.write_text(json.dumps(document), encoding="utf-8")

    message = _refused(path, "version")
    assert "calls.create_benefit" in message and "plan again" in message
    used = fresh.plan()["used"]
    assert main(["apply", str(path), "--allow-destroy"]) == 1
    assert capsys.readouterr().err.startswith(f"lyt apply: {path}: key 'version': 1: ")
    assert fresh.plan()["used"] == used
    _untouched(client, targets)

    document["changes"] = [c for c in document["changes"] if c["call"] != "create_benefit"]
    del document["calls"]["create_benefit"]
    document["summary"] = (
        document["summary"]
        .replace("1 to create", "0 to create")
        .replace("7 calls (3 re-reads, then 4 writes)", "6 calls (3 re-reads, then 3 writes)")
    )
    path.write_text(json.dumps(document), encoding="utf-8")
    assert ChangePlan.load(path).summary().startswith("Plan: 0 to create, 2 to change")


def test_a_card_count_understated_in_the_file_never_lets_the_re_read_send_more_than_counted(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
) -> None:
    """``card_buckets`` (what the card held in the base) sets the re-read's pages and so
    the budget check; the re-read reads no more pages than that and refuses a card listing
    more, before any write."""
    program = one_card_of_many_buckets()
    with start_sandbox(data=program) as sb, make_client(sb) as client:
        snapshot = pull(client)
        last = str(snapshot.pending_buckets.sort_values("date")["id"].iloc[-1])  # page two
        edit = actions.edit(snapshot)
        edit.pending_buckets.loc[edit.pending_buckets["id"] == last, "status"] = "ACTIVATED"
        path = edit.plan().save(tmp_path / "plan.json")
        document = json.loads(path.read_text(encoding="utf-8"))
        [entry] = document["touched"]
        assert entry["card_buckets"] == 150
        entry["card_buckets"] = 1
        document["summary"] = document["summary"].replace(
            "4 calls (2 re-reads, then 1 write, 1 read back",  # its bucket is blocked
            "3 calls (1 re-read, then 1 write, 1 read back",
        )
        path.write_text(json.dumps(document), encoding="utf-8")
        loaded = ChangePlan.load(path)
        assert loaded.reread_cost().needed == 1

        token = 0 if client.holds_token else 1
        used = sb.plan()["used"]
        with pytest.raises(StalePlanError, match="lists more than the 100 pending buckets"):
            loaded.apply(client, progress=False)
        assert sb.plan()["used"] - used == 1 + token  # the page counted, no more
        assert pull(client).pending_buckets.set_index("id").loc[last, "status"] == "PENDING"
