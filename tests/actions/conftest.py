"""One demo sandbox per session, reached over real HTTP; reset around mutating tests; its
four-kind plan saved once a module (``save_four``)."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import ProgramSnapshot

from .helpers import CREDENTIALS, SaveFour, SaveOne, four_kinds_plan, one_bucket_a_card


@pytest.fixture(scope="session")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(credentials=CREDENTIALS) as sandbox:
        yield sandbox


@pytest.fixture
def lyt_to_fresh(fresh: Sandbox, configure_lyt: Callable[[Sandbox], None]) -> None:
    """``lyt`` run in the test talks to ``fresh`` (``configure_lyt``)."""
    configure_lyt(fresh)


@pytest.fixture
def client(fresh: Sandbox, make_client: Callable[..., LoyaltyClient]) -> Iterator[LoyaltyClient]:
    with make_client(fresh) as c:
        yield c


@pytest.fixture
def professional(fresh: Sandbox) -> Iterator[None]:
    """``fresh`` on the professional plan (its answers carry the window's count), then back
    to the suite's unlimited one."""
    fresh.set_plan("professional")
    yield
    fresh.set_plan("unlimited")


@pytest.fixture(scope="module")
def _four_kinds_saved(
    _fresh_pulled: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory
) -> tuple[ChangePlan, dict[str, str], Path]:
    """``four_kinds_plan`` of the program as ``fresh`` holds it, saved: once a module."""
    plan, targets = four_kinds_plan(copy.deepcopy(_fresh_pulled))
    return plan, targets, plan.save(tmp_path_factory.mktemp("four-kinds") / "plan.json")


@pytest.fixture
def save_four(_four_kinds_saved: tuple[ChangePlan, dict[str, str], Path]) -> SaveFour:
    """``save_four(path)``: ``four_kinds_plan`` of the program a ``fresh`` client reads (put
    back to the one the module's plan was made from), its file copied to ``path``: the plan
    (a copy) and its targets."""
    plan, targets, saved = _four_kinds_saved

    def save(path: Path) -> tuple[ChangePlan, dict[str, str]]:
        shutil.copyfile(saved, path)
        return copy.deepcopy(plan), dict(targets)

    return save


@pytest.fixture(scope="module")
def _one_bucket_a_card_saved(
    _fresh_pulled: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory
) -> tuple[pd.DataFrame, Path]:
    """``one_bucket_a_card``'s plan of the program as ``fresh`` holds it, saved: once a module."""
    plan, chosen = one_bucket_a_card(copy.deepcopy(_fresh_pulled))
    return chosen, plan.save(tmp_path_factory.mktemp("one-a-card") / "plan.json")


@pytest.fixture
def save_one(_one_bucket_a_card_saved: tuple[pd.DataFrame, Path]) -> SaveOne:
    """``save_one(path)``: ``one_bucket_a_card``'s plan of the program a ``fresh`` client
    reads (put back to the one the module's plan was made from), its file copied to
    ``path``; the buckets chosen (a copy)."""
    chosen, saved = _one_bucket_a_card_saved

    def save(path: Path) -> pd.DataFrame:
        shutil.copyfile(saved, path)
        return chosen.copy()

    return save
