"""Every notebook, run in JupyterLab in Chromium: no error, every widget rendered as a widget.

Each test opens its own copy (outputs stripped, so only the run can fill them) and
chooses Run > Run All Cells. Which cells must show widgets, and how many, comes from
the committed notebook, which nbval keeps equal to what a run produces.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .lab import CREDENTIALS, NOTEBOOKS, Lab
from .notebook_state import widget_cells, widget_views
from .notebook_ui import WIDGET_REPR, NotebookOpener, Output

NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("*.ipynb"))
WITH_WIDGETS = [p for p in NOTEBOOK_FILES if any(widget_views(json.loads(p.read_text())))]


def _expected_widgets(path: Path) -> dict[int, int]:
    return widget_cells(json.loads(path.read_text(encoding="utf-8")))


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


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_runs_with_every_widget_rendered(
    path: Path, lab: Lab, open_notebook: NotebookOpener
) -> None:
    notebook = open_notebook(lab.copy_notebook(path.name, f"run-{path.name}", strip=True))
    notebook.run_all()

    assert notebook.errors() == []
    assert notebook.unexecuted(notebook.code_cells.count()) == []
    notebook.wait_for_widgets()
    assert _widget_problems(notebook.outputs(), _expected_widgets(path)) == []
    page_text = notebook.page.inner_text("body")
    for secret in (CREDENTIALS.app_token, CREDENTIALS.management_token):
        assert secret not in page_text


@pytest.mark.parametrize("path", WITH_WIDGETS, ids=lambda p: p.name)
def test_trusted_notebook_shows_its_stored_widgets_before_it_runs(
    path: Path, lab: Lab, open_notebook: NotebookOpener
) -> None:
    copy = lab.copy_notebook(path.name, f"trusted-{path.name}", strip=False)
    lab.trust(copy)
    notebook = open_notebook(copy)

    notebook.wait_for_widgets()
    assert _widget_problems(notebook.outputs(), _expected_widgets(path)) == []


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
