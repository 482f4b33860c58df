"""A saved plan applies what it shows, over real HTTP: a change row edited apart from its
call is refused naming the first difference (and the destroy gate and the re-read follow the
calls), every broken file is one ``PlanFileError`` naming the file and the key (fuzzed
too)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan, UnreviewedPlanError
from lyt_toolkit.actions.plan_file import PlanFileError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import TIERS, SaveFour, names_on_server, pull

Document = dict[str, Any]


def _saved(save_four: SaveFour, path: Path) -> tuple[Document, dict[str, str]]:
    """The four-kind plan of the live program saved to ``path``: its document and targets."""
    _, targets = save_four(path)
    return json.loads(path.read_text(encoding="utf-8")), targets


def _write(path: Path, document: Document) -> None:
    path.write_text(json.dumps(document), encoding="utf-8")


def _row(document: Document, call: str) -> int:
    """The position in ``changes`` of the first change row of ``call``."""
    return next(i for i, c in enumerate(document["changes"]) if c["call"] == call)


def _refused(path: Path, key: str) -> str:
    """Loading ``path`` is refused naming the file and ``key``: the message."""
    with pytest.raises(PlanFileError) as caught:
        ChangePlan.load(path)
    assert str(caught.value).startswith(f"{path}: key {key!r}: "), str(caught.value)
    assert "\n" not in str(caught.value)
    return str(caught.value)


# -- item 1: what is applied is what was reviewed -----------------------------------------


def test_a_call_retargeted_by_hand_is_refused_and_sends_nothing(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour, fresh_pulled: ProgramSnapshot
) -> None:
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    snapshot = fresh_pulled
    reward = targets["move_reward_to_draft"]
    other = str(
        snapshot.rewards.loc[
            (snapshot.rewards["status"] == "ACTIVE") & (snapshot.rewards["id"] != reward), "id"
        ].iloc[0]
    )
    document["calls"]["move_reward_to_draft"][0]["id"] = other
    _write(path, document)

    message = _refused(path, f"changes[{_row(document, 'move_reward_to_draft')}].key")
    assert reward in message and other in message and "calls.move_reward_to_draft[0]" in message
    assert pull(client).rewards.set_index("id").loc[other, "status"] == "ACTIVE"


@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [
        ("points_value", 50000, "after"),
        ("name", "Unreviewed Bonus", "key"),
        ("status", "ACTIVE", "after"),  # a field the line did not show before
        ("stock_quantity", 7, "after"),
    ],
)
def test_a_create_edited_in_its_call_is_refused_naming_the_change(
    client: LoyaltyClient, tmp_path: Path, column: str, value: Any, shown: str, save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    document["calls"]["create_benefit"][0][column] = value
    _write(path, document)

    message = _refused(path, f"changes[{_row(document, 'create_benefit')}].{shown}")
    assert str(value) in message and "calls.create_benefit[0]" in message
    assert names_on_server(client, "Unreviewed") == [] and names_on_server(client, "Bonus") == []


@pytest.mark.parametrize("label", ["change", "create"])
@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_delete_relabelled_is_refused_and_lyt_apply_never_sends_it(
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    label: str,
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    row = _row(document, "delete_tier_structure")
    document["changes"][row]["action"] = label
    _write(path, document)

    assert main(["apply", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt apply: {path}: key 'changes[{row}].action': ")
    assert err.count("\n") == 1
    assert pull(client).tier_structures.set_index("id").loc[TIERS, "status"] != "DELETED"


def _drop_the_reward(document: Document, reward: str) -> None:
    """The reward's change dropped with its call, touched entry and the summary's counts:
    an edit every part of the file agrees with."""
    document["changes"] = [c for c in document["changes"] if c["key"] != reward]
    del document["calls"]["move_reward_to_draft"]
    document["touched"] = [t for t in document["touched"] if t["key"] != reward]
    said = document["summary"]
    document["summary"] = said.replace("2 to change", "1 to change").replace(
        "9 calls (5 re-reads, then 4 writes)", "7 calls (4 re-reads, then 3 writes)"
    )
    assert document["summary"] != said


def test_a_plan_edited_consistently_applies_exactly_what_it_now_shows_without_its_sha256(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    """Dropping a change with its call, touched entry and count is an edit the file can
    show: without the reviewed sha256 the plan applies what it now shows, and says so."""
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    reward = targets["move_reward_to_draft"]
    _drop_the_reward(document, reward)
    _write(path, document)

    loaded = ChangePlan.load(path)
    assert reward not in str(loaded)
    results = loaded.apply(client, allow_destroy=True, progress=False)
    assert "move_reward_to_draft" not in results["call"].tolist()
    assert pull(client).rewards.set_index("id").loc[reward, "status"] == "ACTIVE"


def test_a_plan_edited_consistently_is_refused_by_the_reviewed_sha256_before_any_call(
    fresh: Sandbox,
    client: LoyaltyClient,
    make_client: Callable[..., Any],
    tmp_path: Path,
    save_four: SaveFour,
) -> None:
    """The reviewer's fingerprint is the file's sha256, shown with the plan: an apply bound
    to it refuses any other bytes before a call (no token, no re-read), naming both."""
    path = tmp_path / "plan.json"
    document, targets = _saved(save_four, path)
    reviewed = ChangePlan.load(path)
    assert reviewed.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    for shown in (str(reviewed), repr(reviewed), reviewed._repr_html_()):
        assert reviewed.sha256 in shown
    _drop_the_reward(document, targets["move_reward_to_draft"])
    _write(path, document)
    edited = ChangePlan.load(path)

    used = fresh.plan()["used"]
    with make_client(fresh) as unused:  # holds no token: a token request would be a call
        for check in (edited.check_apply, edited.apply):
            with pytest.raises(UnreviewedPlanError) as caught:
                check(unused, allow_destroy=True, sha256=reviewed.sha256.upper())
            message = str(caught.value)
            assert message.startswith(f"{path}: ") and "nothing was sent" in message
            assert edited.sha256[:12] in message and reviewed.sha256[:12] in message
        assert unused.quota.calls_used == 0 and not unused.holds_token
    assert fresh.plan()["used"] == used
    assert not (tmp_path / "plan.json.applied").exists()

    results = edited.apply(client, allow_destroy=True, progress=False, sha256=edited.sha256)
    assert set(results["outcome"]) == {"succeeded"}


@pytest.mark.parametrize(
    ("given", "why"),
    [("ab12cd34ef56", "a prefix is not enough"), ("z" * 64, "64 hex digits"), ("", "64 hex")],
    ids=["a 12-digit prefix", "not hex", "empty"],
)
def test_a_sha256_not_whole_is_refused_naming_the_keyword_or_option_before_any_call(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
    given: str,
    why: str,
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    _saved(save_four, path)
    saved = ChangePlan.load(path)
    used = fresh.plan()["used"]
    with pytest.raises(ValueError, match=f"^sha256 '{given}': .*{why}"):
        saved.apply(client, allow_destroy=True, progress=False, sha256=given)

    configure_lyt(fresh)
    assert main(["apply", str(path), "--allow-destroy", "--sha256", given]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt apply: --sha256 '{given}': ") and why in err
    assert fresh.plan()["used"] == used


def test_the_destroy_gate_reads_the_calls_of_an_in_memory_plan(
    client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> None:
    plan = save_four(tmp_path / "plan.json")[0]
    relabelled = plan.changes.copy()
    relabelled["action"] = relabelled["action"].replace("delete", "change")
    hidden = ChangePlan(plan.base, relabelled, plan.unsupported, plan.parts, plan.inputs)
    with pytest.raises(actions.EditError, match=f"tier structure {TIERS}"):
        hidden.apply(client, progress=False)
    assert pull(client).tier_structures.set_index("id").loc[TIERS, "status"] != "DELETED"


# -- item 2: broken plan files get one line -----------------------------------------------


def _utf16(path: Path, document: Document) -> str:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-16")
    return ""


def _cp1252(path: Path, document: Document) -> str:
    row = _row(document, "create_benefit")
    document["changes"][row]["key"] = document["calls"]["create_benefit"][0]["name"] = "Caf\u00e9"
    text = json.dumps(document, ensure_ascii=False)
    path.write_bytes(
        text.encode("utf-8").replace("Caf\u00e9".encode(), "Caf\u00e9".encode("cp1252"))
    )
    return f"changes[{row}].key"


def _nested(path: Path, document: Document) -> str:
    path.write_text('{"format": ' + "[" * 200_000 + "]" * 200_000 + "}", encoding="utf-8")
    return ""


def _huge_calls(path: Path, document: Document) -> str:
    document["changes"][0]["calls"] = 10**30
    _write(path, document)
    return "changes[0].calls"


def _bucket_without_call(path: Path, document: Document) -> str:
    entry = next(t for t in document["touched"] if t["kind"] == "pending_buckets")
    document["touched"].append({**entry, "key": "lcppb_00000000ff"})
    _write(path, document)
    return f"touched[{len(document['touched']) - 1}]"


def _nan(path: Path, document: Document) -> str:
    path.write_text(json.dumps(document).replace('"calls": 1', '"calls": NaN', 1))
    return "changes[0].calls"


def _boolean(path: Path, document: Document) -> str:
    document["changes"][0]["calls"] = True
    _write(path, document)
    return "changes[0].calls"


def _twice(path: Path, document: Document) -> str:
    path.write_text(json.dumps(document).replace('"format": ', '"format": "x", "format": ', 1))
    return "format"


def _nested_cell(path: Path, document: Document) -> str:
    document["calls"]["create_benefit"][0]["points_value"] = {"value": 50}
    _write(path, document)
    return "calls.create_benefit[0].points_value"


def _unknown_column(path: Path, document: Document) -> str:
    document["calls"]["move_reward_to_draft"][0]["reward_id"] = "lrew_00000000ff"
    _write(path, document)
    return "calls.move_reward_to_draft[0].reward_id"


def _long_key(path: Path, document: Document) -> str:
    document["touched"][0]["key"] = "x" * 1_000_000
    _write(path, document)
    return "touched[0]"


def _no_source(path: Path, document: Document) -> str:
    del document["base"]["source"]
    _write(path, document)
    return "base.source"


BREAKS: dict[str, Callable[[Path, Document], str]] = {
    "utf-16": _utf16,
    "cp1252 byte": _cp1252,
    "200,000 brackets": _nested,
    "calls 10**30": _huge_calls,
    "touched bucket without a call": _bucket_without_call,
    "NaN": _nan,
    "true for a count": _boolean,
    "a key twice": _twice,
    "an object for a cell": _nested_cell,
    "a column no call has": _unknown_column,
    "a million-character key": _long_key,
    "no base source": _no_source,
}


@pytest.mark.parametrize("name", BREAKS)
def test_a_broken_plan_file_is_one_line_naming_the_file_and_the_key(
    fresh: Sandbox,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
    name: str,
    save_four: SaveFour,
) -> None:
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    key = BREAKS[name](path, document)
    with pytest.raises(PlanFileError) as caught:
        ChangePlan.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: " + (f"key {key!r}: " if key else "")), message
    assert "\n" not in message and len(message) < 500

    configure_lyt(fresh)
    assert main(["apply", str(path), "--allow-destroy"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"lyt apply: {path}: ") and err.count("\n") == 1


_SPECIAL = [10**30, -1, 0, True, math.nan, math.inf, "", "x" * 5000, "\udce9", [], {}]
_JSON = st.recursive(
    st.sampled_from(_SPECIAL)
    | st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


def _nodes(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every node of a parsed JSON document (the root first)."""
    found = [at]
    if isinstance(value, dict | list):
        children = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in children:
            found += _nodes(child, (*at, key))
    return found


