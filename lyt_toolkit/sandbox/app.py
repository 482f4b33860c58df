"""The sandbox's FastAPI application: routers, auth, errors and faults put together."""

from __future__ import annotations

from fastapi import FastAPI

from . import admin, openapi
from .config import SandboxConfig
from .errors import install_handlers
from .faults import FaultMiddleware
from .routers import ROUTERS
from .services.programs import settle_interrupted_activations
from .state import SandboxState


def create_app(config: SandboxConfig | None = None) -> FastAPI:
    """A ready-to-serve sandbox holding the program ``config.data`` (the demo by default)."""
    state = SandboxState.create(config or SandboxConfig())
    settle_interrupted_activations(state)
    app = FastAPI(
        title="lyt_toolkit sandbox",
        version="1",
        description="A local, stateful implementation of the loyalty service interface.",
    )
    app.state.sandbox = state
    install_handlers(app)
    app.add_middleware(FaultMiddleware)
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(admin.router)
    openapi.install(app, ROUTERS)
    return app
