"""``StrataRate``'s low bound over seeded draws: the bucket lists to come, projected stratum
by stratum from the members read, fall below it about as rarely as ``STOP_Z`` says, whatever
the strata's rates and sizes (a pull that fits is then rarely stopped); and it is never
above what the members to come could hold."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit.fill.projection import STOP_Z, PendingRate, StrataRate

DRAWS = 400
"""Seeded draws of each set of strata: at ``STOP_Z`` (one-sided 2.3 %) about 9 fall below."""

strata = st.lists(
    st.tuples(
        st.floats(0.0, 0.7), st.integers(15, 120), st.integers(0, 400)
    ),  # rate, read, to come
    min_size=1,
    max_size=12,
)


def _draw(rng: random.Random, rate: float, members: int) -> int:
    return sum(rng.random() < rate for _ in range(members))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(strata)
def test_the_lists_to_come_fall_below_the_low_bound_as_rarely_as_stop_z_says(
    given_strata: list[tuple[float, int, int]],
) -> None:
    rng = random.Random(7)
    below = 0
    for _ in range(DRAWS):
        read = {h: PendingRate(n, _draw(rng, p, n)) for h, (p, n, _) in enumerate(given_strata)}
        rest = {h: left for h, (_, _, left) in enumerate(given_strata)}
        to_come = sum(_draw(rng, p, left) for p, _, left in given_strata)
        low = StrataRate(read, rest).lists_of(-STOP_Z)
        assert 0 <= low <= sum(rest.values())
        below += to_come < low
    assert below <= DRAWS * 0.05, f"{below} of {DRAWS} below the low bound"


def test_a_stratum_none_of_whose_members_was_read_counts_none_below_and_all_above() -> None:
    rate = StrataRate({"recent": PendingRate(100, 60)}, {"recent": 0, "unread": 50})
    assert rate.lists_of(-STOP_Z) == 0
    assert rate.lists_of(STOP_Z) == 50


def test_the_rest_is_projected_at_its_own_strata_s_rates_not_at_those_read() -> None:
    """Read: 100 recent members, 60 holding pending points, and 100 older, 5 holding; to
    come: 400 older. At the rate of all read (32.5 %) even the low bound is 110; stratum by
    stratum it is near the older members' 5 % (20)."""
    read = {"recent": PendingRate(100, 60), "older": PendingRate(100, 5)}
    rest = {"older": 400}
    pooled = PendingRate(200, 65).lists_of(400, -STOP_Z)
    stratified = StrataRate(read, rest).lists_of(-STOP_Z)
    assert pooled >= 100 and 0 <= stratified <= 20
    assert StrataRate(read, rest).lists_of(STOP_Z) < pooled
