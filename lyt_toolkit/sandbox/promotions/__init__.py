"""The promotion engine of the sandbox: tier validation and tier listing.

Pure functions over the JSON documents the sandbox stores; no storage, no HTTP.
The router in ``sandbox/routers/promotions.py`` feeds them and renders their
exceptions (``ReferenceNotFound`` -> 404, ``ListParameterError`` -> 400).
"""

from .catalog import SHIPPING_PRODUCT, Catalog, InMemoryCatalog, ReferenceNotFound
from .discounts import UnsupportedDiscount
from .listing import ListParameterError, list_tiers, tier_resource
from .validate import tracking_id, validate_tier

__all__ = [
    "SHIPPING_PRODUCT",
    "Catalog",
    "InMemoryCatalog",
    "ListParameterError",
    "ReferenceNotFound",
    "UnsupportedDiscount",
    "list_tiers",
    "tier_resource",
    "tracking_id",
    "validate_tier",
]
