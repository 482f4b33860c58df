"""The public names written twice by design keep to each other.

The client's sync resources are generated from their async source (``scripts/unasync.py
--check``); the few pairs written by hand are held together here: the snapshot's blocking
and async pulls and refreshes, a saved plan's apply beside a plan's, and the keywords of
``pull``, ``refresh`` and ``estimate`` beside the options records they build (each default
is written in both places, so a change to one must reach the other).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from lyt_toolkit.actions import ChangePlan, SavedPlan
from lyt_toolkit.fill import EstimateOptions, PullOptions, RefreshOptions
from lyt_toolkit.snapshot import ProgramSnapshot


def _parameters(method: Callable[..., Any], *leave_out: str) -> list[inspect.Parameter]:
    return [
        parameter
        for parameter in inspect.signature(method).parameters.values()
        if parameter.name not in leave_out
    ]


@pytest.mark.parametrize(
    ("blocking", "awaited", "extra"),
    [
        (ProgramSnapshot.pull, ProgramSnapshot.apull, ()),
        (ProgramSnapshot.refresh, ProgramSnapshot.arefresh, ()),
        (ChangePlan.apply, SavedPlan.apply, ("refresh", "sha256")),
        (ChangePlan.check_apply, SavedPlan.check_apply, ("refresh", "sha256")),
    ],
    ids=["pull", "refresh", "apply", "check_apply"],
)
def test_each_twin_takes_the_same_parameters(
    blocking: Callable[..., Any], awaited: Callable[..., Any], extra: tuple[str, ...]
) -> None:
    """Names, order, kinds, defaults and annotations alike (``extra``: the second's own)."""
    assert _parameters(blocking) == _parameters(awaited, *extra)
    assert all(name in inspect.signature(awaited).parameters for name in extra)


@pytest.mark.parametrize(
    ("method", "options"),
    [
        (ProgramSnapshot.pull, PullOptions),
        (ProgramSnapshot.refresh, RefreshOptions),
        (ProgramSnapshot.estimate, EstimateOptions),
    ],
    ids=["pull", "refresh", "estimate"],
)
def test_the_keywords_are_the_options_record_with_its_defaults(
    method: Callable[..., Any], options: type[Any]
) -> None:
    keywords = {
        parameter.name: parameter.default
        for parameter in _parameters(method)
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }
    fields = {field.name: field.default for field in dataclasses.fields(options)}
    assert keywords == fields
