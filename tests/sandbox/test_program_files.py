"""Program files: a typo inside a record or a reference to nothing stops the load."""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections.abc import Callable
from functools import cache
from pathlib import Path
from threading import current_thread
from typing import Any

import pytest

from lyt_toolkit.sandbox import ProgramDataWarning, Sandbox, loader
from lyt_toolkit.sandbox.clock import parse_instant
from lyt_toolkit.sandbox.config import DEMO_PROGRAM
from lyt_toolkit.sandbox.loader import ProgramFileError, load_program
from lyt_toolkit.sandbox.store import Store
from lyt_toolkit.synthetic import generate_program

from .helpers import v2_client
from .serving import serve_refused

NOW = "2026-01-15T12:00:00Z"


@cache
def _demo_text() -> str:
    return DEMO_PROGRAM.read_text(encoding="utf-8")


def demo(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """The demo program with ``change`` applied to a copy of it."""
    program = copy.deepcopy(json.loads(_demo_text()))
    change(program)
    return program


def _refused(program: dict[str, Any]) -> list[str]:
    """The problems the sandbox names when refusing ``program``, one per line."""
    with pytest.raises(ProgramFileError) as refused, Sandbox.start(program, now=NOW):
        pass
    return str(refused.value).splitlines()


def test_an_unknown_key_in_a_record_is_refused_naming_section_record_and_key() -> None:
    problems = _refused(demo(lambda p: p["benefits"][4].update(stok=5)))
    assert problems == ["benefits[4] lben_c0ffee0005: unknown key 'stok'"]


def test_an_unknown_key_nested_in_a_record_is_refused_with_its_path() -> None:
    problems = _refused(demo(lambda p: p["benefits"][0]["points"].update(valeu=5)))
    assert problems == ["benefits[0] lben_c0ffee0001: unknown key 'points.valeu'"]


def test_an_unknown_key_in_a_catalog_record_is_refused() -> None:
    problems = _refused(demo(lambda p: p["products"][0].update(prize=100)))
    assert problems == ["products[0] prod_0b1e55ed0001: unknown key 'prize'"]


@pytest.mark.parametrize(
    ("section", "index", "path", "change"),
    [
        ("rewards", 0, "material.product.id", lambda r: r["material"]["product"]),
        ("rewards", 3, "material.sku.id", lambda r: r["material"]["sku"]),
        ("rewards", 8, "digital.gift_vouchers.campaign_id", lambda r: r["digital"]),
        ("benefits", 0, "points.card_definition_id", lambda r: r["points"]),
    ],
    ids=["product", "sku", "campaign", "card definition"],
)
def test_a_dangling_reference_is_refused_naming_the_record(
    section: str, index: int, path: str, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    key = path.rsplit(".", 1)[1]

    def dangle(program: dict[str, Any]) -> None:
        target = change(program[section][index])
        if "gift_vouchers" in target:
            target = target["gift_vouchers"]
        target[key] = "nothing_0000" if key == "id" else "camp_Nothing"
        if "card_definition" in path:
            target[key] = "lcdef_0000000000ab"

    program = demo(dangle)
    record_id = program[section][index]["id"]
    problems = _refused(program)
    assert len(problems) == 1
    assert problems[0].startswith(f"{section}[{index}] {record_id}: {path}: ")
    assert "is not in" in problems[0]


def test_every_problem_gets_its_own_line() -> None:
    def two(program: dict[str, Any]) -> None:
        program["benefits"][0].update(stok=5)
        program["rewards"][0]["material"]["product"]["id"] = "prod_00000000dead"

    problems = _refused(demo(two))
    assert len(problems) == 2


def test_refused_and_unknown_keys_in_one_section_are_named_in_record_order() -> None:
    def mixed(program: dict[str, Any]) -> None:
        program["benefits"][1].update(stok=5)
        program["benefits"][2]["type"] = 7
        program["benefits"][4].update(colour="red")

    problems = _refused(demo(mixed))
    assert problems[0] == "benefits[1] lben_c0ffee0002: unknown key 'stok'"
    assert problems[1].startswith("benefits[2] lben_c0ffee0003: type: ")
    assert problems[2:] == ["benefits[4] lben_c0ffee0005: unknown key 'colour'"]


def test_a_repeated_id_in_a_section_is_refused() -> None:
    program = demo(lambda p: p["products"].append(dict(p["products"][0])))
    problems = _refused(program)
    last = len(program["products"]) - 1
    assert problems == [f"products[{last}] prod_0b1e55ed0001: the same id as products[0]"]


def _same_name(program: dict[str, Any]) -> None:
    program["benefits"][6]["name"] = program["benefits"][1]["name"]  # both ACTIVE


SAME_NAME = (
    "benefits[6] lben_c0ffee0007: name: 'Birthday Bonus 250 Beans' is also the name of"
    " benefits[1] lben_c0ffee0002 (no two benefits that are listed may share a name)"
)


def test_two_listed_benefits_of_one_name_are_refused_naming_both_and_the_field() -> None:
    assert _refused(demo(_same_name)) == [SAME_NAME]


def test_the_loader_refuses_a_repeated_benefit_name_before_the_store_does() -> None:
    store = Store()
    with pytest.raises(ProgramFileError) as refused, store.indexes_deferred():
        load_program(store, demo(_same_name), parse_instant(NOW))
    assert str(refused.value) == SAME_NAME  # not sqlite3.IntegrityError from the index
    assert store.size() == 0  # nothing written


def test_indexes_built_after_a_load_are_all_back_and_the_page_cache_as_it_was() -> None:
    store = Store()
    indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    before = sorted(r[0] for r in store.query(indexes))
    cache_size = store.query("PRAGMA cache_size")[0][0]
    with store.indexes_deferred():
        load_program(store, demo(lambda p: None), parse_instant(NOW))
    assert sorted(r[0] for r in store.query(indexes)) == before and len(before) == 7
    assert store.query("PRAGMA cache_size")[0][0] == cache_size
    assert store.size() > 0


def test_indexes_are_built_on_another_thread_while_the_loader_works_alongside() -> None:
    store = Store()
    indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    before = sorted(r[0] for r in store.query(indexes))
    threads: list[str] = []
    with store.indexes_deferred(alongside=lambda: threads.append(current_thread().name)):
        load_program(store, demo(lambda p: None), parse_instant(NOW))
    assert threads == [current_thread().name]  # once, here, the build elsewhere
    assert sorted(r[0] for r in store.query(indexes)) == before and store.size() > 0


def test_a_failure_alongside_the_index_build_rolls_the_load_back() -> None:
    store = Store()
    indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    before = sorted(r[0] for r in store.query(indexes))

    def fail() -> None:
        raise ImportError("no app")

    with pytest.raises(ImportError, match="no app"), store.indexes_deferred(alongside=fail):
        load_program(store, demo(lambda p: None), parse_instant(NOW))
    assert store.size() == 0 and sorted(r[0] for r in store.query(indexes)) == before


def test_a_name_is_unique_only_among_listed_benefits_and_exactly_as_written() -> None:
    def change(program: dict[str, Any]) -> None:
        program["benefits"][14]["name"] = program["benefits"][5]["name"]  # both DELETED
        program["benefits"][1]["name"] = program["benefits"][5]["name"]  # ACTIVE, once listed
        program["benefits"][2]["name"] = program["benefits"][0]["name"].lower()

    with Sandbox.start(demo(change), now=NOW) as sb, v2_client(sb) as api:
        assert api.get("/v2/loyalties/benefits/lben_c0ffee0002").json()["name"] == (
            "App Review Bonus"
        )


def test_a_benefit_name_repeated_across_load_chunks_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loader, "CHUNK", 4)
    assert _refused(demo(_same_name)) == [SAME_NAME]


@pytest.mark.parametrize("section", ["products", "benefits"])
@pytest.mark.parametrize("bad", [1, True, None, [1], {"id": "x"}])
def test_an_id_that_is_not_a_string_is_refused(section: str, bad: Any) -> None:
    def change(program: dict[str, Any]) -> None:
        program[section].append({**program[section][0], "id": bad})

    index = len(demo(lambda p: None)[section])
    problems = _refused(demo(change))
    assert problems[0] == f"{section}[{index}]: id: must be a string, got {bad!r}"


def test_ids_one_and_quoted_one_are_refused_rather_than_one_id_twice_in_the_store() -> None:
    def change(program: dict[str, Any]) -> None:
        program["webhooks"][0]["id"] = "1"
        program["webhooks"][1]["id"] = 1

    assert _refused(demo(change)) == ["webhooks[1]: id: must be a string, got 1"]


def test_a_reference_declared_deliberately_missing_loads() -> None:
    program = demo(lambda p: p.update(deliberately_missing=["lcdef_deadbeef0000"]))
    with Sandbox.start(program, now=NOW) as sb, v2_client(sb) as api:
        response = api.get("/v2/loyalties/benefits/lben_c0ffee0004")
        assert response.json()["points"]["card_definition_id"] == "lcdef_deadbeef0000"


def test_a_deliberately_missing_id_that_exists_is_refused() -> None:
    problems = _refused(demo(lambda p: p["deliberately_missing"].append("lcdef_c0ffee0001")))
    assert problems == ["deliberately_missing: lcdef_c0ffee0001 is the ID of a record"]


def _pending_total(program: dict[str, Any], card_index: int, total: int) -> None:
    program["cards"][card_index]["balance"]["pending_points"] = total


def test_a_pending_total_that_disagrees_with_its_buckets_loads_with_a_warning_naming_the_card() -> (
    None
):
    program = demo(lambda p: _pending_total(p, 0, 500))  # its PENDING buckets hold 450
    expected = "cards[0] lcrd_c0ffee0001: pending points total 500, its PENDING buckets hold 450"
    with pytest.warns(ProgramDataWarning, match=re.escape(expected)) as caught:
        sb = Sandbox.start(program, now=NOW)
    with sb, v2_client(sb) as api:
        member = api.get("/v2/loyalties/programs/lprg_c0ffee0001/members/lmbr_c0ffee0001")
        cards = {c["card"]["id"]: c["card"] for c in member.json()["cards"]}
        assert cards["lcrd_c0ffee0001"]["balance"]["pending_points"] == 500  # loaded as written
    assert len(caught) == 1


def test_the_demo_loads_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProgramDataWarning)
        Sandbox.start(now=NOW).stop()


def test_serve_refuses_a_bad_program_file_with_one_line_per_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def two(program: dict[str, Any]) -> None:
        program["benefits"][0].update(stok=5)
        program["products"][0].update(prize=1)

    path = tmp_path / "typo.json"
    path.write_text(json.dumps(demo(two)), encoding="utf-8")
    stderr = serve_refused(monkeypatch, capsys, "--data", str(path))
    lines = stderr.splitlines()
    assert len(lines) == 2 and str(path) in lines[0], stderr
    assert "'stok'" in stderr and "'prize'" in stderr and "Traceback" not in stderr


def test_serve_refuses_a_repeated_benefit_name_in_one_line_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "names.json"
    path.write_text(json.dumps(demo(_same_name)), encoding="utf-8")
    stderr = serve_refused(monkeypatch, capsys, "--data", str(path))
    assert stderr.splitlines() == [f"lyt sandbox serve: --data {path}: {SAME_NAME}"]


def test_a_generated_program_passes_the_checks() -> None:
    program = generate_program(rewards=60, benefits=60, members=20, seed=5)
    with Sandbox.start(program, now=NOW) as sb, v2_client(sb) as api:
        assert api.get("/v2/loyalties/rewards", params={"limit": 1}).status_code == 200