def test_no_edit_of_a_plan_file_escapes_load_as_anything_but_a_plan_file_error(
    tmp_path: Path, save_four: SaveFour
) -> None:
    """Any node of a saved plan replaced, dropped or given a new key: ``load`` reads the
    plan or refuses it with a ``PlanFileError``; a plan read shows and costs itself."""
    path = tmp_path / "plan.json"
    original, _ = _saved(save_four, path)
    nodes = _nodes(original)

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(nodes), st.sampled_from(["replace", "drop", "add"]), _JSON, st.data())
    def edit_and_load(at: tuple[Any, ...], how: str, value: Any, data: st.DataObject) -> None:
        document = json.loads(json.dumps(original))
        holder: Any = document
        for step in at[:-1]:
            holder = holder[step]
        if not at:
            document = value
        elif how == "drop":
            del holder[at[-1]]
        elif how == "add" and isinstance(holder, dict):
            holder[data.draw(st.text(max_size=8))] = value
        else:
            holder[at[-1]] = value
        path.write_text(json.dumps(document, allow_nan=True), encoding="utf-8")
        try:
            loaded = ChangePlan.load(path)
        except PlanFileError as exc:
            assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
            return
        str(loaded)
        loaded.reread_cost()

    edit_and_load()


def test_no_byte_edit_of_a_plan_file_escapes_load_as_anything_but_a_plan_file_error(
    tmp_path: Path, save_four: SaveFour
) -> None:
    """Bytes replaced anywhere in a saved plan (other encodings' bytes, brackets, digits):
    ``load`` reads the plan or refuses it with a one-line ``PlanFileError``."""
    path = tmp_path / "plan.json"
    _saved(save_four, path)
    original = path.read_bytes()
    pieces = st.binary(max_size=6) | st.sampled_from([b"\xe9", b"\xff\xfe", b"[[[[", b"9" * 50])

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.integers(0, len(original)), st.integers(0, 8), pieces)
    def edit_and_load(at: int, cut: int, piece: bytes) -> None:
        path.write_bytes(original[:at] + piece + original[at + cut :])
        try:
            ChangePlan.load(path)
        except PlanFileError as exc:
            assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)

    edit_and_load()


