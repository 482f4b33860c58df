"""``lyt audit`` and ``lyt demo``: pull a snapshot, audit it, write the reports, print a summary.

``lyt audit --checkpoint DIR`` paces its pull across budget windows and can be resumed, as
``lyt export --checkpoint`` does; ``lyt audit --base SNAPSHOT_DIR`` audits a snapshot saved
before (``lyt export``, ``to_csv``, ``to_parquet``) and sends no call.

Findings are data, not failures: the exit code is 0 whenever the audit ran,
whatever it found, and non-zero only when it could not run (no connection,
refused credentials, unwritable output directory, a pull refused for the call
budget, a ``--base`` folder that holds no snapshot). Those failures print one line
naming the cause (a refused pull adds its ways forward), never a traceback and never a
credential. With ``--sample N`` the member-level rules see the sampled members' cards and
buckets only; the summary gives their counts in the sample and the program's estimates.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._collector import start_up
from .._text import figure
from ._common import EXIT_CANNOT_RUN, EXIT_OK, fail
from ._pull import (
    DEFAULT_PULL,
    PullOptions,
    output_dir,
    pull_options,
    pull_or_fail,
    sample_line,
    snapshot_options,
    snapshot_or_fail,
)
from .report import ECONOMICS_DIR, write_economics

if TYPE_CHECKING:
    import pandas as pd

    from ..snapshot import ProgramSnapshot

__all__ = ["audit", "demo", "format_catalogue", "format_summary", "pull_or_fail"]

MAX_ERRORS_SHOWN = 10

FULL_PULLS_ONLY = (
    "a history stores full pulls only (its views and diffs read each snapshot's cards and"
    " pending buckets as the whole program's); nothing was pulled, audited or stored"
)
"""Why ``--history`` refuses a sample."""


def demo(args: argparse.Namespace) -> int:
    """``lyt demo``: the audit of the bundled demo program on the embedded sandbox."""
    try:
        options = pull_options(args)
    except ValueError as exc:
        return fail("lyt demo", str(exc))
    print("lyt demo: auditing the Northwind Coffee Rewards demo program on the embedded sandbox")
    print("(a local copy of the service on loopback; nothing leaves this machine)\n")
    return _audit(args.out, sandbox=True, command="lyt demo", economics=True, options=options)


def audit(args: argparse.Namespace) -> int:
    """``lyt audit``: the audit of the configured service, of the demo with ``--sandbox``, or
    of the snapshot saved in ``--base``."""
    if getattr(args, "rules", False):
        print(format_catalogue())
        return EXIT_OK
    sandbox = bool(getattr(args, "sandbox", False))
    history, base = getattr(args, "history", None), getattr(args, "base", None)
    try:
        options = snapshot_options(args)
    except ValueError as exc:
        return fail("lyt audit", str(exc))
    kept = None if history is None else Path(history).expanduser()
    if kept is not None and kept.exists() and not kept.is_dir():  # refused before any call
        return fail("lyt audit", f"--history {history} is not a folder")
    if history is not None and options.sample is not None:  # refused before any call
        return fail(
            "lyt audit",
            f"--history: not with --sample: {FULL_PULLS_ONLY}; drop one of them (on a large"
            " program, pull in full paced across windows with --checkpoint DIR)",
        )
    return _audit(
        args.out,
        sandbox=sandbox,
        command="lyt audit",
        history=history,
        options=options,
        base=base,
    )


def _audit(
    out_text: str,
    *,
    sandbox: bool,
    command: str,
    history: str | None = None,
    economics: bool = False,
    options: PullOptions = DEFAULT_PULL,
    base: str | None = None,
) -> int:
    """Pull as ``options`` say (or read the snapshot saved in the ``base`` folder), audit,
    write the reports (and with ``economics`` the economics report in ``out/economics``),
    print the summary."""
    with start_up():  # see start_up
        from ..audit import run, summary  # the rules and pandas load only when an audit runs
        from ..reports import write_reports

    out = output_dir(out_text, command)
    if out is None:
        return EXIT_CANNOT_RUN

    obtained = snapshot_or_fail(command, options, sandbox=sandbox, base=base)
    if obtained is None:
        return EXIT_CANNOT_RUN
    snapshot, source = obtained.snapshot, obtained.source
    if base is not None and history is not None and snapshot.sample is not None:
        return fail(
            command,
            f"--history: the snapshot in {base} is a {snapshot.sample}: {FULL_PULLS_ONLY};"
            " audit it without --history",
        )
    findings = run(snapshot)
    counts = summary(findings)
    try:
        files = write_reports(snapshot, findings, counts, out)
    except OSError as exc:
        return fail(command, f"cannot write the reports to {out}: {exc.strerror or exc}")
    print(format_summary(snapshot, findings, counts, source))
    print(obtained.calls)
    if (note := sample_line(snapshot)) is not None:
        print(f"\n{note}")
    print(f"\nReports written to {out.resolve()}/:")
    for path in files:
        print(f"  {path.name}")
    if economics:
        code = write_economics(snapshot, out / ECONOMICS_DIR, command, source=source)
        if code != EXIT_OK:
            return code
    if history is not None:
        return _keep(snapshot, history, command)
    return EXIT_OK


def _keep(snapshot: ProgramSnapshot, folder: str, command: str) -> int:
    """Store ``snapshot`` in the history ``folder`` and print what changed since the last one."""
    from ..reports import SnapshotFileError
    from ..snapshot import SnapshotHistory
    from .diff import format_diff

    history = SnapshotHistory(folder)
    try:
        previous = history.latest()
    except (SnapshotFileError, OSError) as exc:
        return fail(command, f"cannot read the history in {folder}: {exc}")
    try:
        history.append(snapshot)
    except SnapshotFileError as exc:
        print(f"\n{command}: {exc}; this snapshot was not stored again", file=sys.stderr)
    except OSError as exc:
        return fail(command, f"cannot store the snapshot in {folder}: {exc.strerror or exc}")
    else:
        print(f"\nSnapshot stored in the history {history.path.resolve()}/")
    if previous is None:
        print("It is the first one there: nothing to compare with yet.")
        return EXIT_OK
    print()
    print(format_diff(previous.diff(snapshot)))
    return EXIT_OK


def format_summary(
    snapshot: ProgramSnapshot,
    findings: pd.DataFrame,
    counts: pd.DataFrame,
    source: str | None = None,
) -> str:
    """The printed summary: where the data came from (``source``, as ``source_name`` words
    it; else the snapshot's address), ``counts`` per rule and severity (a sample's
    estimates and intervals rounded to whole findings, ``whole_estimates``).

    ``counts`` is ``lyt_toolkit.audit.summary(findings)``.
    """
    from ..audit.run import LEFT_OUT_ATTR
    from ..reports import FINDINGS_CSV
    from ..reports.audit_report import whole_estimates

    total = {str(column): int(n) for column, n in counts.iloc[-1].items()}
    source = source or snapshot.source or "the service"
    left_out = list(findings.attrs.get(LEFT_OUT_ATTR, ()))
    lines = [
        f"Audit of {source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC",
        f"{figure(total['total'])} findings from {len(counts) - 1 - len(left_out)} rules "
        f"({figure(total['error'])} errors, {figure(total['warning'])} warnings,"
        f" {figure(total['info'])} info)",
        *_not_pulled(snapshot, left_out),
        "",
        whole_estimates(counts).to_string(),  # a sample's estimates: whole findings
    ]
    if snapshot.sample is not None:
        from ..audit import estimate_lines

        lines += ["", f"The snapshot is a {snapshot.sample}: per-member rules were counted in it"]
        lines += [f"  {line}" for line in estimate_lines(counts, snapshot.sample)]
    errors = findings[findings["severity"] == "error"]
    if len(errors):
        lines += ["", "Errors to fix first:"]
        shown = errors.head(MAX_ERRORS_SHOWN)
        lines += [f"  {_label(f)}: {f['message']}  [{f['rule']}]" for f in _records(shown)]
        if len(errors) > len(shown):
            lines.append(f"  ... and {figure(len(errors) - len(shown))} more in {FINDINGS_CSV}")
    return "\n".join(lines)


def _not_pulled(snapshot: ProgramSnapshot, left_out: list[str]) -> list[str]:
    """The line saying which kinds a snapshot pulled with ``kinds=`` (``--kinds``) lacks:
    no rule read them, so no finding about them is no news; and the rules left out."""
    from ..frames.registry import FRAME_NAMES

    missing = [kind for kind in FRAME_NAMES if kind not in snapshot.kinds]
    if not missing:
        return []
    line = (
        f"Not pulled (--kinds): {', '.join(missing)}; no rule read them, so finding nothing "
        "there says nothing of them"
    )
    return [line + (f"; left out, needing them: {', '.join(left_out)}" if left_out else "")]


def _records(findings: pd.DataFrame) -> list[dict[str, object]]:
    """Findings as dicts, a missing value as None."""
    return [
        {str(k): v for k, v in row.items()}
        for row in findings.astype(object).where(findings.notna(), None).to_dict("records")
    ]


def _label(finding: dict[str, object]) -> str:
    name = finding["resource_name"]
    return f"{finding['resource_id']}" if name is None else f"{finding['resource_id']} ({name})"


def format_catalogue() -> str:
    """Every registered rule: id, severity and what it checks, one per line."""
    from ..audit import RULES

    width = max(len(r.id) for r in RULES.values())
    return "\n".join(
        f"{r.id:<{width}}  {r.severity.value:<7}  {r.description}" for r in RULES.values()
    )
