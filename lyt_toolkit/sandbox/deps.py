"""FastAPI dependencies the routers and auth rules declare in their signatures."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .state import SandboxState


async def get_state(request: Request) -> SandboxState:
    """FastAPI dependency: the state of the app serving this request (``async``: FastAPI
    runs a plain function in its thread pool, a thread hop on every request)."""
    return request.app.state.sandbox


StateDep = Annotated[SandboxState, Depends(get_state)]
"""The state of the sandbox serving the request."""
