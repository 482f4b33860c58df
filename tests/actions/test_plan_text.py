"""A long plan prints as pandas prints a long frame: more than ``display.max_rows`` changes
show ``display.min_rows`` of them, the first and the last, with a line counting the rest and
saying where they all are; ``to_string()`` gives every line, and Jupyter's table is cut
the same way, group by group."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot, actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.change_plan import as_saved
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

PROGRAM = generate_program(
    members=2, rewards=300, benefits=2, card_definitions=2, tier_structures=1, seed=1
)
MORE = re.compile(
    r"^\.\.\. ([\d,]+) more changes \(all ([\d,]+): print\(plan\.to_string\(\)\), or the frames "
    r"plan\.changes and plan\.unsupported\) \.\.\.$"
)


@pytest.fixture(scope="module")
def plan(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[ChangePlan]:
    """Every ACTIVE reward of 300 set to DRAFT (well over 60 changes), and the last reward
    renamed: a change the service cannot make, the plan's last line."""
    with start_sandbox(PROGRAM, now=PROGRAM["now"]) as sb:
        kwargs = sb.credentials.as_client_kwargs()
        with LoyaltyClient(base_url=sb.base_url, env_file=None, **kwargs) as client:
            snapshot = ProgramSnapshot.pull(client, progress=False, kinds=["rewards"])
    edit = actions.edit(snapshot)
    edit.rewards.loc[edit.rewards["status"] == "ACTIVE", "status"] = "DRAFT"
    edit.rewards.loc[edit.rewards.index[-1], "name"] = "Renamed"
    yield edit.plan()


def test_a_long_plan_prints_its_first_and_last_changes_and_counts_the_rest(
    plan: ChangePlan,
) -> None:
    every = plan.to_string().splitlines()
    total = len(plan)
    assert total > 100 and len(every) == total + 1  # the summary, then a line a change
    lines = str(plan).splitlines()
    assert lines[0] == every[0] == plan.summary()
    assert lines[1:6] == every[1:6] and lines[7:] == every[-5:]  # display.min_rows: 10
    assert every[-1].startswith("! reward ")  # the change it cannot make is not hidden
    more = MORE.match(lines[6])
    assert more, lines[6]
    assert more.groups() == (f"{total - 10:,}", f"{total:,}")


def test_pandas_display_options_say_how_much_is_shown(plan: ChangePlan) -> None:
    with pd.option_context("display.max_rows", None):
        assert str(plan) == plan.to_string()
    with pd.option_context("display.max_rows", len(plan)):
        assert str(plan) == plan.to_string()
    with pd.option_context("display.max_rows", 100, "display.min_rows", 20):
        lines = str(plan).splitlines()
    assert len(lines) == 1 + 20 + 1 and MORE.match(lines[11])


def test_a_saved_plan_prints_as_the_plan_does(plan: ChangePlan, tmp_path: Path) -> None:
    saved = as_saved(plan, tmp_path / "plan.json")
    lines = str(saved).splitlines()
    assert lines[1:] == str(plan).splitlines()[1:]  # its summary counts the re-read too
    assert saved.to_string().splitlines()[1:] == plan.to_string().splitlines()[1:]


def test_jupyter_cuts_a_long_group_as_print_cuts_the_plan(plan: ChangePlan) -> None:
    html = plan._repr_html_()
    change = html.split("<tbody>")[1]
    changed = plan.changes[plan.changes["action"] == "change"]
    rows = re.findall(r"<tr><td>(.*?)</td>", change)
    assert rows == ["rewards"] * 10  # five, then (a row of its own) the rest counted, five
    more = re.findall(r'<tr><td colspan="6">([^<]*)</td></tr>', change)
    assert more == [
        f"... {len(changed) - 10:,} more changes (all {len(changed):,}: print(plan.to_string()), "
        "or the frames plan.changes and plan.unsupported) ..."
    ]
    for key in (*changed["key"].head(5), *changed["key"].tail(5)):
        assert f"<td>{key}</td>" in change
    assert f"<td>{changed['key'].iloc[5]}</td>" not in change
    with pd.option_context("display.max_rows", None):
        whole = plan._repr_html_().split("<tbody>")[1]
    assert len(re.findall(r"<tr><td>", whole)) == len(changed)
