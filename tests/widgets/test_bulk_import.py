"""BulkBenefitImport: upload or path, preview with row errors, submit, results, download."""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from pathlib import Path

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.widgets import BulkBenefitImport

from .helpers import shown

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
    assert "\u26a0" in widget.status.value  # some rows are invalid: a warning, not a success
    preview = shown(widget.preview_grid)
    assert len(preview) == 19 and list(preview.columns)[:3] == ["row", "target", "type"]
    assert "points_value is required for a POINTS benefit" in set(preview["error"])
    assert "stock_quantity" in set(preview["field"])
    assert "calls needed: 12" in widget.budget.value  # 11 rows and the first token
    assert not widget.submit_button.disabled

    widget.submit_button.click()
    widget.wait()
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
    assert {"duplicate_found", "resource_locked"} <= set(shown(widget.results_grid)["error_key"])
    assert widget.progress.value == widget.progress.max == 19
    assert 'role="button"' in widget.download.value and "Download CSV" in widget.download.value
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
    widget.wait()
    widget.load_button.click()
    assert list(shown(widget.preview_grid)["will"]).count("skip (already done)") == 6
    widget.submit_button.click()
    widget.wait()
    assert "skipped_already_done: 6" in widget.status.value
    assert len(_imported(client)) == 6


def test_bad_file_is_reported(client: LoyaltyClient, tmp_path: Path) -> None:
    widget = BulkBenefitImport(client)
    widget.path_input.value = str(tmp_path / "missing.csv")
    widget.load_button.click()
    assert "Could not read" in widget.status.value and widget.submit_button.disabled
    widget.path_input.value = ""
    _upload(widget, b"name,kind\nA,POINTS\n")
    assert "unknown column(s) 'kind'" in html.unescape(widget.status.value)


def test_an_upload_and_a_path_together_are_refused(client: LoyaltyClient) -> None:
    widget = BulkBenefitImport(client)
    widget.path_input.value = str(EXAMPLE)
    _upload(widget, b"name,type,status,points_value,card_definition_id\n")
    assert "Both an uploaded file (benefits.csv) and a path" in widget.status.value
    assert widget.submit_button.disabled and widget.plan is None
    widget.path_input.value = ""  # clearing one of them settles it: the upload is read
    widget.load_button.click()
    assert "benefits.csv: 0 rows" in widget.status.value


def test_an_unreadable_action_log_is_reported(client: LoyaltyClient, tmp_path: Path) -> None:
    widget = BulkBenefitImport(client)
    widget.path_input.value = str(EXAMPLE)
    widget.log_path.value = str(tmp_path)  # a folder, not a log file
    widget.load_button.click()
    assert "Could not read the action log" in widget.status.value
    assert widget.submit_button.disabled
    widget.log_path.value = ""
    widget.load_button.click()
    widget.log_path.value = str(tmp_path)  # changed after the preview
    widget.submit_button.click()
    assert "Could not read the action log" in widget.status.value and not widget.busy
    assert _imported(client) == []
