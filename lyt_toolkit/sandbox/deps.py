"""FastAPI dependencies the routers and auth rules declare in their signatures."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .state import SandboxState


def get_state(request: Request) -> SandboxState:
    """FastAPI dependency: the state of the app serving this request."""
    return request.app.state.sandbox


StateDep = Annotated[SandboxState, Depends(get_state)]
"""The state of the sandbox serving the request."""
