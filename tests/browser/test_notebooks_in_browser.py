"""The notebooks in JupyterLab in Chromium: every output shown, every widget rendered.

nbval runs every notebook and keeps its committed outputs equal to what a run
produces; here the browser shows them. Two notebooks run whole (Run > Run All Cells,
on a copy with its outputs stripped): the first a new user opens, and each one that
displays widgets, whose widgets need the run's kernel. Every notebook else is opened
as ``make lab`` opens it, trusted and with its outputs, and not run: the page must show
each stored output rendered (``stored_outputs``), no widget left unrendered, no error
and no sandbox token. Which cells must show widgets, and how many, comes from the
committed notebook.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS

from .lab import CREDENTIALS, NOTEBOOKS, Lab
from .notebook_state import widget_cells, widget_views
from .notebook_ui import WIDGET_REPR, NotebookOpener, NotebookRuns, Output
from .stored_outputs import shown_unlike_stored

NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("*.ipynb"))
WITH_WIDGETS = [p for p in NOTEBOOK_FILES if any(widget_views(json.loads(p.read_text())))]
FIRST_NOTEBOOK = "01-getting-started.ipynb"
RUN_WHOLE = [p for p in NOTEBOOK_FILES if p.name == FIRST_NOTEBOOK or p in WITH_WIDGETS]
"""Run in the browser; the widget tests drive the widgets notebook's run."""
OPENED_STORED = [p for p in NOTEBOOK_FILES if p not in RUN_WHOLE or p in WITH_WIDGETS]
"""Opened trusted with their outputs: the others, and those whose widgets show from state."""
SECRETS = (
    CREDENTIALS.app_token,
    CREDENTIALS.management_token,
    DEFAULT_CREDENTIALS["app_token"],
    DEFAULT_CREDENTIALS["management_token"],
)
"""The lab kernels' tokens, and the sandbox's own defaults."""
LAB_IDS = {
    CREDENTIALS.app_id: DEFAULT_CREDENTIALS["app_id"],
    CREDENTIALS.management_id: DEFAULT_CREDENTIALS["management_id"],
}
"""The IDs a run in the lab shows where the committed run (on the defaults) shows these."""


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _expected_widgets(path: Path) -> dict[int, int]:
    return widget_cells(_load(path))


def _widget_problems(shown: list[list[Output]], expected: dict[int, int]) -> list[str]:
    """Cells that do not show the widgets they should, and outputs that are widgets
    left unrendered (placeholder, error, or text repr) anywhere in the notebook."""
    problems = []
    for index, count in expected.items():
        rendered = sum(o.rendered_widget for o in shown[index])
        if rendered != count:
            texts = [o.text[:80] for o in shown[index]]
            problems.append(f"cell {index}: {rendered} of {count} widgets rendered; {texts}")
    for index, outputs in enumerate(shown):
        problems += [f"cell {index}: {o.text[:80]!r}" for o in outputs if o.unrendered_widget]
    return problems


@pytest.mark.parametrize("path", RUN_WHOLE, ids=lambda p: p.name)
def test_notebook_runs_with_every_widget_rendered(path: Path, notebook_runs: NotebookRuns) -> None:
    run = notebook_runs(path.name)

    assert run.errors == []
    assert run.unexecuted == []
    assert _widget_problems(run.outputs, _expected_widgets(path)) == []
    assert shown_unlike_stored(run.outputs, _load(path), LAB_IDS) == []
    for secret in SECRETS:
        assert secret not in run.text


@pytest.fixture(scope="module")
def trusted_copies(lab: Lab) -> dict[str, str]:
    """Name -> a served copy with its outputs, trusted, of each notebook opened stored."""
    copies = {
        p.name: lab.copy_notebook(p.name, f"trusted-{p.name}", strip=False) for p in OPENED_STORED
    }
    lab.trust(*copies.values())
    return copies


@pytest.mark.parametrize("path", OPENED_STORED, ids=lambda p: p.name)
def test_trusted_notebook_shows_its_stored_outputs_before_it_runs(
    path: Path, trusted_copies: dict[str, str], open_notebook: NotebookOpener
) -> None:
    notebook = open_notebook(trusted_copies[path.name])

    notebook.wait_for_widgets()
    shown = notebook.outputs()
    assert notebook.errors() == []
    assert notebook.unexecuted(notebook.code_cells.count()) == []
    assert _widget_problems(shown, _expected_widgets(path)) == []
    assert shown_unlike_stored(shown, _load(path)) == []
    page_text = notebook.page.inner_text("body")
    for secret in SECRETS:
        assert secret not in page_text


@pytest.mark.parametrize("path", WITH_WIDGETS[:1], ids=lambda p: p.name)
def test_untrusted_notebook_shows_text_in_place_of_widgets(
    path: Path, lab: Lab, open_notebook: NotebookOpener
) -> None:
    """The check above can fail: without trust, JupyterLab shows the widgets' text."""
    copy = lab.copy_notebook(path.name, f"untrusted-{path.name}", strip=False)
    # Trust is a signature of the content: a byte-identical copy of a trusted notebook is
    # trusted too, so this copy differs (by a metadata key) from the one trusted above.
    stored = lab.root / "notebooks" / copy
    content = json.loads(stored.read_text(encoding="utf-8"))
    content["metadata"]["lyt_browser_test"] = "never trusted"
    stored.write_text(json.dumps(content), encoding="utf-8")
    notebook = open_notebook(copy)
    notebook.wait_for_widgets()  # an output may show the placeholder for a moment first

    shown = notebook.outputs()
    expected = _expected_widgets(path)
    problems = _widget_problems(shown, expected)
    assert len([p for p in problems if "widgets rendered" in p]) == len(expected)
    for index in expected:
        assert any(WIDGET_REPR.match(o.text) for o in shown[index]), shown[index]
