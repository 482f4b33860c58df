"""Load a program file (format ``lyt-program/1``, see data/README.md) into the store.

Relative times ("now-3d") are resolved against the sandbox clock, and each
resource passes through its model so omitted settings take the service's
defaults before the sandbox ever answers with them.
"""

from __future__ import annotations

import contextlib
import json
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_json

from .. import models
from .._collector import collector_paused
from .._json_file import shown
from .._secret import MaskedError
from ..models.enums import PendingBucketStatus
from .bulk import section_schema
from .bulkkeys import KeyedLoad
from .clock import parse_instant
from .errors import ServiceError
from .placeholders import placeholder_problems
from .programcheck import (
    collect_references,
    dangling_references,
    pending_mismatches,
    unknown_model_keys,
    unknown_record_keys,
)
from .programtext import lone_surrogate_problems
from .quota import plan_problems
from .store import DuplicateId, Store
from .timeexpr import DATE_ONLY_KEYS, RelativeFormatter, is_time_key, resolve_tree

FORMAT = "lyt-program/1"


@dataclass(frozen=True)
class Kind:
    """One section of a program file and where its documents live in the store."""

    key: str
    model: str | None = None
    scope_field: str | None = None
    listed: Callable[[dict[str, Any]], bool] = lambda doc: True
    unique_listed: str | None = None
    """A field no two listed documents of this kind share (the store's unique index)."""

    def scope(self, doc: dict[str, Any]) -> str:
        """The scope a document of this kind is listed within ("" for top-level kinds)."""
        return str(doc.get(self.scope_field, "")) if self.scope_field else ""


_LISTED_BUCKETS = PendingBucketStatus.PENDING.value
"""The one status of the pending buckets a card's list holds, as the service lists them."""


def relist_buckets(store: Store) -> None:
    """List each stored pending bucket as ``KINDS`` lists it: by its status (the column the
    store copies out of it), PENDING alone. A database an older build loaded listed every
    bucket, an ACTIVATED or CANCELED one too; resumed, it lists as the service does."""
    with store.transaction() as conn:
        conn.execute(
            "UPDATE resources SET listed = (status IS ?)"
            " WHERE kind = 'pending_buckets' AND listed != (status IS ?)",
            (_LISTED_BUCKETS, _LISTED_BUCKETS),
        )


