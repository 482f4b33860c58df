"""The economics test program, pulled over real HTTP from a sandbox, and built from frames."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.frames import (
    benefits_frame,
    card_definitions_frame,
    reward_costs_frame,
    rewards_frame,
)
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

from .programs import NOW, economics_program, what_if_program


@pytest.fixture(scope="module")
def pulled(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> ProgramSnapshot:
    """The economics program as a sandbox serves it, pulled once per module."""
    with start_sandbox(economics_program(), now=NOW) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def holding(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> ProgramSnapshot:
    """The economics program with members holding cards (``what_if_program``), pulled."""
    with start_sandbox(what_if_program(), now=NOW) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


@pytest.fixture(scope="module")
def generated(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> ProgramSnapshot:
    """A generated program of 300 members (seed 9), pulled whole: what samples are drawn from."""
    program = generate_program(rewards=30, benefits=10, card_definitions=4, members=300, seed=9)
    with start_sandbox(program) as sb, make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


def snapshot_of(program: dict[str, Any]) -> ProgramSnapshot:
    """A snapshot built from a program's records without a sandbox (``from_frames``)."""
    rewards = program.get("rewards", [])
    return ProgramSnapshot.from_frames(
        {
            "card_definitions": card_definitions_frame(program.get("card_definitions", [])),
            "benefits": benefits_frame(program.get("benefits", [])),
            "rewards": rewards_frame(rewards),
            "reward_costs": reward_costs_frame(rewards),
        },
        pulled_at=NOW,
    )
