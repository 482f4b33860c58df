"""``lyt report economics --edited EDITED_DIR --base SNAPSHOT_DIR``: the economics what-if of
an edited export, as a report folder.

The base is read as ``lyt plan`` reads it (``read_snapshot``: CSV or Parquet, checksums
checked) and so is the edited copy (``reports.read_edited_frames``: no checksums, each
cell by its column's type); nothing is pulled and nothing is sent. ``whatif.what_if``
compares the two, and the folder gets the comparison frames as CSV with a manifest, two
before/after charts and ``economics-what-if.html``. Exit 0 when the report is written, 2
when it cannot be (a folder missing, not an export, a cell or row the edit cannot hold,
an unwritable ``--out``), with one line naming the cause. A sampled base keeps its
intervals, the change's paired.

Imported by ``report.economics`` only when ``--edited`` is given: this module loads pandas,
the what-if and the audit at its top.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import LytError
from ..inputs.prices import read_prices
from ..reports.economics_report import sample_note
from ..reports.edited_csv import read_edited_frames
from ..reports.what_if_report import WhatIfFrames, write_what_if_report
from ..snapshot import read_snapshot
from ..whatif import WhatIf, what_if
from ..whatif.show import summary_line
from ._common import EXIT_CANNOT_RUN, EXIT_OK, fail, redemption_rate
from ._pull import PULL_ONLY, output_dir, pulled_only

__all__ = ["WHAT_IF_REFUSES", "what_if_report"]

COMMAND = "lyt report economics"

WHAT_IF_REFUSES = PULL_ONLY | {"history": "--history"}
"""The options of a pulled report that ``--edited`` (a base from a folder) has no use for."""


def what_if_report(args: argparse.Namespace) -> int:
    """Read the base and the edited folder, compare their economics, write and print."""
    problem = _refused_option(args)
    if problem is not None:
        return fail(COMMAND, problem)
    out = output_dir(args.out, COMMAND)
    if out is None:
        return EXIT_CANNOT_RUN
    rate = redemption_rate(args.redemption_rate)
    if isinstance(rate, str) or rate is None:
        return fail(COMMAND, rate or "--redemption-rate history: not with --edited (no history)")
    for option, folder in (("--base", args.base), ("--edited", args.edited)):
        if not Path(folder).expanduser().is_dir():
            return fail(COMMAND, f"{option} {folder}: no such folder")
    try:
        prices = None if args.prices is None else read_prices(Path(args.prices).expanduser())
    except LytError as exc:
        return fail(COMMAND, f"cannot read the prices: {exc}")
    base, edited = Path(args.base).expanduser(), Path(args.edited).expanduser()
    try:
        snapshot, frames = read_snapshot(base), read_edited_frames(edited)
    except (LytError, OSError) as exc:
        return fail(COMMAND, str(exc))
    try:
        what = what_if(snapshot, frames, prices=prices, redemption_rate=rate)
        report = _report(what, base=str(args.base), edited=str(args.edited))
    except (LytError, ValueError) as exc:  # EditError: names the frame, row and column
        return fail(COMMAND, str(exc))
    try:
        files = write_what_if_report(report, out)
    except OSError as exc:
        return fail(COMMAND, f"cannot write the what-if report to {out}: {exc.strerror or exc}")
    print(what)
    print(f"\nWhat-if report written to {out.resolve()}/:")
    for path in files:
        print(f"  {path.name}")
    return EXIT_OK


def _refused_option(args: argparse.Namespace) -> str | None:
    """The line refusing an option ``--edited`` cannot take, or a missing ``--base``."""
    if args.base is None:
        return (
            "--edited needs --base SNAPSHOT_DIR, the export the edited folder is a copy of "
            "(as lyt plan)"
        )
    return pulled_only(args, "--edited", WHAT_IF_REFUSES)


def _report(what: WhatIf, *, base: str, edited: str) -> WhatIfFrames:
    """The report's frames of ``what`` (its edits and findings worked out here)."""
    frames = what.frames()
    return WhatIfFrames(
        **frames,
        source=what.before.source,
        pulled_at=what.before.pulled_at,
        base=base,
        edited=edited,
        summary=summary_line(what),
        sample_note=sample_note(what.before),
        not_given=what.not_given,
    )