@pytest.mark.usefixtures("lyt_to_fresh")
def test_lyt_apply_prints_the_sha256_it_applies_and_refuses_another_before_any_call(
    fresh: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    path = tmp_path / "plan.json"
    _saved(save_four, path)
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    other = hashlib.sha256(b"another plan").hexdigest()
    used = fresh.plan()["used"]

    assert main(["apply", str(path), "--allow-destroy", "--sha256", other]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(
        f"lyt apply: {path}: its sha256 is {sha256[:12]}..., not the reviewed {other[:12]}..."
    )
    assert fresh.plan()["used"] == used

    assert main(["apply", str(path), "--allow-destroy", "--sha256", sha256]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Applying {path} (sha256 {sha256}, the reviewed one)\nPlan: ")


@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_reviewed_sha256_wrong_in_its_last_digit_is_refused_showing_where_they_differ(
    fresh: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str], save_four: SaveFour
) -> None:
    """A typo at the end of the reviewed hash: the refusal shows both hashes up to the digit
    that differs (all 64 here), not the same 12-digit prefix twice; nothing is sent."""
    path = tmp_path / "plan.json"
    _saved(save_four, path)
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    typo = sha256[:-1] + ("0" if sha256[-1] != "0" else "1")
    used = fresh.plan()["used"]

    assert main(["apply", str(path), "--allow-destroy", "--sha256", typo]) == 1
    err = capsys.readouterr().err
    assert f"its sha256 is {sha256}, not the reviewed {typo}: the file changed" in err, err
    assert fresh.plan()["used"] == used


# -- the summary the file shows -----------------------------------------------------------


@pytest.mark.usefixtures("lyt_to_fresh")
def test_a_summary_edited_apart_from_the_rows_is_refused_naming_it(
    fresh: Sandbox,
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
) -> None:
    """A reviewer reading the JSON sees the summary first: it must say what the rows do."""
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    said = document["summary"]
    document["summary"] = said.replace("1 to delete", "0 to delete")
    assert document["summary"] != said
    _write(path, document)

    message = _refused(path, "summary")
    assert "0 to delete" in message and f"make {said!r}" in message
    used = fresh.plan()["used"]
    assert main(["apply", str(path), "--allow-destroy"]) == 1
    assert capsys.readouterr().err.startswith(f"lyt apply: {path}: key 'summary': ")
    assert fresh.plan()["used"] == used
    assert pull(client).tier_structures.set_index("id").loc[TIERS, "status"] != "DELETED"


def test_an_older_toolkits_summary_is_read_and_none_that_adds_to_it(
    tmp_path: Path, save_four: SaveFour
) -> None:
    """A file a 0.4.0 toolkit saved counts the writes alone and may end with the budget it
    read then: it is read; anything else after the counts is refused."""
    path = tmp_path / "plan.json"
    document, _ = _saved(save_four, path)
    assert "9 calls (5 re-reads, then 4 writes)" in document["summary"]
    older = document["summary"].replace("9 calls (5 re-reads, then 4 writes)", "4 calls")
    for tail in (
        "",
        ", budget unknown",
        ", 9996 left in this window (4998 at the plan's share, 0.5)",
    ):
        document["summary"] = older + tail
        _write(path, document)
        assert ChangePlan.load(path).summary().startswith(older.removesuffix("4 calls"))
    document["summary"] = older + ", 9996 left in this window; reviewed and approved"
    _write(path, document)
    assert "reviewed and approved" in _refused(path, "summary")
