"""Placeholder records: what a program copied from a snapshot references but could not list.

The interface lists no products, SKUs, campaigns or customers, so a program
written from a snapshot holds a stand-in for each one its records reference,
marked ``"placeholder": true``. They resolve references exactly like full
records (a benefit on a known product is created, one on a made-up product is
refused); only these sections may hold the mark. See data/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PLACEHOLDER = "placeholder"
"""The key marking a placeholder record."""

PLACEHOLDER_SECTIONS = frozenset({"products", "skus", "campaigns", "customers"})
"""The sections whose records may be placeholders."""


def placeholder_problems(sections: Mapping[str, list[Any]]) -> list[str]:
    """One line per record whose ``placeholder`` mark is not ``true`` or ``false``."""
    return [
        f"{section}[{index}] {record.get('id')}: {PLACEHOLDER}: must be true or false,"
        f" got {record[PLACEHOLDER]!r}"
        for section in PLACEHOLDER_SECTIONS
        for index, record in enumerate(sections.get(section, ()))
        if isinstance(record, dict)
        and PLACEHOLDER in record
        and not isinstance(record[PLACEHOLDER], bool)
    ]
