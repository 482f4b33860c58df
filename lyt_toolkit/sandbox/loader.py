"""Load a program file (format ``lyt-program/1``, see data/README.md) into the store.

Relative times ("now-3d") are resolved against the sandbox clock, and each
resource passes through its model so omitted settings take the service's
defaults before the sandbox ever answers with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .. import models
from .errors import ServiceError
from .store import Store
from .timeexpr import resolve_tree

FORMAT = "lyt-program/1"


@dataclass(frozen=True)
class Kind:
    """One section of a program file and where its documents live in the store."""

    key: str
    model: str | None = None
    scope_field: str | None = None
    listed: Callable[[dict[str, Any]], bool] = lambda doc: True


KINDS: tuple[Kind, ...] = (
    Kind("card_definitions", "CardDefinition", listed=lambda doc: doc.get("status") != "DELETED"),
    Kind("tier_structures", "TierStructure"),
    Kind("rewards", "Reward"),
    Kind("benefits", "Benefit", listed=lambda doc: doc.get("status") != "DELETED"),
    Kind("programs", "Program"),
    Kind("members", "Member", scope_field="program_id"),
    Kind("cards", "Card", scope_field="member_id"),
    Kind("pending_buckets", "PendingBucket", scope_field="card_id"),
    Kind("card_transactions", "CardTransaction", scope_field="card_id"),
    Kind("products"),
    Kind("skus"),
    Kind("campaigns"),
    Kind("customers"),
    Kind("orders"),
    Kind("promotion_tiers"),
    Kind("projects"),
    Kind("webhooks", scope_field="project_id"),
)
KIND_BY_KEY = {k.key: k for k in KINDS}


class ProgramFileError(ValueError):
    """The program file is not in the expected format; the message names the place."""


def normalize(kind: Kind, doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the service would answer with it (defaults filled in)."""
    model = getattr(models, kind.model) if kind.model else None
    if model is None:
        return doc
    try:
        return model.model_validate(doc).wire()
    except ValueError as exc:
        raise ProgramFileError(f"{kind.key} {doc.get('id', '?')}: {exc}") from exc


def load_program(store: Store, program: dict[str, Any], now: datetime) -> None:
    """Put every resource of ``program`` into ``store``."""
    fmt = program.get("format", FORMAT)
    if fmt != FORMAT:
        raise ProgramFileError(f"format: expected {FORMAT!r}, got {fmt!r}")
    unknown = set(program) - set(KIND_BY_KEY) - {"format", "description", "now"}
    if unknown:
        raise ProgramFileError(f"unknown sections: {', '.join(sorted(unknown))}")
    resolved = resolve_tree({k: program.get(k, []) for k in KIND_BY_KEY}, now)
    for kind in KINDS:
        rows = []
        for i, raw in enumerate(resolved[kind.key]):
            if not isinstance(raw, dict) or "id" not in raw:
                raise ProgramFileError(f"{kind.key}[{i}]: each entry needs an 'id'")
            doc = normalize(kind, raw)
            scope = str(doc.get(kind.scope_field, "")) if kind.scope_field else ""
            rows.append((doc, scope, kind.listed(doc)))
        store.put_many(kind.key, rows)


def store_resource(store: Store, key: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Normalise and save one resource created or changed by a request."""
    kind = KIND_BY_KEY[key]
    try:
        doc = normalize(kind, doc)
    except ProgramFileError as exc:  # a sandbox bug, not the client's: surface it plainly
        raise ServiceError(500, details=str(exc)) from exc
    scope = str(doc.get(kind.scope_field, "")) if kind.scope_field else ""
    store.put(key, doc, scope=scope, listed=kind.listed(doc))
    return doc
