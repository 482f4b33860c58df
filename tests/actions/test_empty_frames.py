"""The frames read from an action log carry the same columns and dtypes with no row (a plan
of no change, applied) as with rows (a plan of four kinds, applied): a reader of one relies on
them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from contextlib import AbstractContextManager

import pandas as pd
import pytest

from lyt_toolkit.actions import ActionLog, ChangePlan, logged_results
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import four_kinds_plan

Frames = dict[str, dict[str, pd.DataFrame]]


@pytest.fixture(scope="module")
def frames(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    tmp_path_factory: pytest.TempPathFactory,
) -> Frames:
    """By plan (``empty``, ``rows``): its apply's ``logged_results`` and log's ``frame()``."""
    root = tmp_path_factory.mktemp("empty-frames")
    out: Frames = {}
    with start_sandbox() as sb, make_client(sb) as client:
        snapshot = ProgramSnapshot.pull(client, progress=False)
        plans = {
            "empty": ChangePlan.from_frames(snapshot, snapshot),
            "rows": four_kinds_plan(copy.deepcopy(snapshot))[0],
        }
        for name, plan in plans.items():
            saved = ChangePlan.load(plan.save(root / f"{name}.json"))
            rehearsal = saved.rehearse(snapshot, progress=False)
            saved.apply(client, log=root / f"{name}.jsonl", progress=False, allow_destroy=True)
            with ActionLog(root / f"{name}.jsonl", plan=saved.sha256) as log:
                out[name] = {"logged_results": logged_results(rehearsal, log), "frame": log.frame()}
    return out


@pytest.mark.parametrize("frame", ["logged_results", "frame"])
def test_a_frame_of_no_row_has_the_columns_and_dtypes_of_one_with_rows(
    frames: Frames, frame: str
) -> None:
    empty, rows = frames["empty"][frame], frames["rows"][frame]
    assert empty.empty and not rows.empty
    assert empty.dtypes.to_dict() == rows.dtypes.to_dict()
