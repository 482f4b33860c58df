"""The defaults a pull's public signatures show, kept beside the record so that reading them
loads no HTTP client (the pulls themselves live in ``lyt_toolkit.fill``)."""

from __future__ import annotations

from typing import Literal

import pandas as pd

from ..frames.sample import Sample

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SHARE",
    "REFRESH_OVERLAP",
    "MembersChoice",
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
