"""The sandbox's FastAPI application: routers, auth, errors and faults put together."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache, partial

from fastapi import FastAPI
from starlette.routing import BaseRoute

from . import admin, openapi
from .config import SandboxConfig, held_program
from .date_header import ClockDateMiddleware
from .fault_middleware import FaultMiddleware
from .guard import BODY_TIMEOUT, GuardMiddleware
from .handlers import install_handlers
from .holds_header import HoldsMiddleware, state_held
from .loader import ProgramFileError
from .quota import Budget, configured_plan, program_plan
from .quota_ledger import Ledger, UnreadableBudget
from .quota_middleware import QuotaMiddleware
from .routers import ROUTERS
from .services.programs import settle_open_activations
from .state import SandboxState


def create_app(
    config: SandboxConfig | None = None,
    *,
    body_timeout: float = BODY_TIMEOUT,
    state: SandboxState | None = None,
) -> FastAPI:
    """A ready-to-serve sandbox holding the program ``config.data`` (the demo by default).

    The call budget is ``config.plan``, else the plan of the program's first project,
    else ``unlimited`` (see ``quota``); with ``config.db``, the one a previous run left
    there is taken up (``quota_ledger.UnreadableBudget`` when it cannot be), and the app's
    shutdown commits its counts. Every answer names what it holds (``holds_header``;
    ``app.state.holds()``): its program and settings, then the instance of its state.
    ``body_timeout``: seconds a request body may stall before it is answered 408.
    No trailing-slash redirects: a path with a stray ``/`` is a 404 like any other.
    ``state``: the sandbox already loaded from ``config`` (``SandboxState.create``), else
    loaded here.
    """
    config = config or SandboxConfig()
    plan = configured_plan(config.plan)
    state = state or SandboxState.create(config)
    try:
        plan = plan or program_plan(state.program)
    except ValueError as exc:
        state.store.close()
        raise ProgramFileError(str(exc)) from None
    try:
        budget = Budget(plan, state.clock, Ledger(state.store) if config.db else None)
    except UnreadableBudget:
        state.store.close()
        raise
    settle_open_activations(state)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        budget.save()  # the calls counted since the last commit

    app = FastAPI(
        title="lyt_toolkit sandbox",
        version="1",
        description="A local, stateful implementation of the loyalty service interface.",
        redirect_slashes=False,
        lifespan=lifespan,
    )
    app.state.sandbox = state
    app.state.budget = budget
    install_handlers(app)
    app.add_middleware(FaultMiddleware)
    app.add_middleware(QuotaMiddleware, budget=budget)
    app.add_middleware(GuardMiddleware, body_timeout=body_timeout)
    app.add_middleware(ClockDateMiddleware, clock=state.clock)
    app.state.holds = holds = partial(state_held, cache(partial(held_program, config)), state)
    app.add_middleware(HoldsMiddleware, holds=holds)
    app.router.routes.extend(_included_routes())
    openapi.install(app, ROUTERS)
    return app


@cache
def _included_routes() -> list[BaseRoute]:
    """The routes of the service's routers and of the admin one, made once a process and
    shared by every app: each already holds its full path and its router's dependencies,
    and works out its parameters and response model when made, not on an app's first
    request. Not ``include_router``: FastAPI keeps an included router as one route of its
    own that matches a request twice, through a layer of its own per router (about a tenth
    of the sandbox's CPU per request). The endpoints read their sandbox from the request's
    app, not from the route. No dependency overrides (``app.dependency_overrides``): the
    sandbox sets none."""
    return [route for router in (*ROUTERS, admin.router) for route in router.routes]
