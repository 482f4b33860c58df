"""``BulkBenefitImport``: a CSV of benefits, previewed row by row, then created."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from .. import actions
from ._common import RESULT_VIEW, PlanPanel, describe_error, download_link, table_html

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["BulkBenefitImport"]

PREVIEW_VIEW = ("row", "target", "type", "benefit_status", "will", "error", "field")


class BulkBenefitImport(PlanPanel):
    """Upload a benefit CSV (or give its path), check every row, create the valid ones.

    The format is the flat one of ``data/benefits_import_example.csv``. With a
    log path, a re-submit after an interruption skips what was already created.
    """

    def __init__(self, client: LoyaltyClient, *, concurrency: int = 8) -> None:
        super().__init__(client, progress_label="Creating")
        self.upload = w.FileUpload(accept=".csv", multiple=False, description="Upload CSV")
        self.path_input = w.Text(placeholder="or a path, e.g. data/benefits_import_example.csv")
        self.load_button = w.Button(description="Load")
        self.preview_html = w.HTML()
        self.concurrency = w.BoundedIntText(
            value=concurrency, min=1, max=32, description="Parallel"
        )
        self.log_path = w.Text(placeholder="optional action log (JSON lines) to resume a batch")
        self.submit_button = w.Button(
            description="Create valid rows", button_style="primary", disabled=True
        )
        self.download = w.HTML()
        self.plan: actions.CreateBenefits | None = None

        self.upload.observe(lambda _: self._load_upload(), names="value")
        self.load_button.on_click(lambda _: self.load())
        self.submit_button.on_click(lambda _: self.submit())
        self.children = [
            w.HBox([self.upload, self.path_input, self.load_button]),
            self.status,
            self.preview_html,
            w.HBox([self.concurrency, self.log_path]),
            self.submit_button,
            self.progress,
            self.results_html,
            self.download,
        ]

    # -- loading ----------------------------------------------------------------------------

    def _load_upload(self) -> None:
        if self.upload.value:
            self.load()

    def _source(self) -> tuple[Any, str] | None:
        path = self.path_input.value.strip()
        if path:
            return path, os.path.basename(path)
        if self.upload.value:
            uploaded = self.upload.value[0]  # ipywidgets 8: a tuple of dicts
            return bytes(uploaded["content"]), str(uploaded.get("name", "upload.csv"))
        return None

    def load(self) -> None:
        """Read the CSV and show the preview; nothing is sent."""
        self.results_html.value = self.download.value = ""
        self.results = None
        source = self._source()
        if source is None:
            self._refuse("Choose a CSV file or type its path.")
            return
        content, label = source
        try:
            imported = actions.benefits_from_csv(content)
        except (OSError, ValueError) as exc:
            self._refuse(f"Could not read {label}: {describe_error(exc)}")
            return
        self.plan = actions.create_benefits(imported)
        preview = self.plan.preview(log=self.log_path.value.strip() or None)
        valid = int(preview["valid"].sum())
        invalid = len(preview) - valid
        counts = f"{label}: {len(preview)} rows, {valid} valid, {invalid} with errors"
        if invalid:
            self.show_error(counts)
        else:
            self.show_ok(counts)
        self.preview_html.value = table_html(preview, PREVIEW_VIEW)
        self.submit_button.disabled = valid == 0

    def _refuse(self, text: str) -> None:
        self.plan = None
        self.show_error(text)
        self.preview_html.value = ""
        self.submit_button.disabled = True

    # -- submitting -------------------------------------------------------------------------

    def submit(self) -> None:
        """Create the valid rows; invalid rows are reported, never sent."""
        if self.plan is None:
            self._refuse("Load a CSV first.")
            return
        results = self.run(
            self.plan,
            RESULT_VIEW,
            button=self.submit_button,
            concurrency=self.concurrency.value,
            log=self.log_path.value.strip() or None,
        )
        self.download.value = download_link(results, "benefit_import_results.csv")
