"""Particular examples of the docs do what their pages say (all of them also run in
test_examples.py); the sandbox page's shell lines paste and name the real settings."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit._plans import PLANS
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, ENV_VARIABLES

from .pages import DOCS, WHAT_IF_PAGE, blocks

SANDBOX_PAGE = "how-to/sandbox.md"
START = "## Start one from Python or a shell"


def test_the_rehearsal_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    ((line, code),) = blocks("how-to/rehearse-then-apply.md")
    exec(compile(code, f"rehearse-then-apply.md:{line}", "exec"), {})
    assert capsys.readouterr().out == "3\n"


def test_the_sandbox_example_runs_and_stops_its_sandbox(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ((line, code),) = blocks(SANDBOX_PAGE, section=START)
    namespace: dict[str, object] = {}
    exec(compile(code, f"{SANDBOX_PAGE}:{line}", "exec"), namespace)
    assert "lrew_" in capsys.readouterr().out
    sb = namespace["sb"]
    assert isinstance(sb, Sandbox) and not sb.running


def test_the_shell_lines_paste_and_name_the_real_settings() -> None:
    lines = [
        line
        for _, block in blocks(SANDBOX_PAGE, "bash", section=START)
        for line in block.splitlines()
    ]
    assert lines
    exports = {}
    for line in lines:
        assert "[" not in line and "<" not in line, line
        words = shlex.split(line)
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            exports[name] = value
        else:
            assert words[:3] == [".venv/bin/lyt", "sandbox", "serve"], line
            assert len(words[3:]) % 2 == 0 and all(w.startswith("--") for w in words[3::2])
    expected = {ENV_VARIABLES[key]: value for key, value in DEFAULT_CREDENTIALS.items()}
    assert exports == {"LYT_BASE_URL": "http://127.0.0.1:8000", **expected}


def test_the_what_if_example_runs_as_written(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    ((line, code),) = blocks("how-to/promotion-what-if.md")
    with make_client(sandbox) as client, warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace: dict[str, object] = {"client": client}
        exec(compile(code, f"promotion-what-if.md:{line}", "exec"), namespace)
        result = eval(  # the block's last expression, as a notebook would show it
            compile(code[code.index("client.promotion_tiers.what_if(") :], "what_if", "eval"),
            namespace,
        )
    assert isinstance(namespace["tiers"], pd.DataFrame) and len(namespace["tiers"]) > 0
    assert isinstance(result, pd.DataFrame) and len(result) == 2
    assert result["valid"].notna().all()


def test_the_report_files_example_runs_as_written(
    sandbox: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ((line, code),) = blocks("how-to/audit.md", section="## Report files in Python")
    monkeypatch.chdir(tmp_path)
    with make_client(sandbox) as client:
        namespace: dict[str, object] = {"client": client}
        exec(compile(code, f"audit.md:{line}", "exec"), namespace)
    again, findings = namespace["again"], namespace["findings"]
    assert isinstance(again, pd.DataFrame) and isinstance(findings, pd.DataFrame)
    pd.testing.assert_frame_equal(again, findings)
    written = {p.name for p in (tmp_path / "reports" / "audit").iterdir()}
    assert {"audit_findings.csv", "audit_findings.schema.json", "chart.png"} <= written


def test_the_budget_example_prints_what_a_pull_and_a_plan_cost(
    restore: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = "\n".join(
        c for _, c in blocks("how-to/quotas.md", section="## Pulls and plans within the budget")
    )
    monkeypatch.chdir(tmp_path)
    with make_client(restore) as client:
        exec(compile(code, "quotas.md", "exec"), {"client": client})
    out = capsys.readouterr().out
    assert "calls needed:" in out and "calls used:" in out


def test_the_economics_what_if_prints_what_its_page_shows(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each ```python block of the page followed by a ```text block prints exactly that text
    (the sandbox's port shown as PORT)."""
    text = (DOCS / WHAT_IF_PAGE).read_text(encoding="utf-8")
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, re.S)
    assert len(pairs) == len(blocks(WHAT_IF_PAGE)) == 8
    monkeypatch.chdir(tmp_path)
    with start_sandbox() as sb, make_client(sb) as client:
        namespace: dict[str, object] = {"client": client}
        for number, (code, shown) in enumerate(pairs):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{WHAT_IF_PAGE}:block {number}", "exec"), namespace)
            printed = re.sub(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:PORT", out.getvalue())
            assert printed == shown, f"block {number} of {WHAT_IF_PAGE} prints otherwise"


def test_what_a_pull_costs_counts_the_bucket_lists_the_pull_sends(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    """The budgets page's figure for a 500-member program with one card each is what a pull
    of one sends for its member tree: a read per member, a bucket list per card holding
    pending points (a card showing none is not listed)."""
    from lyt_toolkit import ProgramSnapshot
    from lyt_toolkit.synthetic import generate_program

    text = " ".join((DOCS / "explanation" / "budgets.md").read_text(encoding="utf-8").split())
    (reads, lists), *_ = re.findall(
        r"A 500-member program with one card each, a fifth of the cards holding pending points"
        r" \(as the generated programs have\), costs about ([\d,]+) \+ ([\d,]+) calls",
        text,
    )
    program = generate_program(members=500, seed=3)
    with start_sandbox(program) as sb, make_client(sb) as client:
        tree = ProgramSnapshot.pull(client, progress=False, kinds=["cards", "pending_buckets"])
        with make_client(sb) as lister:
            ProgramSnapshot.pull(lister, progress=False, kinds=["members"])
            listed = lister.quota.calls_used
    assert tree.calls is not None
    holding = int((tree.cards["balance_pending_points"] != 0).sum())
    assert tree.calls.used - listed == 500 + holding  # a read a member, a list a holding card
    assert int(reads.replace(",", "")) == 500
    assert abs(int(lists.replace(",", "")) - holding) <= 0.1 * holding, (lists, holding)


def test_the_quota_comment_shows_what_one_list_call_leaves(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The quotas page's first example reads one page of rewards on the startup plan; its
    comment shows the quota that leaves: a token request and the list, two calls."""
    ((line, code), *_) = blocks("how-to/quotas.md", section="## Watch the budget from the client")
    shown = re.search(r"remaining=(\d+), .*calls_used=(\d+)\)", code)
    assert shown is not None
    with start_sandbox() as sb:
        sb.set_plan("startup")
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        for key, value in asdict(sb.credentials).items():
            monkeypatch.setenv(ENV_VARIABLES[key], value)
        namespace: dict[str, object] = {}
        exec(compile(code, f"quotas.md:{line}", "exec"), namespace)
        client = namespace["client"]
        assert isinstance(client, LoyaltyClient)
        quota = client.quota
        client.close()
    assert (quota.limit, quota.remaining, quota.calls_used) == (
        1000,
        int(shown.group(1)),
        int(shown.group(2)),
    )


def test_the_sample_a_refusal_offers_is_described_with_its_cap() -> None:
    """A refused pull offers the largest sample its share holds, but never more than
    ``DEFAULT_SAMPLE`` members (on 20,000 members under the professional plan the share held
    1,079 and the refusal offered 1,000): the large-programs page says so."""
    from lyt_toolkit.fill.budget import DEFAULT_SAMPLE

    text = " ".join((DOCS / "how-to" / "large-programs.md").read_text(encoding="utf-8").split())
    way = text[text.index("- **A sample**") :].split("- **")[1]
    assert f"at most {DEFAULT_SAMPLE:,} members" in way, way


def test_the_quotas_table_gives_each_published_plans_budgets() -> None:
    """The quotas page's table of plans shows the hourly and billing-cycle budgets the
    sandbox serves (``lyt_toolkit._plans``)."""
    text = (DOCS / "how-to" / "quotas.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ([\d,]+) calls an hour \| ([\d,]+) calls \|$", text, re.M)
    shown = {
        name: (int(hourly.replace(",", "")), int(cycle.replace(",", "")))
        for name, hourly, cycle in rows
    }
    assert shown == {plan.name: (plan.hourly, plan.cycle) for plan in PLANS}
