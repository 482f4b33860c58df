"""One router per resource group of the service interface."""

from fastapi import APIRouter

from . import benefits, catalog, management, oauth, programs, promotions, rewards

ROUTERS: list[APIRouter] = [
    oauth.router,
    promotions.router,
    catalog.router,
    rewards.router,
    benefits.router,
    programs.router,
    management.router,
]
