"""The sandbox's FastAPI application: routers, auth, errors and faults put together."""

from __future__ import annotations

from fastapi import FastAPI

from . import admin, openapi
from .config import SandboxConfig
from .errors import install_handlers
from .faults import FaultMiddleware
from .guard import BODY_TIMEOUT, GuardMiddleware
from .routers import ROUTERS
from .services.programs import settle_interrupted_activations
from .state import SandboxState


def create_app(
    config: SandboxConfig | None = None, *, body_timeout: float = BODY_TIMEOUT
) -> FastAPI:
    """A ready-to-serve sandbox holding the program ``config.data`` (the demo by default).

    ``body_timeout``: seconds a request body may stall before it is answered 408.
    No trailing-slash redirects: a path with a stray ``/`` is a 404 like any other.
    """
    state = SandboxState.create(config or SandboxConfig())
    settle_interrupted_activations(state)
    app = FastAPI(
        title="lyt_toolkit sandbox",
        version="1",
        description="A local, stateful implementation of the loyalty service interface.",
        redirect_slashes=False,
    )
    app.state.sandbox = state
    install_handlers(app)
    app.add_middleware(FaultMiddleware)
    app.add_middleware(GuardMiddleware, body_timeout=body_timeout)
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(admin.router)
    openapi.install(app, ROUTERS)
    return app
