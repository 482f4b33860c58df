"""The widget state stored in the committed notebooks, and the tool that writes it.

No browser needed: these read the ``.ipynb`` files (``test_notebooks_in_browser``
checks that a trusted notebook really shows its widgets from that state).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .notebook_state import (
    WIDGET_STATE,
    WIDGET_VIEW,
    leaks,
    normalised,
    reachable,
    stored_state,
    widget_views,
)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WITH_WIDGETS = [
    p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if any(widget_views(json.loads(p.read_text())))
]


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_some_notebook_shows_widgets() -> None:
    assert WITH_WIDGETS, "no committed notebook displays a widget"


@pytest.mark.parametrize("path", WITH_WIDGETS, ids=lambda p: p.name)
def test_every_displayed_widget_has_its_state(path: Path) -> None:
    notebook = _load(path)
    state = stored_state(notebook)
    views = [model_id for _, model_id in widget_views(notebook)]
    missing = [m for m in reachable(state, views) if m not in state]
    assert state, f"{path.name} stores no widget state: run `make notebook-state`"
    assert not missing, f"{path.name}: models shown or referenced but not stored: {missing}"


@pytest.mark.parametrize("path", WITH_WIDGETS, ids=lambda p: p.name)
def test_committed_state_is_as_make_notebook_state_writes_it(path: Path) -> None:
    notebook = _load(path)
    assert normalised(notebook, path.stem) == notebook


# -- the tool, on made-up notebooks -----------------------------------------------------


def _model(name: str, **state: Any) -> dict[str, Any]:
    return {"model_module": "@jupyter-widgets/controls", "model_name": name, "state": state}


def _notebook(state: dict[str, Any], shown: list[str]) -> dict[str, Any]:
    outputs = [
        {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": m}}, "metadata": {}}
        for m in shown
    ]
    cell = {"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs}
    widgets = {WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return {"cells": [cell], "metadata": {"widgets": widgets}}


BOX, LABEL, LAYOUT, ORPHAN = ("a" * 32, "b" * 32, "c" * 32, "d" * 32)
STATE = {
    ORPHAN: _model("TextModel", value="left open, never shown"),
    BOX: _model("VBoxModel", children=[f"IPY_MODEL_{LABEL}"], layout=f"IPY_MODEL_{LAYOUT}"),
    LAYOUT: _model("LayoutModel"),
    LABEL: _model("HTMLModel", value="hello", layout=f"IPY_MODEL_{LAYOUT}"),
}


def test_normalised_keeps_what_the_views_reach_under_stable_names() -> None:
    result = normalised(_notebook(STATE, [BOX]), "demo")
    state = stored_state(result)
    assert [m["model_name"] for m in state.values()] == ["VBoxModel", "HTMLModel", "LayoutModel"]
    box_id = result["cells"][0]["outputs"][0]["data"][WIDGET_VIEW]["model_id"]
    assert next(iter(state)) == box_id
    assert reachable(state, [box_id]) == list(state)  # every reference renamed alike
    assert BOX not in json.dumps(result)
    assert normalised(result, "demo") == result
    assert normalised(_notebook(dict(reversed(STATE.items())), [BOX]), "demo") == result
    assert list(stored_state(normalised(_notebook(STATE, [BOX]), "other"))) != list(state)


def test_normalised_drops_the_state_of_a_notebook_without_widgets() -> None:
    assert "widgets" not in normalised(_notebook(STATE, []), "demo")["metadata"]


def test_normalised_refuses_a_view_without_its_model() -> None:
    with pytest.raises(ValueError, match=LABEL):
        normalised(_notebook({BOX: STATE[BOX], LAYOUT: STATE[LAYOUT]}, [BOX]), "demo")


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("token sandbox-app-token", "sandbox-app-"),
        ("/home/someone/projects/report.csv", "/home/someon"),
        ("served at http://127.0.0.1:41234/v2", "a loopback URL with its port"),
    ],
)
def test_leaks_names_what_the_state_must_not_hold(value: str, found: str) -> None:
    notebook = _notebook({BOX: _model("HTMLModel", value=value)}, [BOX])
    problems = leaks(notebook, ["sandbox-app-token", "/home/someone"])
    assert [p for p in problems if found in p], problems
    assert leaks(_notebook(STATE, [BOX]), ["sandbox-app-token", "/home/someone"]) == []
