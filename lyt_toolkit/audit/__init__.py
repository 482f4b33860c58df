"""Program audits: rules over a snapshot that find what is wrong in a loyalty program.

``run(snapshot)`` returns a findings DataFrame (``rule``, ``severity``,
``resource_type``, ``resource_id``, ``resource_name``, ``message``). Every rule
is registered in :data:`RULES` with its id, severity and a one-line description.
"""

from . import rules as _rules  # noqa: F401  (importing registers the rules)
from .registry import RULES, SEVERITIES, Finding, Rule, Severity, catalogue_markdown, rule
from .run import FINDING_COLUMNS, findings_frame, run, summary

__all__ = [
    "FINDING_COLUMNS",
    "RULES",
    "SEVERITIES",
    "Finding",
    "Rule",
    "Severity",
    "catalogue_markdown",
    "findings_frame",
    "rule",
    "run",
    "summary",
]
