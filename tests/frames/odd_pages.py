"""Pages as the service might send them, odd values included, for the decoding tests."""

from __future__ import annotations

import json
import re
from typing import Any

from lyt_toolkit.synthetic import generate_program

PROGRAM = json.loads(
    re.sub(  # the generator's relative times ("now-60s") as the instants the service sends
        r'"now[-+]\d+s"',
        '"2025-03-04T05:06:07.123Z"',
        json.dumps(generate_program(rewards=120, benefits=120, seed=5)),
    )
)


def benefit(**changes: Any) -> dict[str, Any]:
    """A POINTS benefit as the API sends it, with ``changes`` applied."""
    item: dict[str, Any] = {
        "id": "lben_0dd1",
        "name": "odd",
        "type": "POINTS",
        "status": "ACTIVE",
        "points": {"value": 10, "card_definition_id": "lcdef_1"},
        "created_at": "2026-01-15T12:00:00Z",
    }
    item.update(changes)
    return item


def page(*items: Any) -> bytes:
    """One list page holding ``items``, as JSON bytes."""
    return json.dumps({"object": "list", "data": list(items), "cursor": {"next": "c2"}}).encode()


ODD_BENEFITS = [
    benefit(points={"value": 2**70, "card_definition_id": "lcdef_1"}),
    benefit(points={"value": -(2**64), "card_definition_id": "lcdef_1"}),
    benefit(points={"value": 12.0, "card_definition_id": "lcdef_1"}),
    benefit(points={"value": 12.5, "card_definition_id": "lcdef_1"}),
    benefit(points={"value": "12", "card_definition_id": "lcdef_1"}),
    benefit(points={"value": True, "card_definition_id": "lcdef_1"}),
    benefit(points={"value": None, "card_definition_id": "lcdef_1"}),
    benefit(created_at="0001-01-01T00:00:00Z"),
    benefit(created_at="9999-12-31T23:59:59+14:00"),
    benefit(created_at="not a date"),
    benefit(created_at=1_768_478_400),
    benefit(created_at=1e20),
    benefit(status="RETIRED"),
    benefit(name=12),
    benefit(name=""),
    benefit(metadata={"deep": [[[[{"n": 2**80}]]]], "f": 1.5}),
    benefit(added_later={"x": 1}),
]
