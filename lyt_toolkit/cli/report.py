"""``lyt report economics``: pull a snapshot (or read one saved before, ``--base``) and write
the program's economics report.

The report folder holds every economics frame as CSV with a manifest, the charts as PNG
and ``economics.html``, one page a colleague opens with no Python. As with ``lyt audit``,
the exit code is 0 when the report is written and 2 when it cannot be (no connection,
refused credentials, a pull refused for the call budget, an unreadable prices file or
history, an unwritable folder), with one line naming the cause. With ``--sample N`` the
totals are estimated from the sampled members, and the report and the summary say so.
``--base SNAPSHOT_DIR`` alone reports on a snapshot saved before (``lyt export``, paced with
``--checkpoint`` or not, ``to_csv``, ``to_parquet``) and sends no call, as ``lyt audit
--base`` does (a folder that holds no snapshot, or a pull option given with it, is one line
naming it). With ``--edited EDITED_DIR --base SNAPSHOT_DIR`` it writes the what-if of an
edited export instead (``cli.what_if``): nothing is pulled.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .._collector import start_up
from ._common import EXIT_CANNOT_RUN, EXIT_OK, fail, redemption_rate
from ._pull import output_dir, snapshot_options, snapshot_or_fail

if TYPE_CHECKING:
    import pandas as pd

    from ..snapshot import ProgramSnapshot, SnapshotHistory

__all__ = ["ECONOMICS_DIR", "economics", "write_economics"]

COMMAND = "lyt report economics"

ECONOMICS_DIR = "economics"
"""Where ``lyt demo`` writes the economics report, inside its ``--out``."""


def economics(args: argparse.Namespace) -> int:
    """Pull from the configured service (or the embedded demo), or read the snapshot saved in
    ``--base``, then write the report; with ``--edited``, the what-if of an edited export
    instead (``cli.what_if``)."""
    if getattr(args, "edited", None) is not None:
        from .what_if import what_if_report  # loads the what-if, actions and audit: only here

        return what_if_report(args)
    with start_up():  # see start_up
        from ..errors import LytError
        from ..inputs.prices import read_prices
        from ..snapshot import SnapshotHistory

    try:
        options = snapshot_options(args)
    except ValueError as exc:
        return fail(COMMAND, str(exc))
    out = output_dir(args.out, COMMAND)
    if out is None:
        return EXIT_CANNOT_RUN
    rate = redemption_rate(args.redemption_rate)
    if isinstance(rate, str):
        return fail(COMMAND, rate)
    if rate is None and args.history is None:
        return fail(
            COMMAND, "--redemption-rate history needs --history DIR (two or more snapshots)"
        )
    try:
        prices = None if args.prices is None else read_prices(Path(args.prices).expanduser())
    except LytError as exc:
        return fail(COMMAND, f"cannot read the prices: {exc}")
    history = None
    if args.history is not None:
        folder = Path(args.history).expanduser()
        if not folder.is_dir():
            return fail(COMMAND, f"--history {folder} is not a folder (lyt audit --history)")
        history = SnapshotHistory(folder)
    obtained = snapshot_or_fail(COMMAND, options, sandbox=bool(args.sandbox), base=args.base)
    if obtained is None:
        return EXIT_CANNOT_RUN
    snapshot, source = obtained.snapshot, obtained.source
    print(f"Economics of {source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC")
    print(obtained.calls)
    return write_economics(
        snapshot,
        out,
        COMMAND,
        prices=prices,
        history=history,
        redemption_rate=rate,
        source=source,
    )


def write_economics(
    snapshot: ProgramSnapshot,
    out: Path,
    command: str,
    *,
    prices: pd.DataFrame | None = None,
    history: SnapshotHistory | None = None,
    redemption_rate: float | None = 1.0,
    source: str | None = None,
) -> int:
    """Summarise ``snapshot``'s economics (with ``prices``, the ``history`` and the expected
    ``redemption_rate``, None: estimated from the history), write the report in ``out``
    naming the service as ``source`` (``source_name``), and print its headline figures and
    files."""
    with start_up():  # its modules (matplotlib's): see start_up
        from ..economics import summarise
        from ..errors import LytError
        from ..reports.economics_report import headline_lines, sample_note, write_economics_report

    try:
        summary = summarise(
            snapshot, prices=prices, redemption_rate=redemption_rate, history=history
        )
    except (LytError, OSError, ValueError) as exc:
        return fail(command, f"cannot summarise the economics: {exc}")
    try:
        files = write_economics_report(summary, out, source=source)
    except OSError as exc:
        return fail(command, f"cannot write the economics report to {out}: {exc.strerror or exc}")
    lines = headline_lines(summary.headline, summary.not_given)
    width = max((len(label) for label, _ in lines), default=0)
    print("\nProgram economics (amounts in minor units):")
    print(f"  redemption rate: {summary.redemption_method}")
    if (note := sample_note(summary)) is not None:
        print(f"  totals {note}")
    for label, figure in lines:
        print(f"  {label:<{width}}  {figure}")
    print(f"\nEconomics report written to {out.resolve()}/:")
    for path in files:
        print(f"  {path.name}")
    return EXIT_OK
