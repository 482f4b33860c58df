"""FastAPI dependencies the routers and auth rules declare in their signatures."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from .state import SandboxState, get_state

StateDep = Annotated[SandboxState, Depends(get_state)]
"""The state of the sandbox serving the request."""
