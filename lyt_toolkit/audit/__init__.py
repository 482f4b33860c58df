"""Program audits: rules over a snapshot that find what is wrong in a loyalty program.

``run(snapshot)`` returns a findings DataFrame (``rule``, ``severity``,
``resource_type``, ``resource_id``, ``resource_name``, ``message``). Every rule
is registered in :data:`RULES` with its id, severity and a one-line description.

On a sampled snapshot the rules that read member records count them in the sample:
``summary`` then estimates each such rule's findings for the program with a 95 % interval,
and ``findings_between`` leaves those rules out.
"""

from ..reports.audit_report import use_summaries
from ..snapshot.diff import use_findings
from . import economics as _economics  # noqa: F401  (the economics rules, after the others)
from . import rules as _rules  # noqa: F401  (importing registers the rules)
from .compare import FINDING_CHANGES, compare_findings, findings_between
from .economics import EFFECTIVE_RETURN_CAP, effective_return_cap
from .registry import RULES, SEVERITIES, Finding, Rule, Severity, catalogue_markdown, rule
from .run import (
    ESTIMATE_COLUMNS,
    FINDING_COLUMNS,
    SAMPLED_COLUMNS,
    estimate_lines,
    findings_frame,
    run,
    summary,
)

# The deprecated SnapshotDiff.findings (removed in 0.5.0, with this registration) compares
# the audits of its two snapshots; findings_between(before, after) needs no registration.
use_findings(findings_between)
use_summaries(summary)  # the deprecated write_reports(snapshot, findings, out) charts it

__all__ = [
    "EFFECTIVE_RETURN_CAP",
    "ESTIMATE_COLUMNS",
    "FINDING_CHANGES",
    "FINDING_COLUMNS",
    "RULES",
    "SAMPLED_COLUMNS",
    "SEVERITIES",
    "Finding",
    "Rule",
    "Severity",
    "catalogue_markdown",
    "compare_findings",
    "effective_return_cap",
    "estimate_lines",
    "findings_between",
    "findings_frame",
    "rule",
    "run",
    "summary",
]
