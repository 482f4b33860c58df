"""The ``lyt`` command: audit, report, export, diff, drift, plan, rehearse, apply, verify, sandbox.

Each subcommand's work lives in the package it belongs to; this module only
parses arguments and dispatches, importing lazily so ``lyt --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from .._collector import collector_paused, freeze_start_up, start_up
from .._progress import plain_lines
from .._version import __version__
from ._common import EXIT_INTERRUPTED, EXIT_TERMINATED, fail, interrupted
from ._sigterm import Sigterm, sigterm_as_ctrl_c

__all__ = ["build_parser", "main"]


def _dispatch(target: str, *, bulk: bool = False) -> Callable[[argparse.Namespace], int]:
    """Return a handler that imports ``module:function`` only when it runs.

    The module is imported without the cycle collector (start-up, see ``start_up``);
    ``bulk``: the call too is bulk work, without it (the function may turn it on again; it
    is as it was once the call returns)."""

    def run(args: argparse.Namespace) -> int:
        module, func = target.split(":")
        with start_up():  # see start_up
            handler = getattr(importlib.import_module(module), func)
        with collector_paused() if bulk else nullcontext():
            return int(handler(args) or 0)

    return run


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    target: str,
    help: str,
    bulk: bool = False,
) -> argparse.ArgumentParser:
    """The subcommand run by ``lyt_toolkit.cli.<target>`` (``module:function``, imported
    when it runs, see ``_dispatch``), named as its function."""
    parser = sub.add_parser(target.split(":")[1], help=help)
    parser.set_defaults(handler=_dispatch(f"lyt_toolkit.cli.{target}", bulk=bulk))
    return parser


def _pull_options(
    parser: argparse.ArgumentParser,
    *,
    sandbox: bool = True,
    sample: bool = False,
    checkpoint: bool = False,
) -> None:
    """The options of the commands that pull: with ``sandbox``, ``--sandbox`` (pull from the
    embedded demo sandbox, not the configured service); ``--budget-share``; with ``sample``,
    ``--sample`` and ``--sample-seed``; with ``checkpoint``, ``--checkpoint`` (a paced,
    resumable pull). Read as text and checked by the command (``_pull.pull_options``), so a
    bad value is one line naming the option."""
    if sandbox:
        parser.add_argument("--sandbox", action="store_true", help="use the embedded demo sandbox")
    parser.add_argument(
        "--budget-share",
        default=None,
        metavar="SHARE",
        help="share of the calls left in the budget window the pull may use, above 0 and at "
        "most 1 (default 0.5: the rest stays for the project's other traffic; 1 takes it all)",
    )
    if sample:
        parser.add_argument(
            "--sample",
            default=None,
            metavar="N",
            help="read only a stratified random sample of N members, their cards and buckets "
            "(about a call each, not one for every member of the program): program totals are "
            "then estimated, with 95 %% intervals",
        )
        parser.add_argument(
            "--sample-seed",
            default=None,
            metavar="SEED",
            help="seed of the --sample draw (default 0): the same seed and members give the "
            "same sample",
        )
    if checkpoint:
        parser.add_argument(
            "--checkpoint",
            default=None,
            metavar="DIR",
            help="pace the pull and make it resumable: keep to --budget-share of every budget "
            "window, waiting across resets, and keep every answer in DIR as it arrives; run the "
            "same command again after an interruption and it goes on where it stopped",
        )


def _estimate_options(parser: argparse.ArgumentParser) -> None:
    """``--estimate`` and ``--read-sample N``: count the calls of the pull the command's other
    options ask for instead of pulling (``cli._estimate``), reading N members to project its
    bucket lists."""
    parser.add_argument(
        "--estimate",
        action="store_true",
        help="count the calls the pull these options ask for would make and print them, with "
        "the calls counting them took and the budget left, within --budget-share: the lists "
        "are walked (one call a page of 100), nothing is pulled or written (--out may be left "
        "out); not with --sample, --checkpoint or --since",
    )
    parser.add_argument(
        "--read-sample",
        default=None,
        metavar="N",
        help="with --estimate: also read N members drawn at random (one call each) and project "
        "the bucket lists from their cards: the calls expected, with a 95 %% interval",
    )


def _base_option(parser: argparse.ArgumentParser, text: str, *, required: bool = False) -> None:
    """``--base SNAPSHOT_DIR``: a snapshot folder saved before (``lyt export``, ``to_csv``,
    ``to_parquet``), read with no call; ``text`` says what the command does with it."""
    parser.add_argument("--base", required=required, metavar="SNAPSHOT_DIR", help=text)


def _plan_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    target: str,
    help: str,
    *,
    plan: str,
    base: str,
) -> argparse.ArgumentParser:
    """A command of a saved plan rehearsed on its snapshot (``rehearse``, ``verify``): its
    ``PLAN_FILE`` and ``--base SNAPSHOT_DIR``, each ``help`` saying what the command takes."""
    parser = _command(sub, target, help)
    parser.add_argument("plan", metavar="PLAN_FILE", help=plan)
    _base_option(parser, base, required=True)
    return parser


def _changes_out_option(parser: argparse.ArgumentParser) -> None:
    """``--out FILE`` of the commands that print changes: every change as CSV."""
    parser.add_argument("--out", default=None, metavar="FILE", help="write every change as CSV")


def build_parser() -> argparse.ArgumentParser:
    """The ``lyt`` parser; each command names its handler as ``module:function``, imported late."""
    parser = argparse.ArgumentParser(prog="lyt", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--version", action="version", version=f"lyt {__version__}", help="print lyt's version"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = _command(
        sub,
        "audit:demo",
        "audit the demo program on the embedded sandbox, write its economics report",
    )
    demo.add_argument("--out", default="reports", help="directory for the reports")
    _pull_options(demo, sandbox=False)

    audit = _command(sub, "audit:audit", "pull a snapshot, audit it and write reports")
    audit.add_argument("--out", default="reports", help="directory for the reports")
    _pull_options(audit, sample=True, checkpoint=True)
    _base_option(
        audit,
        "audit the snapshot saved in SNAPSHOT_DIR (lyt export, to_csv or to_parquet: CSV or "
        "Parquet) instead of pulling one: no call is sent",
    )
    audit.add_argument("--rules", action="store_true", help="print the audit rules and exit")
    audit.add_argument(
        "--history",
        default=None,
        metavar="DIR",
        help="store the snapshot in this history folder and print what changed since the last"
        " (a full pull only: not with --sample)",
    )

    export = _command(sub, "export:export", "pull a snapshot and write it as CSV")
    export.add_argument(
        "--out", default=None, help="directory for the CSV files (not needed with --estimate)"
    )
    _pull_options(export, sample=True, checkpoint=True)
    export.add_argument(
        "--kinds",
        default=None,
        metavar="KIND,...",
        help="pull only these frames, comma-separated (rewards, reward_costs, benefits, "
        "card_definitions, tier_structures, programs, members, cards, pending_buckets; default "
        "every one): without cards and pending_buckets no member is read, so definitions alone "
        "take a few list calls; the others are written empty and read back as not pulled",
    )
    export.add_argument(
        "--since",
        default=None,
        metavar="DIR",
        help="refresh the snapshot exported in DIR by what is new instead of pulling it all: "
        "each choice's calls are printed first",
    )
    export.add_argument(
        "--members",
        default=None,
        choices=("all", "new", "none"),
        help="with --since: the members read for their cards (default new; --sample N reads a "
        "sample of old and new, of a sampled DIR drawn as its own: its strata, join bands, "
        "allocation and, without --sample-seed, seed)",
    )
    _estimate_options(export)

    diff = _command(sub, "diff:diff", "print what changed between two exported snapshots")
    diff.add_argument("old", metavar="OLD_DIR", help="the earlier snapshot folder (CSV or Parquet)")
    diff.add_argument("new", metavar="NEW_DIR", help="the later snapshot folder (CSV or Parquet)")
    _changes_out_option(diff)

    drift = _command(
        sub,
        "drift:drift",
        "print what changed in the live program since a snapshot "
        "(exit 0: no drift, 2: drift, 1: error)",
    )
    drift.add_argument("snapshot", metavar="SNAPSHOT_DIR", help="an exported snapshot folder")
    _pull_options(drift)
    _changes_out_option(drift)

    plan = _command(
        sub,
        "plan:plan",
        "print the changes an edited export folder makes to its base snapshot, over 60 cut to "
        "the first and last 5 (exit 0: no changes, 2: changes, 1: error)",
    )
    _base_option(plan, "the exported snapshot", required=True)
    plan.add_argument(
        "--edited",
        required=True,
        metavar="EDITED_DIR",
        help="a copy of an export folder, edited in a spreadsheet and saved as CSV",
    )
    plan.add_argument(
        "--out",
        default=None,
        metavar="PLAN_FILE",
        help="save the plan for lyt apply: every change, where a long plan's printout is cut",
    )
    plan.add_argument(
        "--offline",
        action="store_true",
        help="send nothing: leave the live budget out of the summary",
    )

    apply = _command(
        sub,
        "apply:apply",
        "apply a saved plan file to the configured service (exit 0: applied, 1: not)",
    )
    apply.add_argument("plan", metavar="PLAN_FILE", help="a plan written by plan.save(path)")
    apply.add_argument("--allow-destroy", action="store_true", help="let the plan delete")
    apply.add_argument(
        "--ignore-unsupported",
        action="store_true",
        help="apply the changes the service can make, leaving out those it cannot",
    )
    apply.add_argument(
        "--refresh", action="store_true", help="plan again against the live state if stale"
    )
    apply.add_argument(
        "--sha256",
        default=None,
        metavar="HEX",
        help="apply only if the plan file's sha256 is HEX (all 64 hex digits: the file "
        "reviewed, as lyt plan --out prints it); without it the file is trusted as it now reads",
    )
    apply.add_argument(
        "--log", default=None, metavar="FILE", help="action log (default: PLAN_FILE.log.jsonl)"
    )
    apply.add_argument(
        "--budget-share",
        default=None,
        metavar="SHARE",
        help="share of the calls left in the budget window the apply (its re-read and writes) "
        "may use, above 0 and at most 1 (default 0.5: the rest stays for the project's other "
        "traffic; 1 takes it all)",
    )
    apply.add_argument(
        "--paced",
        action="store_true",
        help="keep to the share of every budget window, waiting for each reset however long, "
        "until the plan is done (never refused for the window's budget; Ctrl-C stops it, the "
        "same command resumes from its log)",
    )

    rehearse = _plan_command(
        sub,
        "rehearse:rehearse",
        "apply a saved plan file to a local sandbox holding its snapshot and print what it "
        "changed; nothing is sent to the service (exit 0: every item made, 1: not)",
        plan="a plan written by lyt plan --out",
        base="the snapshot the sandbox holds: the one the plan was made from (lyt export), or a "
        "newer pull of the same program",
    )
    rehearse.add_argument(
        "--log",
        default=None,
        metavar="FILE",
        help="an interrupted apply's action log: rehearse only what it leaves (copied, never "
        "written)",
    )
    _changes_out_option(rehearse)

    verify = _plan_command(
        sub,
        "verify:verify",
        "after lyt apply, read back what the plan touched and check the service now holds "
        "what its rehearsal made (exit 0: as rehearsed, 2: not, 1: error)",
        plan="the plan file lyt apply applied",
        base="the snapshot the plan was made from (lyt export): rehearsed on again locally, with "
        "no call, to know what the apply should have made",
    )
    verify.add_argument(
        "--budget-share",
        default=None,
        metavar="SHARE",
        help="share of the calls left in the budget window the read-back may use, above 0 and "
        "at most 1 (default 0.5: the rest stays for the project's other traffic; 1 takes it all)",
    )
    verify.add_argument(
        "--paced",
        action="store_true",
        help="wait for the budget window's reset when the read-back does not fit its share, "
        "counting what the plan's runs sent in the window (from --log) against it",
    )
    verify.add_argument(
        "--log",
        default=None,
        metavar="FILE",
        help="the apply's action log (default: PLAN_FILE.log.jsonl, when it exists): each "
        "item's outcome is compared with the rehearsal's, and with --paced the plan's calls "
        "in the window are counted from it",
    )
    verify.add_argument("--out", default=None, metavar="FILE", help="write every check as CSV")

    report = sub.add_parser(
        "report", help="pull a snapshot (or read one saved before) and write a report"
    )
    report_sub = report.add_subparsers(dest="report_command", required=True)
    econ = _command(
        report_sub,
        "report:economics",
        "earn rates, point values, effective return and liability: CSV, PNG and HTML",
    )
    econ.add_argument("--out", required=True, metavar="DIR", help="directory for the report")
    _pull_options(econ, sample=True, checkpoint=True)
    econ.add_argument(
        "--history",
        default=None,
        metavar="DIR",
        help="a snapshot history folder (lyt audit --history): liability over time",
    )
    econ.add_argument(
        "--prices",
        default=None,
        metavar="FILE",
        help="CSV with columns id,value: the value (minor units) of products, SKUs, campaigns",
    )
    econ.add_argument(
        "--redemption-rate",
        default="1.0",
        metavar="RATE",
        help="share of points expected to be redeemed, 0 to 1 (default 1.0, the conservative "
        "figure), or 'history' to estimate it from --history (two or more snapshots)",
    )
    econ.add_argument(
        "--edited",
        default=None,
        metavar="EDITED_DIR",
        help="the what-if of an export folder edited in a spreadsheet, against --base: its "
        "economics before and after, the edits the service can make and those only its "
        "dashboard can (economics-what-if.html); nothing is pulled or sent",
    )
    _base_option(
        econ,
        "report on the snapshot saved in SNAPSHOT_DIR (lyt export, to_csv or to_parquet: CSV or "
        "Parquet) instead of pulling one: no call is sent; with --edited: the exported snapshot "
        "the edited folder is a copy of",
    )

    sandbox = sub.add_parser("sandbox", help="run or feed the local sandbox service")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", required=True)
    # Its imports (most of the sandbox's start) go 15% faster without the cycle collector.
    serve = _command(sandbox_sub, "sandbox:serve", "serve the sandbox over HTTP", bulk=True)
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1, this machine only)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port to listen on, 0 for any free one (default: 8000)",
    )
    serve.add_argument("--data", default=None, help="program file to load (default: the demo)")
    serve.add_argument(
        "--from-snapshot",
        default=None,
        metavar="DIR",
        help="hold the program of a snapshot folder (lyt export), clock at its pull time",
    )
    serve.add_argument("--db", default=None, help="SQLite file (default: in memory)")
    serve.add_argument(
        "--now",
        default=None,
        help="fix the clock at this ISO 8601 instant (default: the program's now, else a running"
        " clock; a restart on the"
        " same --db keeps the clock where it was, fixed or running, unless --now is given)",
    )
    serve.add_argument("--seed", type=int, default=None, help="seed for generated IDs")
    serve.add_argument(
        "--plan",
        default=None,
        help="call budget: free, startup, growth, professional, unlimited, N/hour or N/minute"
        " (default: the program's first project's plan, else unlimited)",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="answer 408 when a request body stalls this long (default: 10)",
    )
    serve.add_argument(
        "--head-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="answer 408 when a request line and headers take this long (default: 10)",
    )
    serve.add_argument(
        "--unsafe-public-demo-credentials",
        action="store_true",
        help="serve beyond loopback even with the public demo credentials (anyone can call it)",
    )

    gen = _command(
        sandbox_sub, "sandbox:generate", "write a large synthetic program file", bulk=True
    )
    gen.add_argument("--out", required=True, help="path of the program file to write")
    gen.add_argument(
        "--programs",
        type=int,
        default=1,
        help="loyalty programs the members are split over, one large and smaller ones",
    )
    gen.add_argument("--rewards", type=int, default=1000, help="rewards (default: 1000)")
    gen.add_argument("--benefits", type=int, default=1000, help="benefits (default: 1000)")
    gen.add_argument(
        "--card-definitions", type=int, default=10, help="card definitions (default: 10)"
    )
    gen.add_argument(
        "--tier-structures", type=int, default=10, help="tier structures (default: 10)"
    )
    gen.add_argument(
        "--members",
        type=int,
        default=100,
        help="members, one card each, joined over up to six years, some inactive",
    )
    gen.add_argument(
        "--pending-buckets",
        type=int,
        default=None,
        help="PENDING buckets in all, 1 to 4 on a card (default 0.4 per member)",
    )
    gen.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the generator (default 0): the same options and seed write the same file",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``lyt`` with ``argv`` (default: the process arguments); returns the exit code.

    A SIGTERM while the command runs stops it as a Ctrl-C does, exit code 143 instead of 130
    (``_sigterm``); one at the run's edges, its handler in place but the command not begun
    or already ended, exits 143 quietly. Run as a process of its own (``argv`` None), the
    objects its start-up imports build are frozen after them (``start_up``)."""
    if argv is None:
        freeze_start_up()
    args = build_parser().parse_args(argv)
    sigterm = Sigterm()
    try:
        with sigterm_as_ctrl_c(sigterm):
            code = _run(args)
    except KeyboardInterrupt:  # outside the command's own (``_run``): nothing more to say
        return EXIT_TERMINATED if sigterm.received else EXIT_INTERRUPTED
    return EXIT_TERMINATED if sigterm.received and code == EXIT_INTERRUPTED else code


def _run(args: argparse.Namespace) -> int:
    """The exit code of the command ``args`` name, run."""
    try:
        handler: Callable[[argparse.Namespace], int] = args.handler
        with plain_lines():  # a paced command writing to a log says what it is doing
            return handler(args)
    except BrokenPipeError:
        # The reader went away (``lyt audit | head``): stop quietly, as other shell tools do.
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: one line, never a traceback (apply says more)
        reason = interrupted(getattr(args, "checkpoint", None))  # where a paced pull's answers are
        return fail(_command_line(args), reason, EXIT_INTERRUPTED)


def _command_line(args: argparse.Namespace) -> str:
    """The command ``args`` run, as typed: ``lyt report economics``."""
    sub = getattr(args, f"{args.command}_command", None)
    return " ".join(["lyt", args.command, *([sub] if sub else [])])
