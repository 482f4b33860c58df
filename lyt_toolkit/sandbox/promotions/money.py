"""Integer cents and the two rounding rules the engine uses.

Amounts are integers in the smallest currency unit. Percentages are rounded half
up to the cent once per line (or once for the order). A total spread over lines
is split by the largest-remainder method, so the shares always add up to exactly
the total and no cent appears or vanishes.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any


def cents(value: Any) -> int:
    """An integer amount from an int or a (possibly fractional) number, rounded half up."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise TypeError("an amount cannot be a boolean")
    if isinstance(value, int):
        return value
    return int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def percent_of(amount: int, percent: Any) -> int:
    """``percent`` % of ``amount``, rounded half up to the cent."""
    exact = Decimal(amount) * Decimal(str(percent)) / Decimal(100)
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def split(total: int, weights: Sequence[int]) -> list[int]:
    """Share ``total`` in proportion to ``weights``; largest remainder, ties to earlier lines."""
    weight_sum = sum(weights)
    if total <= 0 or weight_sum <= 0:
        return [0] * len(weights)
    floors = [total * w // weight_sum for w in weights]
    remainders = [total * w % weight_sum for w in weights]
    leftover = total - sum(floors)
    order = sorted(range(len(weights)), key=lambda i: (-remainders[i], i))
    for i in order[:leftover]:
        floors[i] += 1
    return floors
