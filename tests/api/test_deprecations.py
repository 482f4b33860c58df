"""Deprecated spellings keep working, with a FutureWarning that names the replacement and the
version that removes them (lyt_toolkit/_deprecation.py). DangerZone's old selects are tested
with the widgets, on a sandbox (tests/widgets/test_deprecated_selects.py)."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions, audit, fill, inputs
from lyt_toolkit._deprecation import (
    DEPRECATIONS,
    Deprecation,
    deprecated_attribute,
    deprecation,
    module_getattr,
    provide,
    provided,
)
from lyt_toolkit.reports import FINDINGS_CSV, FINDINGS_PNG, write_reports
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import SnapshotDiff

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "benefits_import_example.csv"
OLD = Deprecation("lyt_toolkit.x.Thing.old", since="0.4.0", removed_in="0.5.0", instead="new")


# -- the helper ------------------------------------------------------------------------------


class Thing:
    def __init__(self) -> None:
        self.new = 1

    def _set_new(self, value: int) -> None:
        self.new = value

    old = deprecated_attribute(OLD, lambda thing: thing.new, _set_new)
    read_only = deprecated_attribute(OLD, lambda thing: thing.new)


def test_a_deprecated_attribute_warns_naming_replacement_and_removal() -> None:
    thing = Thing()
    with pytest.warns(FutureWarning) as caught:
        assert thing.old == 1
    (warning,) = caught
    assert str(warning.message) == (
        "lyt_toolkit.x.Thing.old is deprecated since lyt_toolkit 0.4.0 and will be removed "
        "in 0.5.0; use new instead."
    )
    assert warning.filename == __file__  # points at the caller, not the helper


def test_a_deprecated_attribute_can_be_set_through_its_replacement() -> None:
    thing = Thing()
    with pytest.warns(FutureWarning, match="use new instead"):
        thing.old = 5
    assert thing.new == 5


def test_a_read_only_deprecated_attribute_refuses_a_set() -> None:
    with pytest.raises(AttributeError, match="cannot be set"):
        Thing().read_only = 5


def test_on_the_class_a_deprecated_attribute_is_its_descriptor_and_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(Thing.old, deprecated_attribute)
        assert "Deprecated" in (Thing.old.__doc__ or "")


def test_a_module_level_alias_warns_and_resolves() -> None:
    getattr_ = module_getattr("lyt_toolkit.x", {"old": (OLD, lambda: "the new object")})
    with pytest.warns(FutureWarning, match="removed in 0.5.0"):
        assert getattr_("old") == "the new object"
    with pytest.raises(AttributeError, match="no attribute 'other'"):
        getattr_("other")


def test_a_package_above_provides_what_a_deprecated_spelling_needs() -> None:
    name = "lyt_toolkit.sandbox.Sandbox.start(snapshot=FOLDER)"
    from lyt_toolkit.snapshot import snapshot_program

    assert provided(name) is snapshot_program  # importing lyt_toolkit.snapshot provided it
    assert provided("lyt_toolkit.nothing") is None
    with pytest.raises(KeyError, match="no deprecation named"):
        provide("lyt_toolkit.nothing", snapshot_program)


def test_deprecation_looks_entries_up_by_name() -> None:
    assert deprecation(DEPRECATIONS[0].name) is DEPRECATIONS[0]
    with pytest.raises(KeyError, match="no deprecation named"):
        deprecation("lyt_toolkit.nothing")


# -- BenefitImport.plan (0.1.0) -> actions.create_benefits(imported) -----------------------


def test_benefit_import_plan_warns_and_still_plans_every_row() -> None:
    imported = actions.benefits_from_csv(EXAMPLE)
    with pytest.warns(FutureWarning, match=r"create_benefits\(imported\).*checked"):
        plan = imported.plan
    assert isinstance(plan, actions.CreateBenefits)
    expected = actions.create_benefits(imported).preview()
    assert plan.preview().equals(expected)
    assert len(plan.items) == len(imported.checked)  # the invalid rows too, as in 0.1.0


def test_benefit_import_plan_is_the_same_attribute_from_inputs() -> None:
    imported = inputs.benefits_from_csv(EXAMPLE)
    with pytest.warns(FutureWarning, match="removed in 0.5.0"):
        assert isinstance(imported.plan, actions.CreateBenefits)


# -- write_reports(snapshot, findings, out) (0.1.0) ----------------------------------------


@pytest.fixture(scope="module")
def snapshot() -> ProgramSnapshot:
    return ProgramSnapshot.from_frames({}, source="http://example.test", pulled_at="2026-01-15")


def test_write_reports_old_form_warns_and_writes_what_the_new_form_writes(
    snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    findings = audit.run(snapshot)
    new = write_reports(snapshot, findings, audit.summary(findings), tmp_path / "new")
    with pytest.warns(FutureWarning, match=r"audit\.summary\(findings\), out\)"):
        old = write_reports(snapshot, findings, tmp_path / "old")
    assert [p.name for p in old] == [p.name for p in new]
    for name in (FINDINGS_CSV, FINDINGS_PNG):
        assert (tmp_path / "old" / name).read_bytes() == (tmp_path / "new" / name).read_bytes()


def test_write_reports_old_form_takes_text_paths(snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    findings = audit.run(snapshot)
    with pytest.warns(FutureWarning):
        write_reports(snapshot, findings, str(tmp_path / "old"))
    assert (tmp_path / "old" / FINDINGS_CSV).exists()


def test_write_reports_new_form_does_not_warn(snapshot: ProgramSnapshot, tmp_path: Path) -> None:
    findings = audit.run(snapshot)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        write_reports(snapshot, findings, audit.summary(findings), tmp_path)


def test_write_reports_refuses_a_summary_without_out(snapshot: ProgramSnapshot) -> None:
    findings = audit.run(snapshot)
    with pytest.raises(TypeError, match="'out'"):
        write_reports(snapshot, findings, audit.summary(findings))


def test_write_reports_refuses_a_path_for_the_summary(
    snapshot: ProgramSnapshot, tmp_path: Path
) -> None:
    findings = audit.run(snapshot)
    with pytest.raises(TypeError, match="summary must be a DataFrame"):
        write_reports(snapshot, findings, tmp_path, tmp_path)


def test_the_audit_cli_module_of_0_1_0_still_gives_write_reports() -> None:
    module = importlib.import_module("lyt_toolkit.audit.cli")
    with pytest.warns(FutureWarning, match=r"lyt_toolkit\.reports\.write_reports"):
        assert module.write_reports is write_reports


# -- plan.preview(log) (0.1.0) -> plan.preview(log=log) -------------------------------------


def test_preview_with_the_log_first_warns_and_reads_it_as_the_log(tmp_path: Path) -> None:
    plan = actions.benefits_from_csv(EXAMPLE)
    created = actions.create_benefits(plan)
    log = tmp_path / "benefits.jsonl"
    expected = created.preview(log=log)
    with pytest.warns(FutureWarning, match=r"preview\(log=log\)"):
        old = created.preview(log)
    assert old.equals(expected)
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="log twice"):
        created.preview(str(log), log=log)


# -- SnapshotDiff.findings (0.3.0) -> audit.findings_between(before, after) ----------------


def test_snapshot_diff_findings_warns_and_is_findings_between(snapshot: ProgramSnapshot) -> None:
    diff = snapshot.diff(snapshot)
    with pytest.warns(FutureWarning, match=r"findings_between\(diff\.before, diff\.after\)"):
        old = diff.findings
    pd.testing.assert_frame_equal(old, audit.findings_between(snapshot, snapshot))


def test_snapshot_diff_findings_uses_the_comparison_given_to_the_diff(
    snapshot: ProgramSnapshot,
) -> None:
    given = pd.DataFrame({"change": ["appeared"]})
    diff = SnapshotDiff(snapshot, snapshot, snapshot.diff(snapshot).changes, lambda a, b: given)
    with pytest.warns(FutureWarning):
        assert diff.findings is given


def fresh_python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter (nothing imported before it)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )


def test_snapshot_diff_findings_without_the_audit_names_findings_between() -> None:
    """The snapshot package alone (the audit never imported): a clear error, not a hidden
    import of a package above it."""
    code = (
        "import warnings, sys\n"
        "from lyt_toolkit.snapshot import ProgramSnapshot\n"
        "s = ProgramSnapshot.from_frames({}, source='http://x.test', pulled_at='2026-01-15')\n"
        "assert 'lyt_toolkit.audit' not in sys.modules\n"
        "warnings.simplefilter('ignore', FutureWarning)\n"
        "try:\n"
        "    s.diff(s).findings\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    done = fresh_python(code)
    assert "lyt_toolkit.audit.findings_between(diff.before, diff.after)" in done.stdout


def test_findings_between_needs_no_registration() -> None:
    code = (
        "import warnings\n"
        "warnings.simplefilter('error', FutureWarning)\n"
        "from lyt_toolkit.snapshot import ProgramSnapshot\n"
        "from lyt_toolkit.snapshot.diff import _FINDINGS\n"
        "_FINDINGS.clear()  # as if the audit had never registered anything\n"
        "from lyt_toolkit.audit import findings_between\n"
        "_FINDINGS.clear()\n"
        "s = ProgramSnapshot.from_frames({}, source='http://x.test', pulled_at='2026-01-15')\n"
        "print(len(findings_between(s, s)))\n"
    )
    done = fresh_python(code)
    assert done.stdout.strip() == "0"


# -- lyt_toolkit.snapshot.pull, .pull_budget, .estimate (0.4.0) -> lyt_toolkit.fill ----------


def test_the_old_pull_modules_warn_and_give_the_names_from_their_new_homes() -> None:
    """Each old module path warns once, at the line that imports it, naming its new home;
    what it gives is what the new homes hold."""
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from lyt_toolkit.snapshot.pull import ClientSource, DEFAULT_CONCURRENCY, pull_frames\n"
        "    from lyt_toolkit.snapshot.pull_budget import DEFAULT_SHARE, PullBudget\n"
        "    from lyt_toolkit.snapshot.estimate import estimate_pull\n"
        "import lyt_toolkit.fill as fill, lyt_toolkit.snapshot as snapshot\n"
        "from lyt_toolkit.snapshot.defaults import DEFAULT_SHARE as share\n"
        "assert (ClientSource, PullBudget) == (fill.ClientSource, fill.PullBudget)\n"
        "assert (DEFAULT_CONCURRENCY, DEFAULT_SHARE) == (snapshot.DEFAULT_CONCURRENCY, share)\n"
        "for w in caught:\n"
        "    print(w.category.__name__, w.filename, w.message, sep=' | ')\n"
    )
    lines = fresh_python(code).stdout.splitlines()
    assert lines == [
        f"FutureWarning | <string> | {deprecation(name).message}"
        for name in (
            "lyt_toolkit.snapshot.pull",
            "lyt_toolkit.snapshot.pull_budget",
            "lyt_toolkit.snapshot.estimate",
        )
    ]
    assert "lyt_toolkit.fill.pull" in lines[0] and "lyt_toolkit.fill.budget" in lines[1]


def test_the_old_pull_frames_takes_its_options_as_keywords_and_pulls_what_fill_pulls(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """0.4.0's ``snapshot.pull.pull_frames(client, progress=..., kinds=...)`` still runs: its
    keywords become ``PullOptions`` for ``fill.pull_frames``, and a wrong one is named."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = importlib.import_module("lyt_toolkit.snapshot.pull")
    keywords: dict[str, Any] = {"progress": False, "concurrency": 2, "kinds": ["rewards"]}
    with make_client(sandbox) as client:
        before = asyncio.run(old.pull_frames(client, **keywords))
        after = asyncio.run(fill.pull_frames(client, fill.PullOptions(**keywords)))
        with pytest.raises(TypeError, match="kind"):
            asyncio.run(old.pull_frames(client, kind=["rewards"]))
    assert len(before.frames["rewards"]) > 0
    assert before.calls == after.calls
    for name, frame in before.frames.items():
        pd.testing.assert_frame_equal(frame, after.frames[name])


