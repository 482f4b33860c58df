"""``BulkBenefitImport``: a CSV of benefits, previewed row by row, then created."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w
import pandas as pd

from .. import actions
from .._text import counted, figure
from ._grid import clear, grid, show
from ._messages import State, describe_error, status_html
from ._plan_panel import PlanPanel
from ._results import RESULT_VIEW

if TYPE_CHECKING:
    from ..actions.log import LogSource
    from ..client import LoyaltyClient

__all__ = ["BulkBenefitImport"]

PREVIEW_VIEW = ("row", "target", "type", "benefit_status", "will", "error", "field")


class BulkBenefitImport(PlanPanel):
    """Upload a benefit CSV (or give its path), check every row, create the valid ones.

    The format is the flat one of ``data/benefits_import_example.csv``. An
    uploaded file and a typed path at the same time is an error naming both
    (the widget never guesses which one was meant). With a log path, a
    re-submit after an interruption or a Cancel skips what was already created.
    """

    def __init__(self, client: LoyaltyClient, *, concurrency: int = 8) -> None:
        super().__init__(client, progress_label="Creating", result_columns=RESULT_VIEW)
        self.upload = w.FileUpload(accept=".csv", multiple=False, description="Upload CSV")
        self.path_input = w.Text(placeholder="or a path, e.g. data/benefits_import_example.csv")
        self.load_button = w.Button(description="Load")
        self.preview_grid = grid(PREVIEW_VIEW)
        self.preview: pd.DataFrame | None = None
        self.concurrency = w.BoundedIntText(
            value=concurrency, min=1, max=32, description="Parallel"
        )
        self.log_path = w.Text(placeholder="optional action log (JSON lines) to resume a batch")
        self.submit_button = w.Button(
            description="Create valid rows", button_style="primary", disabled=True
        )
        self.plan: actions.CreateBenefits | None = None

        self.upload.observe(lambda _: self._load_upload(), names="value")
        self.load_button.on_click(lambda _: self.load())
        self.submit_button.on_click(lambda _: self.submit())
        self.concurrency.observe(lambda _: self._show_cost(), names="value")
        self.children = [
            w.HBox([self.upload, self.path_input, self.load_button]),
            self.status,
            self.preview_grid,
            w.HBox([self.concurrency, self.log_path]),
            w.HBox([self.submit_button, self.cancel_button, self.budget]),
            self.progress,
            self.results_grid,
            self.download,
        ]

    def controls(self) -> Sequence[w.Button]:
        return (self.load_button, self.submit_button)

    def update_buttons(self) -> None:
        self.enable(self.load_button, True)
        self.enable(self.submit_button, self.plan is not None and bool(self.plan.valid_items))

    # -- loading ----------------------------------------------------------------------------

    def _load_upload(self) -> None:
        if self.upload.value:
            self.load()

    def _source(self) -> tuple[Any, str] | str:
        """The CSV's content (or path) and its label, or why there is none to read."""
        path = self.path_input.value.strip()
        if path and self.upload.value:
            name = self.upload.value[0].get("name", "the uploaded file")
            return (
                f"Both an uploaded file ({name}) and a path ({path}) are given: "
                "clear the path box or the upload, then Load again."
            )
        if path:
            return path, os.path.basename(path)
        if self.upload.value:
            uploaded = self.upload.value[0]  # ipywidgets 8: a tuple of dicts
            return bytes(uploaded["content"]), str(uploaded.get("name", "upload.csv"))
        return "Choose a CSV file or type its path."

    def load(self) -> None:
        """Read the CSV and show the preview; nothing is sent."""
        if self.busy:
            self.show_error("A batch is running: wait for it to end or press Cancel.")
            return
        self.download.value = ""
        clear(self.results_grid)
        self.results = None
        source = self._source()
        if isinstance(source, str):
            self._refuse(source)
            return
        content, label = source
        try:
            imported = actions.benefits_from_csv(content)
        except (OSError, ValueError) as exc:
            self._refuse(f"Could not read {label}: {describe_error(exc)}")
            return
        plan = actions.create_benefits(imported)
        try:
            preview = plan.preview(log=self._log())
        except (OSError, ValueError) as exc:
            self._refuse(f"Could not read the action log {self._log()}: {describe_error(exc)}")
            return
        self.plan = plan
        valid = int(preview["valid"].sum())
        invalid = len(preview) - valid
        counts = (
            f"{label}: {counted(len(preview), 'row')}, {figure(valid)} valid,"
            f" {figure(invalid)} with errors"
        )
        state: State = "failure" if valid == 0 else "partial" if invalid else "success"
        self.status.value = status_html(counts, state)
        self.preview = preview
        show(self.preview_grid, preview, PREVIEW_VIEW)
        self._show_cost()
        self.update_buttons()

    def _refuse(self, text: str) -> None:
        self.plan = self.preview = None
        self.show_error(text)
        clear(self.preview_grid)
        self.budget.value = ""
        self.update_buttons()

    def _log(self) -> LogSource | None:
        """The log box's path, else the panel's ``action_log``."""
        return self.log_path.value.strip() or self.action_log

    def _show_cost(self) -> None:
        if self.plan is not None:
            self.show_cost(self.plan, self._log())

    # -- submitting -------------------------------------------------------------------------

    def submit(self) -> None:
        """Start creating the valid rows; invalid rows are reported, never sent."""
        if self.plan is None:
            self._refuse("Load a CSV first.")
            return
        self.run(
            self.plan,
            RESULT_VIEW,
            concurrency=self.concurrency.value,
            log=self._log(),
            then=self._show_cost,
        )
