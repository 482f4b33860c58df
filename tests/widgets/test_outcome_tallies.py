"""An execution's outcomes counted for the eye: the widgets' results summary and ``lyt
rehearse``'s line write their counts as the toolkit's other texts do, with separators from
1,000 up (they read ``succeeded: 1200`` and ``1200 succeeded``)."""

from __future__ import annotations

import pandas as pd

from lyt_toolkit.cli.rehearse import outcome_line
from lyt_toolkit.widgets._results import outcome_summary

RESULTS = pd.DataFrame({"outcome": ["succeeded"] * 1200 + ["failed"] * 3})
"""What matters of 1,203 items' results: their outcomes."""


def test_the_widgets_results_summary_groups_its_counts() -> None:
    assert outcome_summary(RESULTS) == "succeeded: 1,200, failed: 3"


def test_lyt_rehearse_s_outcome_line_groups_its_counts() -> None:
    assert outcome_line("Rehearsed", RESULTS) == "Rehearsed: 1,200 succeeded, 3 failed"
    assert outcome_line("Rehearsed", RESULTS.iloc[:0]) == "Rehearsed: nothing to do"
