"""Sample data shared by the report tests."""

from __future__ import annotations

from typing import Any

BENEFIT: dict[str, Any] = {
    "id": "lben_0a1",
    "name": "Welcome",
    "type": "POINTS",
    "status": "ACTIVE",
    "points": {"value": 10, "card_definition_id": "lcdef_1"},
    "created_at": "2026-01-15T12:00:00Z",
}
"""One POINTS benefit as the service sends it."""
