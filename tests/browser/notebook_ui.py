"""A notebook open in JupyterLab, used the way a person uses it: menus, keys, reading.

Everything here goes through the page: the Run menu, the command-mode keys, the
text and widgets the outputs show. Nothing reaches into JupyterLab's internals.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import BrowserContext, Locator, Page, expect

from .lab import Lab

OPEN_TIMEOUT_MS = 120_000
RUN_TIMEOUT_MS = 240_000
RENDER_TIMEOUT_MS = 30_000

_workspaces = itertools.count(1)

WIDGET_PLACEHOLDERS = ("Loading widget...", "Error displaying widget")
WIDGET_REPR = re.compile(r"^[A-Z]\w*\((children|value|options|description|layout)=")
"""The text an ipywidget shows when no widget view can render it, e.g. ``BenefitForm(children=``."""

_OUTPUTS_JS = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell) =>
  [...cell.querySelectorAll('.jp-OutputArea-output')].map((o) => ({
    mime: o.dataset.mimeType || null,
    widget: o.querySelector('.jupyter-widgets') !== null,
    text: o.innerText,
    nested: o.parentElement.closest('.jp-OutputArea-output') !== null,
    images: [...o.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth > 0).length,
  })))"""

_RUN_SETTLED_JS = """(count) => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
    .slice(0, count).map((p) => p.textContent);
  if (prompts.length < count || prompts.some((p) => p.includes('*'))) return false;
  const failed = document.querySelector(
    '.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
  return failed !== null || prompts.every((p) => /\\[\\d+\\]/.test(p));
}"""

_KERNEL_IDLE_JS = """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
  .some((item) => / \\| Idle$/.test(item.textContent.trim())
                  && !item.textContent.includes('No Kernel'))"""


@dataclass(frozen=True)
class Output:
    """One output of a cell as displayed: its MIME type (``None`` for a widget view),
    whether a widget view is in it, its visible text, whether it is shown inside a
    widget (an output widget's area) rather than by the cell, and its loaded images."""

    mime: str | None
    widget: bool
    text: str
    nested: bool
    images: int

    @property
    def rendered_widget(self) -> bool:
        return self.widget and not self.unrendered_widget

    @property
    def unrendered_widget(self) -> bool:
        """A widget placeholder, an error in place of a view, or the widget's text repr."""
        return any(p in self.text for p in WIDGET_PLACEHOLDERS) or bool(
            WIDGET_REPR.match(self.text)
        )


class NotebookUI:
    """One notebook in its own browser page."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def open(self, url: str) -> NotebookUI:
        """Open the notebook and wait until its kernel is started and idle."""
        self.page.goto(url)
        self.page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=OPEN_TIMEOUT_MS)
        self.wait_for_idle_kernel()
        return self

    def wait_for_idle_kernel(self) -> None:
        self.page.wait_for_function(_KERNEL_IDLE_JS, timeout=OPEN_TIMEOUT_MS)

    # -- cells ------------------------------------------------------------------------------

    @property
    def cells(self) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell")

    @property
    def code_cells(self) -> Locator:
        return self.page.locator(".jp-Notebook .jp-CodeCell")

    def select_cell(self, cell: Locator) -> None:
        """Click the cell's prompt: the cell is selected, in command mode."""
        cell.locator(".jp-InputPrompt").click()

    def outputs(self) -> list[list[Output]]:
        """The outputs of every cell (markdown cells count, with none), as displayed."""
        found: list[list[dict[str, Any]]] = self.page.evaluate(_OUTPUTS_JS)
        return [[Output(**o) for o in cell] for cell in found]

    # -- running ----------------------------------------------------------------------------

    def run_menu(self, item: str) -> None:
        """Choose ``item`` in the Run menu."""
        self.page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        self.page.get_by_role("menuitem", name=item, exact=False).first.click()

    def run_all(self) -> None:
        """Run > Run All Cells, then wait until every code cell has run or one failed."""
        self.run_menu("Run All Cells")
        self.wait_for_run(self.code_cells.count())

    def run_all_but_last(self) -> None:
        """Select the last cell, Run > Run All Above Selected Cell, and wait as ``run_all``.

        Every notebook closes its sandbox in its last cell, so this leaves it serving.
        """
        self.select_cell(self.cells.last)
        self.run_menu("Run All Above Selected Cell")
        self.wait_for_run(self.code_cells.count() - 1)

    def wait_for_run(self, code_cells: int) -> None:
        self.page.wait_for_function(_RUN_SETTLED_JS, arg=code_cells, timeout=RUN_TIMEOUT_MS)
        self.wait_for_idle_kernel()

    def errors(self) -> list[str]:
        """The text of every error (traceback or stderr) the notebook shows."""
        stderr = self.page.locator(
            '.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
        )
        return stderr.all_inner_texts()

    def unexecuted(self, code_cells: int) -> list[int]:
        """Positions (among code cells) of the first ``code_cells`` that show no count."""
        prompts = self.code_cells.locator(".jp-InputPrompt").all_inner_texts()[:code_cells]
        return [n for n, p in enumerate(prompts) if not re.search(r"\[\d+\]", p)]

    def wait_for_widgets(self) -> None:
        """Until no widget view in the notebook still shows its loading placeholder."""
        placeholder = self.page.locator(".jp-Notebook .jp-OutputArea-output").filter(
            has_text=WIDGET_PLACEHOLDERS[0]
        )
        expect(placeholder).to_have_count(0, timeout=RENDER_TIMEOUT_MS)

    def run_new_cell(self, code: str) -> str:
        """Type ``code`` into a new cell above the last one, run it, return its output text."""
        self.select_cell(self.cells.last)
        self.page.keyboard.press("a")  # command mode: insert a cell above
        cell = self.cells.nth(self.cells.count() - 2)
        editor = cell.locator(".jp-InputArea-editor .cm-content")
        editor.click()
        editor.press_sequentially(code)
        editor.press("Shift+Enter")
        output = cell.locator(".jp-OutputArea-output")
        expect(output).not_to_have_count(0, timeout=RENDER_TIMEOUT_MS)
        return output.first.inner_text()


class NotebookOpener:
    """``opener(name)``: a new tab on ``notebooks/<name>`` of the lab, its kernel idle.

    ``close()`` closes the tabs it opened and shuts their kernels (and sandboxes) down.
    """

    def __init__(self, context: BrowserContext, lab: Lab) -> None:
        self.context, self.lab = context, lab
        self.opened: list[tuple[str, NotebookUI]] = []

    def __call__(self, name: str) -> NotebookUI:
        ui = NotebookUI(self.context.new_page())
        self.opened.append((name, ui))
        return ui.open(self.lab.notebook_url(name, f"w{next(_workspaces)}"))

    def close(self) -> None:
        for name, ui in self.opened:
            ui.page.close()
            self.lab.shut_down(name)


@dataclass(frozen=True)
class Run:
    """A notebook run whole in its page, and what the page showed as the run ended."""

    ui: NotebookUI
    errors: list[str]
    unexecuted: list[int]
    outputs: list[list[Output]]
    text: str
    """The page's text (``body``)."""


class NotebookRuns:
    """``runs(name)``: ``notebooks/<name>`` run once per session, on a copy with its
    outputs stripped (so only the run fills them): Run > Run All Cells, then until no
    widget shows its placeholder. A later call returns the same run, its page still
    open and its kernel serving, whatever earlier tests did in it since; ``Run`` keeps
    what the page showed right after the run for the checks of the run itself.
    """

    def __init__(self, opener: NotebookOpener) -> None:
        self.opener = opener
        self.runs: dict[str, Run] = {}

    def __call__(self, name: str) -> Run:
        if name not in self.runs:
            ui = self.opener(self.opener.lab.copy_notebook(name, f"run-{name}", strip=True))
            ui.run_all()
            errors = ui.errors()
            unexecuted = ui.unexecuted(ui.code_cells.count())
            ui.wait_for_widgets()
            self.runs[name] = Run(ui, errors, unexecuted, ui.outputs(), ui.page.inner_text("body"))
        return self.runs[name]
