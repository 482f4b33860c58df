"""Building blocks of synthetic rows: IDs, names, creation times and weighted picks."""

from __future__ import annotations

import functools
import itertools
import math
import random

HISTORY_SECONDS = 2 * 365 * 86400
"""``created_at`` values are spread over the two years before the clock."""


@functools.cache
def seed_tag(seed: int) -> str:
    """Four hex digits of the seed, so programs of different seeds never share IDs."""
    return f"{seed & 0xFFFF:04x}"


def row_id(prefix: str, seed: int, n: int) -> str:
    """Unique, deterministic, pattern-conforming ID: seed tag plus a counter, in hex."""
    return f"{prefix}{seed_tag(seed)}{n:012x}"


def distinct_names(words: tuple[tuple[str, ...], ...], count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names; combinations are shuffled, then numbered editions follow."""
    combos = [" ".join(parts) for parts in itertools.product(*words)]
    rng.shuffle(combos)
    size = len(combos)
    return [combos[i % size] + ("" if i < size else f" No. {i // size + 1}") for i in range(count)]


def created_times(count: int, rng: random.Random) -> list[str]:
    """Distinct relative ``created_at`` values, oldest first, spread over the history."""
    step = max(HISTORY_SECONDS // max(count, 1), 1)
    ages = [HISTORY_SECONDS - i * step - rng.randrange(step) for i in range(count)]
    return [f"now-{max(age, 1) + 60}s" for age in ages]


def growing_ages(count: int, seconds: int, growth: float, rng: random.Random) -> list[int]:
    """``count`` distinct ages in seconds, oldest first, within the last ``seconds``, joins
    growing ``e**growth``-fold from the oldest to the newest (a program that grows).

    Each value sits in its own stratum of the growth curve, so the list comes out sorted
    and spread with no clumps; ages stay distinct (strictly decreasing, a minute or more
    ago) while ``seconds`` is well above ``count``.
    """
    ages: list[int] = []
    previous = seconds + 61
    scale = math.expm1(growth)
    for i in range(count):
        share = (i + rng.random()) / count
        joined = math.log1p(share * scale) / growth if growth else share
        age = min(int(seconds * (1 - joined)) + 60, previous - 1)
        previous = max(age, 1)
        ages.append(previous)
    return ages


def pick(rng: random.Random, weighted: dict[str, int], count: int) -> list[str]:
    """``count`` keys of ``weighted`` drawn with replacement, in proportion to their weights."""
    return rng.choices(list(weighted), weights=list(weighted.values()), k=count)
