"""The defaults a pull's public signatures show, kept beside the record so that reading them
loads no HTTP client (the pulls themselves live in ``lyt_toolkit.fill``)."""

from __future__ import annotations

from ..frames.sample import Sample

__all__ = ["DEFAULT_CONCURRENCY", "DEFAULT_SHARE", "SampleSource"]

DEFAULT_CONCURRENCY = 8
"""Requests a pull keeps in flight at most unless told otherwise."""

DEFAULT_SHARE = 0.5
"""The share of the calls left in the window a pull may use unless told otherwise: the
other half stays for the project's other traffic."""

SampleSource = Sample | int | None
"""A sampled pull's design (``Sample``), or just its size, or None for every member."""
