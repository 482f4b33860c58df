"""Decoding a page in two steps (parse, then validate) gives what ``validate_json`` gives."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from lyt_toolkit.client._core import adapter, parsed
from lyt_toolkit.models import Benefit, Page, Reward
from lyt_toolkit.synthetic import generate_program

PROGRAM = json.loads(
    re.sub(  # the generator's relative times ("now-60s") as the instants the service sends
        r'"now[-+]\d+s"',
        '"2025-03-04T05:06:07.123Z"',
        json.dumps(generate_program(rewards=120, benefits=120, seed=5)),
    )
)


def benefit(**changes: Any) -> dict[str, Any]:
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


def bodies() -> list[tuple[str, Any, bytes]]:
    found = [
        ("generated rewards", Page[Reward], page(*PROGRAM["rewards"][:100])),
        ("generated benefits", Page[Benefit], page(*PROGRAM["benefits"][:100])),
    ]
    found += [(f"odd benefit {i}", Page[Benefit], page(b)) for i, b in enumerate(ODD_BENEFITS)]
    found += [
        ("NaN", Page[Benefit], page(benefit()).replace(b"10", b"NaN", 1)),
        ("Infinity", Page[Benefit], page(benefit()).replace(b"10", b"-Infinity", 1)),
        ("huge exponent", Page[Benefit], page(benefit()).replace(b"10", b"1e400", 1)),
        ("not JSON", Page[Benefit], b"<html>oops</html>"),
        ("truncated", Page[Benefit], page(benefit())[:-5]),
        ("deep nesting", Page[Benefit], b'{"data": [], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        ("a list", Page[Benefit], b"[]"),
        ("no data", Page[Benefit], b'{"object": "list"}'),
        ("empty", Page[Benefit], b""),
    ]
    return found


def outcome(decode: Any, content: bytes) -> Any:
    try:
        model = decode(content)
    except ValidationError as exc:
        return ("refused", exc.errors(include_url=False, include_input=False))
    except Exception as exc:  # the same non-pydantic error, if any
        return ("raised", type(exc))
    return ("decoded", model, model.model_dump(), repr(model))


@pytest.mark.parametrize(("name", "tp", "content"), bodies(), ids=[b[0] for b in bodies()])
def test_two_step_decoding_gives_the_models_and_errors_of_validate_json(
    name: str, tp: Any, content: bytes
) -> None:
    expected = outcome(adapter(tp).validate_json, content)
    if name.startswith("generated"):
        assert expected[0] == "decoded"
    assert outcome(lambda c: parsed(c, tp), content) == expected
