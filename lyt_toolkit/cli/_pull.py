"""What the commands that pull share: a client, a pull, its options and ``--out``.

The client connects to the configured service, or with ``sandbox`` to the
bundled demo program on an embedded sandbox (a local copy of the service on
loopback). The pull keeps to ``--budget-share`` of the calls left in the window and,
with ``--sample N``, reads only a sample of the members (``pull_options``); a pull
refused for the budget is told with its ways forward as this command line spells them
(``budget_refusal``), and a pull that fails is told in one line (``pull_or_fail``,
``explain``). A command given a saved snapshot folder (``--base SNAPSHOT_DIR``) reads it
instead and pulls nothing (``snapshot_options`` refuses the pull's options with it,
``snapshot_or_fail`` pulls or reads). Imports are late so ``lyt --help`` stays fast.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .._collector import start_up
from .._text import joined
from ..errors import (
    APIConnectionError,
    APIError,
    ConfigurationError,
    LytError,
    PullBudgetError,
    WayForward,
    whole_pull,
)
from ._common import cli_words, fail, scrub

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..snapshot import ProgramSnapshot

__all__ = [
    "DEFAULT_PULL",
    "EMPTY_OUT",
    "PULL_ONLY",
    "REFUSED",
    "SAVED_CALLS",
    "Obtained",
    "PullOptions",
    "budget_refusal",
    "calls_line",
    "connected_client",
    "cost_first",
    "explain",
    "kinds_option",
    "output_dir",
    "pull_options",
    "pull_or_fail",
    "pull_snapshot",
    "pulled_only",
    "read_or_fail",
    "refused",
    "sample_line",
    "saved_source",
    "share_refusal",
    "snapshot_options",
    "snapshot_or_fail",
    "source_name",
]

REFUSED = "the service refused the credentials (401); check LYT_APP_ID and LYT_APP_TOKEN"
"""The line printed when the service refuses the key pair."""

EMPTY_OUT = "--out is empty; give the directory to write to"
"""The line printed for an empty ``--out``."""


def output_dir(text: str, command: str) -> Path | None:
    """``--out`` as a directory path with ``~`` expanded; None when it is empty, once
    ``{command}: {EMPTY_OUT}`` is printed to stderr."""
    if not text.strip():
        print(f"{command}: {EMPTY_OUT}", file=sys.stderr)
        return None
    return Path(text).expanduser()


@contextmanager
def connected_client(sandbox: bool) -> Iterator[LoyaltyClient]:
    """A connected client: to the embedded demo sandbox, or to the configured service."""
    with start_up():  # see start_up
        from ..client import LoyaltyClient

    if not sandbox:
        with LoyaltyClient() as client:
            yield client
        return
    from .._services import name_local
    from ..sandbox import Sandbox

    # No clock is forced: the demo file brings its own (2026-01-15T12:00Z) and every date in it
    # is relative to the clock at load, so the findings are the same on any day.
    with Sandbox.start(seed=7) as sb:
        # Each run holds the bundled demo afresh on a new port: one service, whose checkpoint
        # (--checkpoint) resumes across runs.
        name_local(sb.base_url, lambda: f"sandbox of {DEMO_SOURCE}, seed 7")
        with LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client:
            yield client


@dataclasses.dataclass(frozen=True)
class PullOptions:
    """How a command pulls: ``budget_share`` of the calls left in the window, and a sample of
    ``sample`` members drawn with ``seed`` (None: every member; ``seed`` None: no
    ``--sample-seed``, so 0 for a pull and a sampled folder's own for its refresh).
    ``can_sample`` and ``can_checkpoint``: the command has ``--sample``, ``--checkpoint`` (a
    refusal spells a way forward with the command's own option only then)."""

    budget_share: float = 0.5
    sample: int | None = None
    seed: int | None = None
    can_sample: bool = False
    checkpoint: str | None = None
    """A folder: the pull is paced across windows and resumable (``--checkpoint``)."""
    can_checkpoint: bool = False
    kinds: frozenset[str] | None = None
    """The frames pulled (``--kinds``); None: every one."""
    can_kinds: bool = False


DEFAULT_PULL = PullOptions()
"""A whole pull in the default share, by a command without ``--sample``."""


def pull_options(args: argparse.Namespace) -> PullOptions:
    """``--budget-share`` and, where the command has them, ``--sample``, ``--sample-seed``,
    ``--checkpoint`` and ``--kinds``, checked: a ``ValueError`` whose text names the option
    otherwise."""
    share = share_option(getattr(args, "budget_share", None))
    can_sample = hasattr(args, "sample")
    sample = _whole(getattr(args, "sample", None), "--sample", least=1, what="a member count")
    seed = _whole(getattr(args, "sample_seed", None), "--sample-seed", least=0, what="a seed")
    if seed is not None and sample is None:
        raise ValueError("--sample-seed: needs --sample N (the seed draws the sample)")
    checkpoint = getattr(args, "checkpoint", None)
    if checkpoint is not None and not checkpoint.strip():
        raise ValueError("--checkpoint: give a folder to keep the pull's answers in")
    can_checkpoint = hasattr(args, "checkpoint")
    kinds = kinds_option(getattr(args, "kinds", None))
    can_kinds = hasattr(args, "kinds")
    return PullOptions(
        share, sample, seed, can_sample, checkpoint, can_checkpoint, kinds, can_kinds
    )


def kinds_option(text: str | None) -> frozenset[str] | None:
    """``--kinds`` (frame names, comma-separated) checked as ``ProgramSnapshot.pull`` checks
    ``kinds=``: a ``ValueError`` whose text names the option otherwise; None when not given."""
    if text is None:
        return None
    from ..frames.registry import FRAME_NAMES
    from ..snapshot.cost import wanted_kinds

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise ValueError(f"--kinds: name at least one of {','.join(FRAME_NAMES)}, got {text!r}")
    try:
        return wanted_kinds(names)
    except ValueError as exc:  # "kinds: unknown [...]; known: ..."
        raise ValueError(f"--{exc}") from None


def share_option(text: str | None) -> float:
    """``--budget-share`` checked (default 0.5): a ``ValueError`` whose text names it unless a
    number above 0 and at most 1."""
    if text is None:
        return PullOptions.budget_share
    try:
        share = float(text)
    except ValueError:
        share = math.nan
    if not (math.isfinite(share) and 0 < share <= 1):
        raise ValueError(f"--budget-share: must be a number above 0 and at most 1, got {text!r}")
    return share


def _whole(text: str | None, option: str, *, least: int, what: str) -> int | None:
    """``text`` as a whole number of at least ``least``; None when the option is not given."""
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        value = least - 1
    if value < least:
        raise ValueError(f"{option}: must be {what}, a whole number from {least}, got {text!r}")
    return value


def pull_snapshot(sandbox: bool, options: PullOptions = DEFAULT_PULL) -> ProgramSnapshot:
    """What the service (``connected_client(sandbox)``) holds, pulled as ``options`` say,
    with a progress bar where one can be seen (a terminal's stderr) or where ``LYT_PROGRESS``
    asks for one (``lyt_toolkit._progress.display``)."""
    with start_up():  # see start_up
        from ..frames.sample import Sample
        from ..snapshot import ProgramSnapshot

    sample = None if options.sample is None else Sample(options.sample, seed=options.seed or 0)
    with connected_client(sandbox) as client:
        return ProgramSnapshot.pull(
            client,
            progress=True,
            budget_share=options.budget_share,
            sample=sample,
            checkpoint=options.checkpoint,
            kinds=options.kinds,
        )


def pull_or_fail(
    sandbox: bool, command: str, options: PullOptions = DEFAULT_PULL
) -> ProgramSnapshot | None:
    """The snapshot pulled as ``options`` say, or None once one line saying why it could not
    be pulled is printed (for a pull refused for the budget, its ways forward after it)."""
    try:
        return pull_snapshot(sandbox, options)
    except LytError as exc:
        fail(command, explain(exc, options))
    except Exception as exc:  # a malformed answer, a bug: still one line, never a traceback
        reason = f"the snapshot could not be pulled: {type(exc).__name__}: {exc}"
        fail(command, scrub(" ".join(reason.split())))
    return None


PULL_ONLY = {
    "sandbox": "--sandbox",
    "budget_share": "--budget-share",
    "sample": "--sample",
    "sample_seed": "--sample-seed",
    "checkpoint": "--checkpoint",
    "kinds": "--kinds",
}
"""The options that say how to pull (argument name -> option), of no use to a command reading
a saved snapshot instead."""


def pulled_only(
    args: argparse.Namespace, reading: str, only: dict[str, str] = PULL_ONLY
) -> str | None:
    """The line refusing an option of ``only`` given with ``reading`` (the option naming the
    folder read instead of a pull: nothing is pulled), else None."""
    for name, option in only.items():
        if getattr(args, name, None) not in (None, False):
            return (
                f"{option}: not with {reading} (the snapshot is read from its folder, nothing"
                " is pulled)"
            )
    return None


def snapshot_options(args: argparse.Namespace) -> PullOptions:
    """``pull_options(args)``; with ``--base`` (the snapshot read from that folder instead)
    none of the pull's options (``PULL_ONLY``) may be given: a ``ValueError`` whose text
    names the first one given, or a pull option's bad value."""
    if getattr(args, "base", None) is not None and (problem := pulled_only(args, "--base")):
        raise ValueError(problem)
    return pull_options(args)


SAVED_CALLS = "API calls: none (a saved snapshot)"
"""The calls line of a snapshot read from its folder."""


@dataclasses.dataclass(frozen=True)
class Obtained:
    """The snapshot a command works on, as its report names where it came from
    (``source_name``, ``saved_source``), and the line telling the calls it took."""

    snapshot: ProgramSnapshot
    source: str
    calls: str


def snapshot_or_fail(
    command: str,
    options: PullOptions = DEFAULT_PULL,
    *,
    sandbox: bool = False,
    base: str | None = None,
) -> Obtained | None:
    """The snapshot pulled as ``options`` say (``pull_or_fail``) or, given ``base``, read from
    that folder with no call (``read_or_fail``); None once one line says why it could not be."""
    if base is not None:
        saved = read_or_fail(base, command)
        return None if saved is None else Obtained(saved, saved_source(base, saved), SAVED_CALLS)
    pulled = pull_or_fail(sandbox, command, options)
    if pulled is None:
        return None
    return Obtained(pulled, source_name(sandbox, pulled), calls_line(pulled))


def read_or_fail(folder: str, command: str, option: str = "--base") -> ProgramSnapshot | None:
    """The snapshot saved in ``folder`` (``lyt export``, ``to_csv``, ``to_parquet``), or None
    once one line naming ``option`` says why it could not be read."""
    from ..snapshot import read_snapshot

    try:
        return read_snapshot(Path(folder).expanduser())
    except (LytError, OSError) as exc:
        fail(command, scrub(f"{option} {folder}: {' '.join(str(exc).split())}"))
    return None


def saved_source(folder: str, snapshot: ProgramSnapshot) -> str:
    """A saved snapshot's source for a report: the folder, and the service it was pulled from."""
    return f"the snapshot saved in {folder} (pulled from {snapshot.source or 'the service'})"


def explain(exc: LytError, options: PullOptions = DEFAULT_PULL) -> str:
    """One line saying why a pull could not run, with any credential scrubbed; for a pull
    refused for the budget, its ways forward on the lines after it, spelled with the
    options the command has (``options``: how it pulled)."""
    if isinstance(exc, PullBudgetError):
        refusal = budget_refusal(exc, options)
        return "\n".join(scrub(_squeezed(line)) for line in refusal.splitlines())
    if (share := share_refusal(exc)) is not None:
        return scrub(share)
    if isinstance(exc, APIConnectionError):
        text = f"cannot reach the service: {exc}"
    elif refused(exc):
        text = REFUSED
    elif isinstance(exc, ConfigurationError):
        text = f"the client is not configured: {exc}"
    else:
        text = f"the snapshot could not be pulled: {exc}"
    return scrub(" ".join(text.split()))


def share_refusal(exc: LytError) -> str | None:
    """A paced pull's share refused as too small for a token request and the call it serves
    (``PacedShareTooSmall``), naming ``--budget-share``; None for any other error."""
    from ..client.paced_floor import PacedShareTooSmall  # loaded by the pull that raised it

    return cli_words(str(exc), {}) if isinstance(exc, PacedShareTooSmall) else None


def _squeezed(line: str) -> str:
    """``line`` with its runs of white space made one space, its indent kept."""
    return line[: len(line) - len(line.lstrip())] + " ".join(line.split())


def budget_refusal(exc: PullBudgetError, options: PullOptions = DEFAULT_PULL) -> str:
    """A pull refused for the budget, for the terminal: the error's first line, then each way
    forward spelled as the command line spells it (``--sample 238``, ``--budget-share 1``);
    a way the command cannot take says so and gives its Python spelling, or the command that
    takes it; then, for a pull of every member refused for its member reads, how to know its
    cost first (``cost_first``, in place of the error's Python line). ``options``: how the
    command pulled, and which of those options it has."""
    lines = [str(exc).splitlines()[0]]
    if exc.ways:
        lines.append("Ways forward:")
        lines += [f"  - {dataclasses.replace(way, how=_spelled(way, options))}" for way in exc.ways]
    if (first := cost_first(exc, options)) is not None:
        lines.append(first)
    return "\n".join(lines)


def cost_first(exc: PullBudgetError, options: PullOptions = DEFAULT_PULL) -> str | None:
    """The ``lyt export --estimate --read-sample N`` that counts the refused pull's calls
    before a pull is tried again, its ``--kinds`` and ``--budget-share`` as ``options`` say,
    where the error names the estimate in Python (``PullBudgetError.cost_first``: a pull of
    every member, not paced, refused for its member reads); None otherwise."""
    if exc.cost_first is None:
        return None
    from ..fill.budget import ESTIMATE_READS, READ_SAMPLE
    from ..frames.registry import FRAME_NAMES

    default = options.budget_share == PullOptions.budget_share
    share = "" if default else f" --budget-share {options.budget_share:g}"
    named = [kind for kind in FRAME_NAMES if options.kinds and kind in options.kinds]
    kinds = f" --kinds {','.join(named)}" if named else ""
    return (
        f"To know the cost first: lyt export{kinds}{share} --estimate --read-sample"
        f" {READ_SAMPLE} ({ESTIMATE_READS} or written)"
    )


def _spelled(way: WayForward, options: PullOptions) -> str:
    """A way forward's ``how`` as the command line takes it, when it can."""
    if way.argument is None:
        return way.how  # a sentence, not an argument
    name, value = way.argument
    python = f"in Python: ProgramSnapshot.pull(client, {way.how})"
    if name == "budget_share":
        return f"--budget-share {value:g}"
    if name == "checkpoint":
        return f"--checkpoint {value}" if options.can_checkpoint else _paced_export(value, options)
    if name == "sample":
        if options.can_sample and options.checkpoint is not None:
            return f"--sample {value} --checkpoint ANOTHER_DIR"  # the folder holds this pull
        if options.can_sample:
            return f"--sample {value}"
        return f"not an option of this command; {python}"
    if name == "members":
        return f"--members {value}"
    if name == "kinds" and options.can_kinds:
        return f"--kinds {','.join(value)}"
    return f"not available from the command line; {python}"


def _paced_export(folder: str, options: PullOptions) -> str:
    """The ``lyt export`` that pulls as ``options`` say, paced and resumable in ``folder``
    (for a command without ``--checkpoint``)."""
    sample = "" if options.sample is None else f" --sample {options.sample}"
    seed = f" --sample-seed {options.seed}" if options.sample is not None and options.seed else ""
    return f"lyt export{sample}{seed} --checkpoint {folder}"


def sample_line(snapshot: ProgramSnapshot) -> str | None:
    """What a sampled snapshot's reader must know first (None: no sample was asked): the
    kinds it read of the sampled members only, those it holds of ``MEMBERS_OWN``; or, for a
    sample asked of at least the program's members, that it read every one (a whole pull,
    worded as ``PullBudgetError.census`` words a refused one)."""
    design = snapshot.sample
    if design is None:
        return None
    if design.n is not None and design.n >= design.population:  # said, not read silently
        whole = whole_pull(design.n, design.population)
        return f"Sample: a {design}; {whole}, so program totals are exact"
    pulled = [kind for kind in MEMBERS_OWN if kind in snapshot.kinds]
    own = joined(kind.replace("_", " ") for kind in pulled)
    whose = f"the {own} are the sampled members' only, and " if own else ""
    return (
        f"Sample: a {design}; {whose}program totals are estimated from {design.size:,} of "
        f"{design.population:,} members, with 95 % intervals"
    )


MEMBERS_OWN = ("cards", "pending_buckets")
"""The kinds a sampled pull reads of its sampled members only, as ``sample_line`` names them."""


DEMO_SOURCE = "the embedded demo program (--sandbox)"
"""How a report names the embedded sandbox, whose address changes with every start."""


def source_name(sandbox: bool, snapshot: ProgramSnapshot) -> str:
    """The service a snapshot came from as its users know it: the embedded demo program, or
    the configured project (its application ID) and cluster, with the service's address;
    never a credential."""
    if sandbox:
        return DEMO_SOURCE
    from ..client import ClientConfig

    try:
        config = ClientConfig.resolve()
    except LytError:
        return snapshot.source or "the service"
    cluster = f" on cluster {config.cluster.value}" if "{cluster}" in config.base_url else ""
    return f"project {config.app_id or '(no application ID)'}{cluster} at {snapshot.source}"


def calls_line(snapshot: ProgramSnapshot) -> str:
    """``API calls used: N; remaining this window: R of L; resets at T`` for a pulled snapshot."""
    return f"API {snapshot.calls}" if snapshot.calls is not None else "API calls: not counted"


def refused(exc: LytError) -> bool:
    """Whether the service refused the credentials."""
    return isinstance(exc, APIError) and exc.status == 401
