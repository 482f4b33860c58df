"""Helpers of the widget tests: what a grid shows, what a panel's run gave, the controls a
worker thread reads or writes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pandas as pd
from itables.widget import ITable

from lyt_toolkit.widgets._plan_panel import PlanPanel


def shown(grid: ITable) -> pd.DataFrame:
    """The frame ``grid`` shows (a grid shows none until it is given one)."""
    assert grid.df is not None, "the grid shows no frame"
    return grid.df


def ran(panel: PlanPanel) -> pd.DataFrame:
    """The results of ``panel``'s last run (a panel has none before it runs)."""
    assert panel.results is not None, "the panel has not run"
    return panel.results


def off_thread(widget: Any, *controls: Any) -> list[str]:
    """Watch ``controls`` of ``widget`` from now on: each read or write of their ``value``
    made off the test's thread (a notebook kernel's, here) other than while ``widget``'s
    ``_shows`` shows what a load read is listed, ``read NAME in THREAD`` or ``write ...``
    (the list returned grows as they happen; empty: none was)."""
    kernel, showing = threading.current_thread(), threading.local()
    seen: list[str] = []
    shows = widget._shows

    def flagged_shows(inputs: tuple[object, ...], show: Callable[[], None]) -> bool:
        def flagged() -> None:
            showing.depth = getattr(showing, "depth", 0) + 1
            try:
                show()
            finally:
                showing.depth -= 1

        return bool(shows(inputs, flagged))

    widget._shows = flagged_shows
    for control in controls:
        _watch(control, seen, kernel, showing)
    return seen


def _watch(
    control: Any, seen: list[str], kernel: threading.Thread, showing: threading.local
) -> None:
    name = control.description or control.placeholder or type(control).__name__

    def note(what: str) -> None:
        thread = threading.current_thread()
        if thread is not kernel and not getattr(showing, "depth", 0):
            seen.append(f"{what} {name} in {thread.name}")

    class Watched(type(control)):  # type: ignore[misc]
        def __getattribute__(self, attr: str) -> Any:
            if attr == "value":
                note("read")
            return super().__getattribute__(attr)

        def __setattr__(self, attr: str, value: Any) -> None:
            if attr == "value":
                note("write")
            super().__setattr__(attr, value)

    control.__class__ = Watched
