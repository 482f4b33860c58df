"""FastAPI dependencies the routers and auth rules declare in their signatures."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .state import SandboxState


def state_of(request: Request) -> SandboxState:
    """The state of the app serving ``request``: for a dependency taking the request alone
    (each dependency a dependency takes is one more for FastAPI to solve on every call,
    ``StateDep`` included, however often it is cached)."""
    state: SandboxState = request.app.state.sandbox
    return state


async def get_state(request: Request) -> SandboxState:
    """FastAPI dependency: ``state_of`` the request (``async``: FastAPI runs a plain
    function in its thread pool, a thread hop on every request)."""
    return state_of(request)


StateDep = Annotated[SandboxState, Depends(get_state)]
"""The state of the sandbox serving the request."""
