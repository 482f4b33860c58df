"""``lyt apply`` of a plan of many activations whose dates the service's clock reached since:
its refusal names the first stale objects one a line, the rest counted, in lines a terminal
shows, not one line of kilobytes. Over real HTTP, on a generated program."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit import actions
from lyt_toolkit.actions.staleness import NAMED_AT_MOST
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import pull

PROGRAM = generate_program(
    members=200, rewards=5, benefits=2, card_definitions=2, tier_structures=1, seed=5
)


@pytest.fixture(scope="module")
def program(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM, now=PROGRAM["now"]) as sb:
        yield sb


def test_a_stale_refusal_of_many_objects_names_one_a_line(
    program: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    configure_lyt: Callable[[Sandbox], None],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with make_client(program) as client:
        snapshot = pull(client)
    buckets = snapshot.pending_buckets
    soon = buckets[
        (buckets["status"] == "PENDING")
        & (buckets["program_status"] == "ACTIVE")
        & (buckets["member_status"] == "ACTIVE")
        & (buckets["date"] > snapshot.pulled_at)
    ].sort_values("date")
    chosen = soon.head(3 * NAMED_AT_MOST)
    assert len(chosen) > NAMED_AT_MOST, len(soon)
    edit = actions.edit(snapshot)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen["id"]), "status"] = "ACTIVATED"
    path = edit.plan().save(tmp_path / "plan.json")
    # The service's clock reaches every chosen date: each activation is refused now (423).
    program.set_clock((chosen["date"].max() + pd.Timedelta(days=1)).strftime("%Y-%m-%dT12:00:00Z"))
    configure_lyt(program)
    assert main(["apply", str(path)]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].startswith(f"lyt apply: {path} is stale: {len(chosen)} objects changed")
    named = [line for line in lines if line.startswith("  pending_buckets ")]
    assert len(named) == NAMED_AT_MOST, err
    assert f"  and {len(chosen) - NAMED_AT_MOST} more (the error's stale lists them all)" in lines
    # Lines a terminal shows, but for the file names and the command (before: one line of
    # kilobytes).
    shown = [line.replace(str(tmp_path), "") for line in lines if "--sha256" not in line]
    assert max(len(line) for line in shown) < 200, err
