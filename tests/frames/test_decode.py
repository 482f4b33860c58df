"""Decoding a page in two steps (parse, then validate) gives what ``validate_json`` gives."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from lyt_toolkit.client._core import adapter, parsed
from lyt_toolkit.models import Benefit, Page, Reward

from .odd_pages import ODD_BENEFITS, PROGRAM, benefit, page


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
