"""BulkBenefitImport: upload or path, preview with row errors, submit, results, download."""

from __future__ import annotations

import base64
import datetime as dt
import re
from pathlib import Path

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.widgets import BulkBenefitImport

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "benefits_import_example.csv"


def _imported(client: LoyaltyClient) -> list[str]:
    return [
        b.name
        for b in client.benefits.iter(filters={"name": {"$starts_with": "Import: "}}, limit=100)
    ]


def _upload(widget: BulkBenefitImport, content: bytes) -> None:
    widget.upload.value = (
        {
            "name": "benefits.csv",
            "type": "text/csv",
            "size": len(content),
            "content": memoryview(content),
            "last_modified": dt.datetime(2026, 1, 15, tzinfo=dt.UTC),
        },
    )


def test_upload_preview_submit_results_and_download(client: LoyaltyClient) -> None:
    widget = BulkBenefitImport(client)
    assert widget.submit_button.disabled
    _upload(widget, EXAMPLE.read_bytes())
    assert "19 rows, 11 valid, 8 with errors" in widget.status.value
    assert "points_value is required for a POINTS benefit" in widget.preview_html.value
    assert "stock_quantity" in widget.preview_html.value
    assert not widget.submit_button.disabled

    widget.submit_button.click()
    assert sorted(_imported(client)) == sorted(
        [
            "Import: Spring Welcome 150 Beans",
            "Import: Gold Stars Top-up",
            "Import: Free Pastry Friday",
            "Import: Black Mug Giveaway",
            "Import: $15 Gift Card",
            "Import: 20% Off Coupon",
        ]
    )
    assert "succeeded: 6" in widget.status.value and "invalid: 8" in widget.status.value
    assert "duplicate_found" in widget.results_html.value
    assert "resource_locked" in widget.results_html.value
    assert widget.progress.value == widget.progress.max == 19
    link = re.search(r'href="data:text/csv;base64,([^"]+)"', widget.download.value)
    assert link is not None
    csv_text = base64.b64decode(link.group(1)).decode()
    assert csv_text.splitlines()[0].startswith("item,row,target")
    assert "Import: Spring Welcome 150 Beans" in csv_text


def test_path_with_log_resumes_without_repeating(client: LoyaltyClient, tmp_path: Path) -> None:
    widget = BulkBenefitImport(client)
    widget.path_input.value = str(EXAMPLE)
    widget.log_path.value = str(tmp_path / "import.jsonl")
    widget.load_button.click()
    widget.submit_button.click()
    widget.load_button.click()
    assert widget.preview_html.value.count("skip (already done)") == 6
    widget.submit_button.click()
    assert "skipped_already_done: 6" in widget.status.value
    assert len(_imported(client)) == 6


def test_bad_file_is_reported(client: LoyaltyClient, tmp_path: Path) -> None:
    widget = BulkBenefitImport(client)
    widget.path_input.value = str(tmp_path / "missing.csv")
    widget.load_button.click()
    assert "Could not read" in widget.status.value and widget.submit_button.disabled
    _upload(widget, b"name,kind\nA,POINTS\n")
    widget.path_input.value = ""
    widget.load_button.click()
    assert "unknown column(s) kind" in widget.status.value
