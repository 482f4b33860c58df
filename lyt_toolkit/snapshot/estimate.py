"""Deprecated since 0.5.0, removed in 0.6.0: the estimate lives in
``lyt_toolkit.fill.estimate``.

Importing this module warns; it re-exports what it held from the new home.
"""

from .._deprecation import deprecation, warn
from ..fill.estimate import estimate_pull

__all__ = ["estimate_pull"]

warn(deprecation("lyt_toolkit.snapshot.estimate"))