KINDS: tuple[Kind, ...] = (
    Kind("card_definitions", "CardDefinition", listed=lambda doc: doc.get("status") != "DELETED"),
    Kind("tier_structures", "TierStructure"),
    Kind("rewards", "Reward"),
    Kind(
        "benefits",
        "Benefit",
        listed=lambda doc: doc.get("status") != "DELETED",
        unique_listed="name",
    ),
    Kind("programs", "Program"),
    Kind("members", "Member", scope_field="program_id"),
    Kind("cards", "Card", scope_field="member_id"),
    Kind(
        "pending_buckets",
        "PendingBucket",
        scope_field="card_id",
        listed=lambda doc: doc.get("status") == _LISTED_BUCKETS,  # the list holds PENDING only
    ),
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


class ProgramFileError(MaskedError, ValueError):
    """The program file is not in the expected format; the message names the place. A token
    it quotes of the file (an ID, a key, a value) shows as ``***`` where a client of the
    process holds it or the environment or ``.env`` sets it (``_secret.MaskedError``)."""


@contextlib.contextmanager
def program_from(source: str | None) -> Iterator[None]:
    """In the block, a program found wrong names where it came from first, ``SOURCE:
    problem`` (``source``: a file as the caller gave it, ``--data PATH``, ``data PATH``; None:
    as raised), its type kept: a ``ProgramFileError``, or a file that is not JSON
    (``json.JSONDecodeError``)."""
    if source is None:
        yield
        return
    try:
        yield
    except ProgramFileError as exc:
        raise ProgramFileError(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise json.JSONDecodeError(f"{source}: {exc.msg}", exc.doc, exc.pos) from None


class ProgramDataWarning(UserWarning):
    """The program file loads, but its data disagrees with itself (a copy of production
    may); the message names the record."""


def program_now(program: dict[str, Any]) -> datetime | None:
    """The instant the program's ``now`` names, None without one; ``ProgramFileError`` naming
    ``now`` when it is not an ISO 8601 instant."""
    now = program.get("now")
    if now is None:
        return None
    try:
        return parse_instant(now)
    except (ValueError, TypeError, AttributeError, OverflowError):
        raise ProgramFileError(f"now: {shown(now)} is not an ISO 8601 instant") from None


def normalize(kind: Kind, doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the service would answer with it (defaults filled in)."""
    parsed = _parsed(kind, doc)
    return doc if parsed is None else parsed.wire()


def _parsed(kind: Kind, doc: dict[str, Any], where: str | None = None) -> models.ApiModel | None:
    """``doc`` validated by its kind's model (None for kinds without one).

    A document the model refuses raises ``ProgramFileError``, one line per problem,
    each starting with ``where`` (default: the section and the record's id).
    """
    model = getattr(models, kind.model) if kind.model else None
    if model is None:
        return None
    where = where or f"{kind.key} {doc.get('id', '?')}"
    try:
        parsed: models.ApiModel = model.model_validate(doc)
    except ValidationError as exc:
        lines = [
            f"{where}: {'.'.join(map(str, e['loc'])) or '(record)'}: {e['msg']}"
            for e in exc.errors()
        ]
        raise ProgramFileError("\n".join(lines)) from exc
    except ValueError as exc:
        raise ProgramFileError(f"{where}: {exc}") from exc
    return parsed


_MAYBE_RELATIVE = re.compile(rb'"\s*now')


def resolve_times(section: list[Any], now: datetime) -> list[Any]:
    """``resolve_tree`` for one section, fast on large files.

    Walking 100,000 documents in Python is slow. So the expressions of the records' own
    time keys (``"created_at": "now-40d"``, nearly all of them) are spelled first, key by
    key across the section, a record holding one copied (the program keeps its
    expressions for a reload); only a section whose JSON text still holds a ``"now`` (a
    nested time, or text that just reads like one) is walked by ``resolve_tree``.
    """
    section = _own_times_spelled(section, RelativeFormatter(now).spelled)
    text = to_json(section)
    if b"now" not in text or not _MAYBE_RELATIVE.search(text):  # the first is 2x faster
        return section
    resolved: list[Any] = resolve_tree(section, now)
    return resolved


def _own_times_spelled(section: list[Any], spelled: Callable[..., str | None]) -> list[Any]:
    """``section`` with each relative expression among its records' own time values spelled
    (a record holding one copied; nested values are left to ``resolve_tree``)."""
    records = [(i, record) for i, record in enumerate(section) if type(record) is dict]
    keys = set().union(*(record for _, record in records))
    changed: dict[int, dict[str, str]] = {}
    for key in filter(is_time_key, keys):
        date_only = key in DATE_ONLY_KEYS
        for i, record in records:
            value = record.get(key)
            text = spelled(value, date_only=date_only) if type(value) is str else None
            if text is not None:
                changed.setdefault(i, {})[key] = text
    if not changed:
        return section
    return [
        {**record, **changed[i]} if i in changed else record for i, record in enumerate(section)
    ]


MAX_PROBLEMS_SHOWN = 50

TOP_LEVEL_KEYS = frozenset({"format", "description", "now", "deliberately_missing"})

CHUNK = 1000
"""Records taken through the load together, from their times to the store: only one
chunk's models and documents exist at a time. Loading a 50,000-reward program then
peaks at about 290 MiB of RSS instead of 580 MiB, in the same time."""


Rows = list[tuple[dict[str, Any], str, bool]]
"""``(doc, scope, listed)``: documents as the store takes them."""


def load_program(store: Store, program: dict[str, Any], now: datetime) -> None:
    """Put every resource of ``program`` into ``store``, after checking all of it.

    ``ProgramFileError`` lists every problem found, one line each, and nothing is
    written: the chunks stored while checking go in one transaction (joining the
    caller's), which the error rolls back.
    """
    with collector_paused(), store.transaction():
        _check(program, now, store.insert_many)


def checked_documents(program: dict[str, Any], now: datetime) -> dict[str, Rows]:
    """The ``(doc, scope, listed)`` rows of each section, or ``ProgramFileError`` with one
    line per problem: format, unknown sections or keys, IDs missing or repeated, invalid
    records, dangling references."""
    documents: dict[str, Rows] = {kind.key: [] for kind in KINDS}
    _check(program, now, lambda key, rows: documents[key].extend(rows))
    return documents


def _check(program: dict[str, Any], now: datetime, keep: Callable[[str, Rows], None]) -> None:
    """Check ``program``, handing ``keep`` each chunk's rows as soon as they are made;
    ``ProgramFileError`` at the end if anything was wrong."""
    _refuse(list(lone_surrogate_problems(program, frozenset(KIND_BY_KEY))))  # text first
    fmt = program.get("format", FORMAT)
    if fmt != FORMAT:
        raise ProgramFileError(f"format: expected {FORMAT!r}, got {fmt!r}")
    unknown = set(program) - set(KIND_BY_KEY) - TOP_LEVEL_KEYS
    if unknown:
        raise ProgramFileError(f"unknown sections: {', '.join(sorted(unknown))}")
    missing = program.get("deliberately_missing", [])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise ProgramFileError("deliberately_missing: must be a list of IDs")
    problems: list[str] = []
    sections: dict[str, list[Any]] = {}
    for key in KIND_BY_KEY:
        sections[key] = program.get(key, [])
        if not isinstance(sections[key], list):
            problems.append(f"{key}: must be a list of records")
            sections[key] = []
    # What the checks after the sections read: IDs, marks, points, never a time (the
    # references are collected as the sections go), so a section whose times are spelled
    # while it is validated is kept as written.
    checked: dict[str, list[Any]] = {}
    present: set[str] = set()
    load = KeyedLoad(RelativeFormatter(now))
    for kind in KINDS:
        section, checked[kind.key] = sections[kind.key], []
        schema = section_schema(kind.model) if kind.model else None
        first_index: dict[str, int] = {}
        holders: dict[Any, str] = {}  # a unique field's value -> the listed record holding it
        for start in range(0, len(section), CHUNK):
            chunk = section[start : start + CHUNK]
            keyed = schema is not None and schema.keyed
            if not keyed:
                chunk = resolve_times(chunk, now)
            records = _records(kind, chunk, start, first_index, problems)
            if keyed and len(records) < len(chunk):  # the plain way, all of the chunk
                chunk, keyed = resolve_times(chunk, now), False
                records = [(i, chunk[i - start]) for i, _ in records]
            if not keyed:
                collect_references(chunk, load.references)
            checked[kind.key] += chunk
            docs = _section_documents(kind, records, problems, load if keyed else None)
            present.update(doc["id"] for doc in docs)
            rows = [(doc, kind.scope(doc), kind.listed(doc)) for doc in docs]
            if kind.unique_listed:
                _check_unique(kind, rows, first_index, holders, problems)
            keep(kind.key, rows)
    problems.extend(dangling_references(checked, frozenset(missing), load.references))
    problems.extend(placeholder_problems(checked))
    problems.extend(plan_problems(checked["projects"]))
    problems.extend(
        f"deliberately_missing: {m} is the ID of a record" for m in missing if m in present
    )
    _refuse(problems)
    _warn_pending_mismatches(checked)


def _refuse(problems: list[str]) -> None:
    """``ProgramFileError`` listing the first ``MAX_PROBLEMS_SHOWN`` of ``problems``, if any."""
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        if len(problems) > len(shown):
            shown.append(f"... and {len(problems) - len(shown)} more problems")
        raise ProgramFileError("\n".join(shown))


def _warn_pending_mismatches(sections: dict[str, list[Any]]) -> None:
    """A ``ProgramDataWarning`` per card whose pending points total differs from its PENDING
    buckets; the file loads as written."""
    for index, card, total, held in pending_mismatches(
        sections["cards"], sections["pending_buckets"]
    ):
        warnings.warn(
            f"{_where(KIND_BY_KEY['cards'], index, card)}: pending points total {total}, "
            f"its PENDING buckets hold {held}; loaded as written",
            ProgramDataWarning,
            stacklevel=2,
        )


def _records(
    kind: Kind, chunk: list[Any], start: int, first_index: dict[str, int], problems: list[str]
) -> list[tuple[int, dict[str, Any]]]:
    """``(index in the section, record)`` of the chunk's records that have an ID not seen
    before in the section (``first_index`` remembers them); the others are problems."""
    records = []
    for i, raw in enumerate(chunk, start):
        if not isinstance(raw, dict) or "id" not in raw:
            problems.append(f"{kind.key}[{i}]: each entry needs an 'id'")
            continue
        if type(raw["id"]) is not str:  # 1 and "1" would be one ID in the store
            problems.append(f"{kind.key}[{i}]: id: must be a string, got {raw['id']!r}")
            continue
        if raw["id"] in first_index:
            where = _where(kind, i, raw)
            problems.append(f"{where}: the same id as {kind.key}[{first_index[raw['id']]}]")
            continue
        first_index[raw["id"]] = i
        records.append((i, raw))
    return records


def _check_unique(
    kind: Kind,
    rows: Rows,
    first_index: dict[str, int],
    holders: dict[Any, str],
    problems: list[str],
) -> None:
    """A problem for each listed document whose ``kind.unique_listed`` value an earlier
    listed one of the section holds (``holders`` remembers them across chunks): the
    store's unique index would otherwise refuse it with a bare ``IntegrityError``. Values
    compare exactly, as the index does."""
    field = kind.unique_listed
    assert field is not None
    for doc, _, listed in rows:
        if not listed:
            continue
        value = doc.get(field)
        where = _where(kind, first_index[doc["id"]], doc)
        if value in holders:
            problems.append(
                f"{where}: {field}: {value!r} is also the {field} of {holders[value]}"
                f" (no two {kind.key} that are listed may share a {field})"
            )
        else:
            holders[value] = where


def _where(kind: Kind, index: int, record: dict[str, Any]) -> str:
    """How a problem names a record: its section, index and ID."""
    return f"{kind.key}[{index}] {record['id']}"


@cache
def _section_adapter(model: str) -> TypeAdapter[list[Any]]:
    """A section's validator and serializer: a list of ``model``, in one pydantic-core call."""
    item: Any = getattr(models, model)
    return TypeAdapter(list[item])


def _section_documents(
    kind: Kind,
    records: list[tuple[int, dict[str, Any]]],
    problems: list[str],
    load: KeyedLoad | None = None,
) -> list[dict[str, Any]]:
    """The valid ``(index, record)`` of a section as the service answers with them, and
    their problems added to ``problems`` in record order.

    Records that all pass, none holding an undeclared key, are validated straight into
    their documents in one pydantic-core call (``bulk``: no model is built), which also
    spells their relative times and collects their references into ``load`` when given
    (otherwise their times are spelled already and their references collected).
    Otherwise the model validates and dumps them in one pass each, and with a refused
    record among them they are gone through one by one, so that each problem names its
    record and key.
    """
    if kind.model is None:
        for i, raw in records:
            problems.extend(
                f"{_where(kind, i, raw)}: unknown key {p!r}"
                for p in unknown_record_keys(kind.key, raw)
            )
        return [raw for _, raw in records]
    raws = [raw for _, raw in records]
    schema = section_schema(kind.model)
    if schema is not None:
        try:
            return schema.documents(raws, load)
        except (ValidationError, ValueError):
            pass  # the model says which record and key
    if load is not None:
        collect_references(raws, load.references)
        raws = resolve_times(raws, load.times.now)
        records = [(i, raw) for (i, _), raw in zip(records, raws, strict=True)]
    adapter = _section_adapter(kind.model)
    try:
        parsed = adapter.validate_python(raws)
    except (ValidationError, ValueError):
        return _record_by_record(kind, records, problems)
    for (i, raw), model in zip(records, parsed, strict=True):
        problems.extend(
            f"{_where(kind, i, raw)}: unknown key {path!r}" for path in unknown_model_keys(model)
        )
    docs: list[dict[str, Any]] = adapter.dump_python(parsed, mode="json", by_alias=True)
    return docs


def _record_by_record(
    kind: Kind, records: list[tuple[int, dict[str, Any]]], problems: list[str]
) -> list[dict[str, Any]]:
    docs = []
    for i, raw in records:
        where = _where(kind, i, raw)
        try:
            parsed = _parsed(kind, raw, where)
        except ProgramFileError as exc:
            problems.extend(str(exc).splitlines())
            continue
        assert parsed is not None  # only kinds with a model come here
        problems.extend(f"{where}: unknown key {path!r}" for path in unknown_model_keys(parsed))
        docs.append(parsed.wire())
    return docs


def _normalized(key: str, doc: dict[str, Any]) -> tuple[Kind, dict[str, Any]]:
    kind = KIND_BY_KEY[key]
    try:
        return kind, normalize(kind, doc)
    except ProgramFileError as exc:  # a sandbox bug, not the client's: surface it plainly
        raise ServiceError(500, details=str(exc)) from exc


def store_resource(store: Store, key: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Normalise and save one resource changed by a request."""
    kind, doc = _normalized(key, doc)
    store.put(key, doc, scope=kind.scope(doc), listed=kind.listed(doc))
    return doc


def create_resource(store: Store, key: str, doc: dict[str, Any]) -> dict[str, Any]:
    """Normalise and save one resource created by a request; an ID already taken fails
    the request rather than overwrite what is there."""
    kind, doc = _normalized(key, doc)
    try:
        store.insert(key, doc, scope=kind.scope(doc), listed=kind.listed(doc))
    except DuplicateId as exc:
        raise ServiceError(500, details=f"generated ID collision, nothing written: {exc}") from exc
    return doc
