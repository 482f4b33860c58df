"""``lyt export --since DIR``: an exported snapshot refreshed by what is new, its cost first.

The folder is read (CSV or Parquet); each choice of members is priced and printed before
anything is read (``ProgramSnapshot.refresh_cost``: the old sizes and a probe of the new
members and rewards), then the refresh runs with the choice ``--members`` names (``new``
by default; ``--sample N`` reads a sample of old and new members instead: of a sampled
folder, drawn as its own sample was, ``refresh_sample``). Imports are late so ``lyt --help``
stays fast.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ._pull import PullOptions, connected_client

if TYPE_CHECKING:
    from ..frames.sample import Sample
    from ..snapshot import ProgramSnapshot
    from ..snapshot.defaults import MembersChoice

__all__ = [
    "MEMBER_CHOICES",
    "members_choice",
    "read_at_lines",
    "refresh_sample",
    "refresh_snapshot",
]

MEMBER_CHOICES = ("all", "new", "none")


def members_choice(args: argparse.Namespace, options: PullOptions) -> MembersChoice | None:
    """The ``members`` of the refresh ``--since`` asks for (None: no ``--since``), or a
    ``ValueError`` naming the option that cannot be taken."""
    from ..frames.sample import Sample

    since, members = getattr(args, "since", None), getattr(args, "members", None)
    if since is None:
        if members is not None:
            raise ValueError("--members: only with --since DIR (it chooses what a refresh reads)")
        return None
    if members is not None and options.sample is not None:
        raise ValueError("--members: give --members or --sample, not both")
    if options.sample is not None:
        return Sample(options.sample, seed=options.seed or 0)
    if members is None:
        return "new"
    if members not in MEMBER_CHOICES:
        raise ValueError(f"--members: must be one of {', '.join(MEMBER_CHOICES)}, got {members!r}")
    choice: MembersChoice = members
    return choice


def refresh_snapshot(
    since: Path, sandbox: bool, options: PullOptions, members: MembersChoice
) -> ProgramSnapshot:
    """The snapshot in ``since`` refreshed with ``members`` from ``connected_client(sandbox)``,
    each choice's cost printed first; a ``ValueError`` naming the options, before any call,
    when a sampled snapshot is to be refreshed with ``new`` or ``none``."""
    from ..frames.sample import Sample
    from ..snapshot import read_snapshot

    old = read_snapshot(since)
    if old.sample is not None and not isinstance(members, Sample) and members != "all":
        raise ValueError(
            f"--members {members}: the snapshot in {since} is a {old.sample}, and reading"
            " the new members only would add members outside the sample to it; refresh it with"
            f" --sample {old.sample.drawn_by.n} (a sample of old and new members) or --members all"
        )
    if isinstance(members, Sample):
        members = refresh_sample(old, members, options)
    sample = members if isinstance(members, Sample) else None
    with connected_client(sandbox) as client:
        cost = old.refresh_cost(client, sample=sample, budget_share=options.budget_share)
        print(f"Since the snapshot of {old.pulled_at:%Y-%m-%d %H:%M:%S} UTC in {since}:")
        print(cost)
        return old.refresh(
            client,
            members=members,
            progress=True,
            budget_share=options.budget_share,
            checkpoint=options.checkpoint,
        )


def refresh_sample(old: ProgramSnapshot, asked: Sample, options: PullOptions) -> Sample:
    """The sample ``--sample N`` refreshes ``old`` with: ``asked`` for a whole snapshot; for a
    sampled one, the ``Sample`` its design was drawn by (strata, join bands, allocation: the
    command line cannot name them) with ``N`` members, and its seed unless ``--sample-seed``
    gives one."""
    if old.sample is None:
        return asked
    drawn = old.sample.drawn_by
    return replace(drawn, n=asked.n, seed=drawn.seed if options.seed is None else options.seed)


def read_at_lines(snapshot: ProgramSnapshot) -> list[str]:
    """``  kind  read at T`` for each kind of a refreshed snapshot."""
    width = max((len(kind) for kind in snapshot.read_at), default=0)
    return [
        f"  {kind:<{width}}  read at {when:%Y-%m-%d %H:%M:%S} UTC"
        for kind, when in snapshot.read_at.items()
    ]
