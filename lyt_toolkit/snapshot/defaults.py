"""The defaults a pull's public signatures show, and the options records that carry them to
``lyt_toolkit.fill``, kept beside the record so that reading them loads no HTTP client (the
pulls themselves live in ``lyt_toolkit.fill``)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral
from typing import Literal

import pandas as pd

from .._progress import Progress
from ..frames.sample import Sample

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SHARE",
    "REFRESH_OVERLAP",
    "EstimateOptions",
    "MembersChoice",
    "PullOptions",
    "ReadOptions",
    "RefreshOptions",
    "SampleSource",
]

DEFAULT_CONCURRENCY = 8
"""Requests a pull keeps in flight at most unless told otherwise."""

DEFAULT_SHARE = 0.5
"""The share of the calls left in the window a pull may use unless told otherwise: the
other half stays for the project's other traffic."""

SampleSource = Sample | int | None
"""A sampled pull's design (``Sample``), or just its size, or None for every member."""

MembersChoice = Literal["all", "new", "none"] | Sample
"""Which members a refresh reads for their cards: every one, the new ones, none, or a sample
of them all, old and new."""

REFRESH_OVERLAP = pd.Timedelta(minutes=5)
"""How far before the old snapshot's newest ``created_at`` a refresh lists again (objects
created at that very instant, or written late with an earlier time, are then found; each is
kept once)."""


def checked_concurrency(concurrency: object) -> int:
    """``concurrency``, the requests in flight at most: a whole number from 1, else a
    ``ValueError`` naming it."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, Integral) or concurrency < 1:
        raise ValueError(
            f"concurrency: {concurrency!r} requests in flight; at least 1, a whole number"
        )
    return int(concurrency)


def checked_checkpoint(checkpoint: object) -> None:
    """``TypeError`` or ``ValueError`` naming ``checkpoint`` unless None or a folder's path
    (an empty one would name the working directory)."""
    if checkpoint is None:
        return
    if not isinstance(checkpoint, str | os.PathLike):
        raise TypeError(f"checkpoint: expected a folder's path, not {type(checkpoint).__name__}")
    if not os.fspath(checkpoint).strip():
        raise ValueError("checkpoint: empty; give the folder to keep the pull's answers in")


@dataclass(frozen=True, kw_only=True)
class ReadOptions:
    """How a pull or a refresh reads, as ``ProgramSnapshot.pull`` and ``refresh`` take it:
    its progress bar, the requests in flight at most, its share of the calls left in the
    window, and the folder that makes it paced and resumable (None: neither)."""

    progress: Progress = True
    concurrency: int = DEFAULT_CONCURRENCY
    budget_share: float = DEFAULT_SHARE
    checkpoint: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        checked_concurrency(self.concurrency)
        checked_checkpoint(self.checkpoint)


@dataclass(frozen=True, kw_only=True)
class PullOptions(ReadOptions):
    """A pull's options (``ProgramSnapshot.pull``'s keywords): the kinds it reads (None for
    every one) and the members' sample (None for every member)."""

    kinds: Iterable[str] | None = None
    sample: SampleSource = None


@dataclass(frozen=True, kw_only=True)
class RefreshOptions(ReadOptions):
    """A refresh's options (``ProgramSnapshot.refresh``'s keywords): the members it reads for
    their cards, and how far before the old snapshot's newest ``created_at`` it lists again."""

    members: MembersChoice = "new"
    overlap: pd.Timedelta = REFRESH_OVERLAP


@dataclass(frozen=True, kw_only=True)
class EstimateOptions:
    """An estimate's options (``ProgramSnapshot.estimate``'s keywords): the kinds the pull
    would read (None for every one), the cards per member counted as holding pending points
    (None: one per card definition), whether to read every member instead (deprecated), its
    share of the calls left in the window, and the members read, drawn at random, to project
    the bucket lists from (None: none)."""

    kinds: Iterable[str] | None = None
    cards_per_member: int | None = None
    read_members: bool = False
    budget_share: float = DEFAULT_SHARE
    read_sample: int | None = None
