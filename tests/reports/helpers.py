"""Sample data shared by the report tests."""

from __future__ import annotations

from typing import Any

from frames.odd_pages import benefit

BENEFIT: dict[str, Any] = benefit(id="lben_0a1", name="Welcome")
"""One POINTS benefit as the service sends it."""
