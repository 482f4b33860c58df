"""A service may end a full last page with a cursor to an empty page (the interface does
not say): pulled from a sandbox that does, a program whose lists fill their last pages
gives the frames of one that does not."""

from __future__ import annotations

from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .helpers import assert_same_frames, pull

FULL_PAGES = generate_program(
    members=100, rewards=100, benefits=20, card_definitions=3, tier_structures=2, seed=5
)
"""Rewards and members each filling their last page of 100."""


def test_a_pull_reads_the_same_frames_when_a_full_last_page_carries_a_cursor() -> None:
    with Sandbox.start(FULL_PAGES, now=FULL_PAGES["now"]) as sb:
        used = sb.plan()["used"]
        ended = pull(sb)
        sent_ended = sb.plan()["used"] - used
        sb.set_faults(full_page_cursor=True)
        carried = pull(sb)
        sent_carried = sb.plan()["used"] - used - sent_ended
    assert (len(ended.rewards), len(ended.members)) == (100, 100)
    assert_same_frames(ended, carried)
    lists = [len(ended.rewards), len(ended.benefits), len(ended.card_definitions)]
    lists += [len(ended.tier_structures), len(ended.programs)]
    lists += ended.members.groupby("program_id", observed=True).size().tolist()
    lists += ended.pending_buckets.groupby("card_id", observed=True).size().tolist()
    full = sum(n > 0 and n % 100 == 0 for n in lists)
    assert full == 2  # rewards and members
    assert sent_carried == sent_ended + full  # the empty pages that end them were read too
