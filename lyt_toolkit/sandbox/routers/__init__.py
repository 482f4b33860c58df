"""One router per resource group of the service interface."""

from fastapi import APIRouter

from . import benefits, catalog, management, oauth, programs, rewards

ROUTERS: list[APIRouter] = [
    oauth.router,
    catalog.router,
    rewards.router,
    benefits.router,
    programs.router,
    management.router,
]
try:  # the promotions router lands separately
    from . import promotions

    ROUTERS.append(promotions.router)
except ImportError:  # pragma: no cover
    pass
