"""Decoding an answer (``parsed``: ``validate_json``) gives the models and errors the two-step
route the client took before gave (parse with ``from_json``, validate the values; a body either
step refused handed to ``validate_json``), for each kind of answer, odd ones included."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import from_json

from lyt_toolkit.client._core import adapter, parsed
from lyt_toolkit.models import (
    Benefit,
    CardDefinition,
    Member,
    MemberWithCards,
    Page,
    PendingBucket,
    Program,
    Reward,
    TierStructure,
)

from .odd_pages import ODD_BENEFITS, PROGRAM, benefit, page


def bodies() -> list[tuple[str, Any, bytes]]:
    found = [
        ("generated rewards", Page[Reward], page(*PROGRAM["rewards"][:100])),
        ("generated benefits", Page[Benefit], page(*PROGRAM["benefits"][:100])),
        ("generated members", Page[Member], page(*PROGRAM["members"][:100])),
        ("generated card definitions", Page[CardDefinition], page(*PROGRAM["card_definitions"])),
        ("generated tier structures", Page[TierStructure], page(*PROGRAM["tier_structures"])),
        (
            "generated pending buckets",
            Page[PendingBucket],
            _days(page(*PROGRAM["pending_buckets"])),
        ),
        ("generated program", Program, _days(json.dumps(PROGRAM["programs"][0]).encode())),
        ("generated member with cards", MemberWithCards, _member_with_cards()),
        ("generated reward", Reward, json.dumps(PROGRAM["rewards"][0]).encode()),
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


def _days(content: bytes) -> bytes:
    """``content`` with the generator's days from now (``"now+99d"``) as a day's start."""
    return re.sub(rb'"now[-+]\d+d"', b'"2025-03-04T00:00:00.000Z"', content)


def _member_with_cards() -> bytes:
    member = PROGRAM["members"][0]
    cards = [c for c in PROGRAM["cards"] if c["member_id"] == member["id"]]
    return json.dumps({**member, "cards": cards}).encode()


def two_steps(tp: Any) -> Any:
    """The decoding the client did before ``validate_json`` alone: ``from_json``, then
    ``validate_python``; a body either step refused handed to ``validate_json``."""
    found = adapter(tp)

    def decode(content: bytes) -> Any:
        try:
            return found.validate_python(from_json(content))
        except (ValidationError, ValueError, ArithmeticError, TypeError, RecursionError):
            return found.validate_json(content)

    return decode


def outcome(decode: Any, content: bytes) -> Any:
    try:
        model = decode(content)
    except ValidationError as exc:
        return ("refused", exc.errors(include_url=False, include_input=False))
    except Exception as exc:  # the same non-pydantic error, if any
        return ("raised", type(exc))
    return ("decoded", model, model.model_dump(), repr(model))


@pytest.mark.parametrize(("name", "tp", "content"), bodies(), ids=[b[0] for b in bodies()])
def test_decoding_gives_the_models_and_errors_of_the_two_step_decoding(
    name: str, tp: Any, content: bytes
) -> None:
    expected = outcome(two_steps(tp), content)
    if name.startswith("generated"):
        assert expected[0] == "decoded"
    assert outcome(lambda c: parsed(c, tp), content) == expected
