"""A report's chart, a bare matplotlib ``Figure``, laid out and written as PNG."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

__all__ = ["save_png"]

DPI = 100
"""Every report chart's resolution."""


def save_png(fig: Figure, path: Path) -> None:
    """``fig`` laid out tight and written to ``path`` as PNG at :data:`DPI`.

    The layout is computed once: ``tight_layout`` leaves a placeholder layout engine behind,
    for which ``savefig`` would draw the whole figure once more before drawing it to PNG;
    with no engine it draws it once. The PNG is the same.
    """
    fig.tight_layout()
    fig.set_layout_engine(None)
    fig.savefig(path, format="png", dpi=DPI)