def test_the_old_estimate_pull_takes_its_options_as_keywords_and_counts_what_fill_counts(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    """0.4.0's ``snapshot.estimate.estimate_pull(client, kinds, cards_per_member=...)`` still
    runs: its keywords become ``EstimateOptions`` for ``fill.estimate_pull``, and a wrong one
    is named."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = importlib.import_module("lyt_toolkit.snapshot.estimate")
    keywords: dict[str, Any] = {"cards_per_member": 1, "budget_share": 1.0}
    with make_client(sandbox) as client:
        before = old.estimate_pull(client, ["rewards", "members"], **keywords)
        after = fill.estimate_pull(
            client, fill.EstimateOptions(kinds=["rewards", "members"], **keywords)
        )
        with pytest.raises(TypeError, match="cards_per_card"):
            old.estimate_pull(client, cards_per_card=1)
    assert before.parts == after.parts and before.calls == after.calls
    assert before.parts.get("rewards", 0) > 0


# -- lyt_toolkit.models.subtypes (0.4.0) -> lyt_toolkit.models.enums --------------------------


def test_the_old_subtypes_module_warns_and_gives_the_enums_from_their_one_home() -> None:
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from lyt_toolkit.models.subtypes import SHIPPING_PRODUCT_ID, FixedEffect, PeriodUnit\n"
        "from lyt_toolkit.models import discounts, enums\n"
        "assert (PeriodUnit, FixedEffect) == (enums.PeriodUnit, enums.PercentEffect)\n"
        "assert SHIPPING_PRODUCT_ID == discounts.SHIPPING_PRODUCT_ID == 'prod_5h1pp1ng'\n"
        "for w in caught:\n"
        "    print(w.category.__name__, w.filename, w.message, sep=' | ')\n"
    )
    lines = fresh_python(code).stdout.splitlines()
    message = deprecation("lyt_toolkit.models.subtypes").message
    assert lines == [f"FutureWarning | <string> | {message}"]
    assert "lyt_toolkit.models.enums" in lines[0]


# -- lyt_toolkit.reports.snapshot_csv.public_url (0.4.0) -> lyt_toolkit.snapshot.public_url --


def test_public_url_from_the_csv_writer_warns_and_is_the_snapshots() -> None:
    from lyt_toolkit.reports import snapshot_csv
    from lyt_toolkit.snapshot import public_url

    with pytest.warns(FutureWarning, match=r"use lyt_toolkit\.snapshot\.public_url instead"):
        assert snapshot_csv.public_url is public_url
    assert "public_url" not in snapshot_csv.__all__
