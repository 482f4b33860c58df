"""The values a selection widget offers, read from its public ``options``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipywidgets import Dropdown

__all__ = ["option_values"]


def option_values(choice: Dropdown) -> list[object]:
    """The values ``choice`` offers, its ``options`` read as ipywidgets reads them: (label,
    value) pairs, a mapping of labels to values, else the values alone (their labels their
    text)."""
    options = choice.options
    listed = tuple(options.items() if isinstance(options, Mapping) else options)
    if all(isinstance(option, list | tuple) and len(option) == 2 for option in listed):
        return [value for _, value in listed]
    return list(listed)
