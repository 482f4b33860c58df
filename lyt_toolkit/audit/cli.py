"""``lyt audit`` and ``lyt demo``: pull a snapshot, audit it, write the reports, print a summary.

Findings are data, not failures: the exit code is 0 whenever the audit ran,
whatever it found, and non-zero only when it could not run (no connection,
refused credentials, unwritable output directory). Those failures print one
line naming the cause, never a traceback and never a credential.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import APIConnectionError, APIError, ConfigurationError, LytError

FINDINGS_CSV = "audit_findings.csv"
FINDINGS_PNG = "audit_findings.png"
_SECRET_VARS = ("LYT_APP_TOKEN", "LYT_MANAGEMENT_TOKEN")

MAX_ERRORS_SHOWN = 10

EXIT_OK = 0
EXIT_CANNOT_RUN = 2


def demo(args: argparse.Namespace) -> int:
    """``lyt demo``: the audit of the bundled demo program on the embedded sandbox."""
    print("lyt demo: auditing the Northwind Coffee Rewards demo program on the embedded sandbox")
    print("(a local copy of the service on loopback; nothing leaves this machine)\n")
    return _audit(Path(args.out), sandbox=True, command="lyt demo")


def audit(args: argparse.Namespace) -> int:
    """``lyt audit``: the audit of the configured service, or of the demo with ``--sandbox``."""
    if getattr(args, "rules", False):
        print(format_catalogue())
        return EXIT_OK
    sandbox = bool(getattr(args, "sandbox", False))
    return _audit(Path(args.out), sandbox=sandbox, command="lyt audit")


def _audit(out: Path, *, sandbox: bool, command: str) -> int:
    from . import run  # the rules and pandas load only when an audit runs

    try:
        with _client(sandbox) as client:
            snapshot = _pull(client)
    except LytError as exc:
        return _fail(command, _explain(exc))
    except Exception as exc:  # a malformed answer, a bug: still one line, never a traceback
        reason = f"the snapshot could not be pulled: {type(exc).__name__}: {exc}"
        return _fail(command, _scrub(" ".join(reason.split())))
    findings = run(snapshot)
    try:
        files = write_reports(snapshot, findings, out)
    except OSError as exc:
        return _fail(command, f"cannot write the reports to {out}: {exc.strerror or exc}")
    print(format_summary(snapshot, findings))
    print(f"\nReports written to {out.resolve()}/:")
    for path in files:
        print(f"  {path.name}")
    return EXIT_OK


@contextmanager
def _client(sandbox: bool) -> Iterator[Any]:
    """A connected client: to the embedded demo sandbox, or to the configured service."""
    from ..client import LoyaltyClient

    if not sandbox:
        with LoyaltyClient() as client:
            yield client
        return
    from ..sandbox import Sandbox

    # No clock is forced: the demo file brings its own (2026-01-15T12:00Z) and every date in it
    # is relative to the clock at load, so the findings are the same on any day.
    with (
        Sandbox.start(seed=7) as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
    ):
        yield client


def _pull(client: Any) -> Any:
    from ..frames import ProgramSnapshot

    return ProgramSnapshot.pull(client, progress=sys.stderr.isatty())


def write_reports(snapshot: Any, findings: pd.DataFrame, out: Path) -> list[Path]:
    """Snapshot CSVs and manifest, the findings CSV and the findings chart, in ``out``."""
    from .chart import save_chart

    out.mkdir(parents=True, exist_ok=True)
    written = [Path(p) for p in snapshot.to_csv(out)]
    findings.to_csv(out / FINDINGS_CSV, index=False)
    save_chart(findings, out / FINDINGS_PNG)
    return sorted({*written, out / FINDINGS_CSV, out / FINDINGS_PNG})


def format_summary(snapshot: Any, findings: pd.DataFrame) -> str:
    """The printed summary: where the data came from, counts per rule and severity."""
    from .run import summary

    counts = summary(findings)
    source = snapshot.source or "the service"
    lines = [
        f"Audit of {source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC",
        f"{int(counts.loc['total', 'total'])} findings from {len(counts) - 1} rules "
        f"({int(counts.loc['total', 'error'])} errors, "
        f"{int(counts.loc['total', 'warning'])} warnings, "
        f"{int(counts.loc['total', 'info'])} info)",
        "",
        counts.to_string(),
    ]
    errors = findings[findings["severity"] == "error"]
    if len(errors):
        lines += ["", "Errors to fix first:"]
        shown = errors.head(MAX_ERRORS_SHOWN)
        lines += [f"  {_label(f)}: {f.message}  [{f.rule}]" for f in shown.itertuples()]
        if len(errors) > len(shown):
            lines.append(f"  ... and {len(errors) - len(shown)} more in {FINDINGS_CSV}")
    return "\n".join(lines)


def _label(finding: Any) -> str:
    name = finding.resource_name
    return finding.resource_id if pd.isna(name) else f"{finding.resource_id} ({name})"


def format_catalogue() -> str:
    """Every registered rule: id, severity and what it checks, one per line."""
    from .registry import RULES

    width = max(len(r.id) for r in RULES.values())
    return "\n".join(
        f"{r.id:<{width}}  {r.severity.value:<7}  {r.description}" for r in RULES.values()
    )


def _explain(exc: LytError) -> str:
    """One line saying why the audit could not run, with any credential scrubbed."""
    if isinstance(exc, APIConnectionError):
        text = f"cannot reach the service: {exc}"
    elif isinstance(exc, APIError) and exc.status == 401:
        text = "the service refused the credentials (401); check LYT_APP_ID and LYT_APP_TOKEN"
    elif isinstance(exc, ConfigurationError):
        text = f"the client is not configured: {exc}"
    else:
        text = f"the snapshot could not be pulled: {exc}"
    return _scrub(" ".join(text.split()))


def _scrub(text: str) -> str:
    """``text`` with any configured token replaced by ``***`` (defence in depth)."""
    from dotenv import dotenv_values

    env_file = dotenv_values(".env") if Path(".env").is_file() else {}
    for var in _SECRET_VARS:
        for secret in (os.environ.get(var), env_file.get(var)):
            if secret and len(secret) >= 4:
                text = text.replace(secret, "***")
    return text


def _fail(command: str, reason: str) -> int:
    print(f"{command}: {reason}", file=sys.stderr)
    return EXIT_CANNOT_RUN
