"""A sandbox started from a snapshot holds that program: round trips, clock, credentials,
and placeholders that make reference checks answer as the service holding the real records."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fixture_types import StartSandbox
from shared_tls import TLS

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox, SandboxCredentials
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS
from lyt_toolkit.sandbox.loader import ProgramFileError
from lyt_toolkit.snapshot import read_snapshot, snapshot_program
from lyt_toolkit.synthetic import generate_program

from .helpers import assert_error
from .snapshots import assert_same_frames, pull

PULLED = "2026-03-02T08:30:00Z"
"""The clock of the sandboxes snapshots are pulled from: not the demo's own default, so a
sandbox holding the snapshot can only show it by taking the snapshot's ``pulled_at``."""

PULLED_WIRE = "2026-03-02T08:30:00.000Z"


@pytest.fixture(scope="module")
def demo_sandbox(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    """The demo program, standing in for production: every record complete."""
    with start_sandbox(now=PULLED) as sb:
        yield sb


@pytest.fixture(scope="module")
def demo_snapshot(demo_sandbox: Sandbox) -> ProgramSnapshot:
    return pull(demo_sandbox)


def test_the_demo_snapshot_comes_back_frame_by_frame(demo_snapshot: ProgramSnapshot) -> None:
    assert all(len(frame) for frame in demo_snapshot.frames().values())
    with Sandbox.start(snapshot=demo_snapshot) as sb:
        assert sb.now() == PULLED_WIRE
        again = pull(sb)
    assert again.pulled_at == demo_snapshot.pulled_at
    assert_same_frames(demo_snapshot, again)


def test_a_generated_program_comes_back_frame_by_frame(start_sandbox: StartSandbox) -> None:
    program = generate_program(rewards=60, benefits=60, members=6, seed=11)
    with start_sandbox(program, now=PULLED) as sb:
        snapshot = pull(sb)
    assert len(snapshot.pending_buckets) and len(snapshot.reward_costs)
    with Sandbox.start(snapshot=snapshot) as sb:
        again = pull(sb)
    assert_same_frames(snapshot, again)


def test_text_that_reads_like_a_relative_time_comes_back_as_it_was(
    demo_snapshot: ProgramSnapshot,
) -> None:
    benefits, rewards = demo_snapshot.benefits.copy(), demo_snapshot.rewards.copy()
    benefits.loc[0, "name"] = "now"
    rewards.loc[0, "metadata"] = '{"created_at":"now-2h","note":"now","until":"now+1d"}'
    changed = ProgramSnapshot.from_frames(
        {**demo_snapshot.frames(), "benefits": benefits, "rewards": rewards},
        source=demo_snapshot.source,
        pulled_at=demo_snapshot.pulled_at,
    )
    with Sandbox.start(snapshot=changed) as sb:
        again = pull(sb)
    assert_same_frames(changed, again)


# -- an exported folder: the snapshot package reads it, the sandbox holds the program ------


@pytest.mark.parametrize("export", ["to_csv", "to_parquet"])
def test_an_exported_folder_read_as_a_snapshot_starts_a_sandbox(
    demo_snapshot: ProgramSnapshot, tmp_path: Path, export: str
) -> None:
    getattr(demo_snapshot, export)(tmp_path / "export")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with Sandbox.start(snapshot=read_snapshot(tmp_path / "export")) as sb:
            assert sb.now() == PULLED_WIRE
            again = pull(sb)
    assert_same_frames(demo_snapshot, again)


def test_the_program_of_an_exported_folder_is_the_snapshots_program_file(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    demo_snapshot.to_csv(tmp_path / "export")
    program = snapshot_program(tmp_path / "export")
    written = json.loads(demo_snapshot.to_program(tmp_path / "p.json").read_text("utf-8"))
    assert program == written == snapshot_program(demo_snapshot)
    assert program["now"] == PULLED_WIRE
    with Sandbox.start(program, credentials=SandboxCredentials(**DEFAULT_CREDENTIALS)) as sb:
        assert sb.now() == PULLED_WIRE
        assert_same_frames(demo_snapshot, pull(sb))


def test_snapshot_program_refuses_a_folder_that_is_no_snapshot_naming_the_file(
    tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match=r"manifest\.json is missing"):
        snapshot_program(tmp_path)
    with pytest.raises(TypeError, match=r"expected a ProgramSnapshot .* not dict"):
        snapshot_program({"rewards": []})  # type: ignore[arg-type]


def test_the_deprecated_folder_form_warns_and_still_starts_the_sandbox(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    demo_snapshot.to_csv(tmp_path / "export")
    with pytest.warns(FutureWarning, match=r"snapshot=lyt_toolkit\.snapshot\.read_snapshot\("):
        started = Sandbox.start(snapshot=tmp_path / "export")
    with started as sb:
        assert sb.now() == PULLED_WIRE
        again = pull(sb)
    assert_same_frames(demo_snapshot, again)


def test_the_deprecated_folder_form_refuses_a_folder_that_is_no_snapshot(tmp_path: Path) -> None:
    with (
        pytest.warns(FutureWarning, match="removed in 0.5.0"),
        pytest.raises(ValueError, match=r"manifest\.json is missing"),
        Sandbox.start(snapshot=str(tmp_path)),
    ):
        pass


def test_without_the_snapshot_package_the_folder_form_names_the_new_route(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    """The sandbox alone imports no snapshot code, so it cannot read a folder itself."""
    demo_snapshot.to_csv(tmp_path / "export")
    code = (
        "import sys, warnings\n"
        "from lyt_toolkit.sandbox import Sandbox\n"
        "assert 'lyt_toolkit.snapshot' not in sys.modules, 'the sandbox imported snapshot'\n"
        "warnings.simplefilter('ignore', FutureWarning)\n"
        "try:\n"
        "    Sandbox.start(snapshot=sys.argv[1])\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
        "assert 'lyt_toolkit.snapshot' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "export")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "the sandbox reads no snapshot folder" in done.stdout
    assert "Sandbox.start(snapshot=read_snapshot(folder))" in done.stdout


def test_what_is_neither_snapshot_nor_folder_is_refused_naming_it() -> None:
    refused = pytest.raises(TypeError, match=r"snapshot: expected a ProgramSnapshot .* not dict")
    with refused, Sandbox.start(snapshot={"rewards": []}):  # type: ignore[arg-type]
        pass


def test_reset_reloads_the_snapshot(demo_snapshot: ProgramSnapshot) -> None:
    with Sandbox.start(snapshot=demo_snapshot) as sb:
        with httpx.Client(base_url=sb.base_url, headers=sb.v2_headers(), verify=TLS) as http:
            body = {"name": "Rehearsal only", "type": "POINTS", "points": _points(demo_snapshot)}
            assert http.post("/v2/loyalties/benefits", json=body).status_code == 200
        sb.reset()
        assert_same_frames(demo_snapshot, pull(sb))


def test_an_explicit_now_wins_over_the_snapshot_clock(demo_snapshot: ProgramSnapshot) -> None:
    with Sandbox.start(snapshot=demo_snapshot, now="2026-04-01T00:00:00Z") as sb:
        assert sb.now() == "2026-04-01T00:00:00.000Z"


def test_data_and_snapshot_together_are_refused(demo_snapshot: ProgramSnapshot) -> None:
    with (
        pytest.raises(ValueError, match="data or snapshot"),
        Sandbox.start({"format": "lyt-program/1"}, snapshot=demo_snapshot),
    ):
        pass


# -- credentials -------------------------------------------------------------------


def test_the_lyt_variables_of_the_real_service_are_not_accepted(
    demo_snapshot: ProgramSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LYT_APP_ID", "production-app")
    monkeypatch.setenv("LYT_APP_TOKEN", "production-secret-token")
    with Sandbox.start(snapshot=demo_snapshot) as sb:
        assert sb.credentials.app_id == DEFAULT_CREDENTIALS["app_id"]
        token = {"grant_type": "client_credentials", "scope": "loyalties"}
        real = {"X-App-Id": "production-app", "X-App-Token": "production-secret-token"}
        refused = httpx.post(f"{sb.base_url}/oauth/token", data=token, headers=real, verify=TLS)
        assert refused.status_code == 401
        assert httpx.post(
            f"{sb.base_url}/oauth/token", data=token, headers=sb.key_headers(), verify=TLS
        )
    assert "production-secret-token" not in repr(sb.credentials)


# -- reference checks: the copy answers as the demo, where every record is complete ----


def _points(snapshot: ProgramSnapshot) -> dict[str, Any]:
    active = snapshot.card_definitions.loc[snapshot.card_definitions["status"] == "ACTIVE", "id"]
    return {"value": 5, "card_definition_id": active.iloc[0]}


def _first(frame: Any, column: str, **where: str) -> str:
    rows = frame
    for key, value in where.items():
        rows = rows.loc[rows[key] == value]
    return str(rows[column].dropna().iloc[0])


def _reference_cases(s: ProgramSnapshot) -> dict[str, dict[str, Any]]:
    """Benefit bodies naming what the snapshot references, and what nothing holds."""
    product = _first(s.rewards, "material_product_id", material_type="PRODUCT")
    sku = _first(s.benefits, "material_sku_id", material_type="SKU")
    sku_product = _first(s.benefits, "material_product_id", material_sku_id=sku)
    coupons = _first(s.benefits, "digital_campaign_id", digital_type="DISCOUNT_COUPONS")
    missing_definition = sorted(
        set(s.benefits["card_definition_id"].dropna()) - set(s.card_definitions["id"])
    )[0]

    def material(target: dict[str, Any]) -> dict[str, Any]:
        return {"type": "MATERIAL", "material": target}

    def digital(key: str, campaign: str) -> dict[str, Any]:
        target = {"campaign_id": campaign} | ({"balance": 10} if key == "gift_vouchers" else {})
        return {"type": "DIGITAL", "digital": {key: target}}

    return {
        "known product": material({"product": {"id": product}}),
        "made-up product": material({"product": {"id": "prod_00000000beef"}}),
        "known sku": material({"sku": {"product_id": sku_product, "id": sku}}),
        "sku of another product": material({"sku": {"product_id": product, "id": sku}}),
        "made-up sku": material({"sku": {"product_id": product, "id": "sku_00000000beef"}}),
        "known campaign": digital("discount_coupons", coupons),
        "campaign of another type": digital("gift_vouchers", coupons),
        "made-up campaign": digital("discount_coupons", "camp_MadeUp0001"),
        "missing card definition": {
            "type": "POINTS",
            "points": {"value": 5, "card_definition_id": missing_definition},
        },
    }


def _answers(sb: Sandbox, cases: dict[str, dict[str, Any]]) -> dict[str, tuple[int, str | None]]:
    """Status and error key of creating each case's benefit on ``sb``."""
    answers = {}
    with httpx.Client(base_url=sb.base_url, headers=sb.v2_headers(), verify=TLS) as http:
        for n, (case, body) in enumerate(cases.items()):
            response = http.post("/v2/loyalties/benefits", json={"name": f"Check {n}", **body})
            if response.status_code != 200:
                assert_error(response, response.status_code)
            answers[case] = (response.status_code, response.json().get("key"))
    return answers


def test_placeholders_make_reference_checks_answer_as_the_full_records_do(
    demo_snapshot: ProgramSnapshot, demo_sandbox: Sandbox
) -> None:
    cases = _reference_cases(demo_snapshot)
    with Sandbox.start(snapshot=demo_snapshot) as copy_sb:
        on_copy = _answers(copy_sb, cases)
    on_demo = _answers(demo_sandbox, cases)
    demo_sandbox.reset()
    assert on_copy == on_demo
    assert {case: status for case, (status, _) in on_copy.items()} == {
        "known product": 200,
        "made-up product": 404,
        "known sku": 200,
        "sku of another product": 404,
        "made-up sku": 404,
        "known campaign": 200,
        "campaign of another type": 400,
        "made-up campaign": 404,
        "missing card definition": 404,
    }


# -- the loader's side of placeholders ---------------------------------------------


def _program_with(section: str, record: dict[str, Any]) -> dict[str, Any]:
    return {"format": "lyt-program/1", section: [record]}


@pytest.mark.parametrize("mark", ["yes", 1, None])
def test_a_placeholder_mark_that_is_not_true_or_false_is_refused(mark: Any) -> None:
    program = _program_with("products", {"id": "prod_0a", "placeholder": mark})
    with pytest.raises(ProgramFileError) as refused, Sandbox.start(program):
        pass
    assert str(refused.value) == (
        f"products[0] prod_0a: placeholder: must be true or false, got {mark!r}"
    )


def test_only_catalog_campaign_and_customer_records_may_be_placeholders(
    demo_snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    path = demo_snapshot.to_program(tmp_path / "program.json")
    program = json.loads(path.read_text())
    marked = copy.deepcopy(program)
    marked["rewards"][0]["placeholder"] = True
    with pytest.raises(ProgramFileError, match="unknown key 'placeholder'"), Sandbox.start(marked):
        pass
    with Sandbox.start(program) as sb:  # unchanged, it loads
        assert sb.now() == PULLED_WIRE
