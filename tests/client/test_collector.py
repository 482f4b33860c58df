"""A pull pauses Python's cycle collector while it builds its frames, and resumes it as
it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.client._collector import collector_paused


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_a_pull_pauses_the_collector_and_resumes_it(client: LoyaltyClient) -> None:
    seen: list[bool] = []
    frame = client.rewards.frame(limit=3, progress=lambda done, total: seen.append(gc.isenabled()))
    assert len(frame) > 3  # several pages, each counted while the pull ran
    assert seen[1:] and not any(seen[1:])  # the first call comes before the pull starts
    assert gc.isenabled()


def test_a_snapshot_pauses_the_collector_and_resumes_it(client: LoyaltyClient) -> None:
    seen: list[bool] = []
    ProgramSnapshot.pull(client, progress=lambda done, total: seen.append(gc.isenabled()))
    assert False in seen
    assert gc.isenabled()


def test_a_caller_who_disabled_the_collector_finds_it_disabled(client: LoyaltyClient) -> None:
    gc.disable()
    client.rewards.frame(limit=3, progress=False)
    assert not gc.isenabled()


def test_overlapping_pulls_resume_the_collector_when_the_last_ends() -> None:
    first, second = collector_paused(), collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_failed_pull_resumes_the_collector() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the service went away")
    assert gc.isenabled()
