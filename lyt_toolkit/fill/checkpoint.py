"""A pull's checkpoint: every answer kept in a folder as it arrives, so the pull can resume.

``Checkpoint(folder, pull=...)`` is the ``Recorder`` a checkpointed pull gives its client
(``client.recording``). A GET whose answer the folder holds is answered from it, sending
nothing; every other answer is stored as it arrives (``answers.AnswerStore``). The pull
itself runs as it always does, so a resumed pull reads exactly the pages and members an
uninterrupted one would, and builds the same frames from the same answers.

Cursors: a list walk that stopped mid-way (a crash, or hours of waiting for budget windows)
holds a cursor that the service may have forgotten. A page whose cursor came from an
earlier run, or from an answer older than ``CURSOR_FRESH``, is read by ``created_at``
instead: the same query, without the cursor, filtered to what comes after the last item
stored (``$before`` its ``created_at`` plus 1 ms in the newest-first order, ``$after`` less
1 ms in the oldest-first one: the filters are strict, and items sharing that instant are
read again and dropped by ID). Lists with another order keep their cursor.

``folder/checkpoint.json`` records what the pull is (source, kinds, sample, share) and when
it started on the service's clock; a later call with other arguments is refused, naming
what differs, since its answers would not be the same pull's. It records too what the
pull's runs spent of the budget window the last of them was in (``window_ledger``), so a run
resumed in that window keeps to the share the first took there. One writer at a time
(``_lock.held``): a second pull on the folder is refused while the first runs.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

from .._json_file import json_file, shown
from .._lock import held
from .._services import holders_differ, same_address
from ..client.allowance import WindowCalls
from ..client.recording import Asked
from .answers import Answer, AnswerStore, CheckpointError, held_answers, stored_time
from .window_ledger import WINDOW, earlier_calls, entry_of, entry_problem, recorded_window

__all__ = ["CURSOR_FRESH", "Checkpoint", "CheckpointError", "kind_of", "recorded_pull"]

CURSOR_FRESH = 600.0
"""Seconds a cursor is sent as the service gave it; an older one is read by ``created_at``."""

MANIFEST = "checkpoint.json"
MAX_MANIFEST = 2**20
"""The largest manifest read (one records a pull's arguments and times: a few hundred bytes)."""
HOLDS = "holds"
"""The key of a checkpoint's pull naming what the sandbox that answered it holds."""
FORMAT = 1
_ONE_MS = timedelta(milliseconds=1)
_CREATED = "filters[created_at][conditions][{}]"
_MOST_DIFFERENCES = 5
"""Keys a refusal names that differ between a manifest's pull and this one."""
_SERVED_HERE = re.compile(r"^(sandbox of .+), on port (\d+)$")
"""How a pull in the process serving a sandbox named it before it named its address and
what it holds (``_services``), as any other process does."""

_KINDS = (
    (
        re.compile(r"^/v2/loyalties/programs/[^/]+/members/[^/]+/cards/[^/]+/pending-points$"),
        "pending_buckets",
    ),
    (re.compile(r"^/v2/loyalties/programs/[^/]+/members/[^/]+$"), "cards"),
    (re.compile(r"^/v2/loyalties/programs/[^/]+/members$"), "members"),
    (re.compile(r"^/v2/loyalties/programs(/[^/]+)?$"), "programs"),
    (re.compile(r"^/v2/loyalties/rewards(/[^/]+)?$"), "rewards"),
    (re.compile(r"^/v2/loyalties/benefits(/[^/]+)?$"), "benefits"),
    (re.compile(r"^/v2/loyalties/card-definitions(/[^/]+)?$"), "card_definitions"),
    (re.compile(r"^/v2/loyalties/tier-structures(/[^/]+)?$"), "tier_structures"),
)


def kind_of(path: str) -> str | None:
    """The frame kind a GET of ``path`` reads (rewards feed ``reward_costs`` too)."""
    return next((kind for pattern, kind in _KINDS if pattern.match(path)), None)


def _differs(before: Mapping[str, Any], pull: Mapping[str, Any]) -> str:
    """How the pull a manifest records (``before``) differs from ``pull``: ``KEY: THERE
    there, NOW now`` for each key that differs (the first ``_MOST_DIFFERENCES``, then how
    many more); for what two sandboxes said they hold (``holds``), then which of its parts
    differ (``_services.holders_differ``). What comes from the file (a key only it gives,
    a value) is quoted through ``shown``: cut short, a bearer token masked."""
    keys = sorted(k for k in {*before, *pull} if not _agree(k, before.get(k), pull.get(k)))
    said = []
    for key in keys[:_MOST_DIFFERENCES]:
        there, now = before.get(key), pull.get(key)
        name = key if key in pull else shown(key)
        line = f"{name}: {shown(there, 200)} there, {now!r} now"
        if key == HOLDS and isinstance(there, str) and isinstance(now, str):
            line += f": {holders_differ(there, now)}"
        said.append(line)
    if len(keys) > _MOST_DIFFERENCES:
        said.append(f"and {len(keys) - _MOST_DIFFERENCES} more")
    return "; ".join(said)


def _agree(key: str, there: Any, now: Any) -> bool:
    """Whether a manifest's ``there`` and this pull's ``now`` are one value of ``key``: a
    source one address, however a loopback host is spelled (``_services.same_address``)."""
    if key == "source" and isinstance(there, str) and isinstance(now, str):
        return same_address(there, now)
    return bool(there == now)


def _pull_of(found: Mapping[str, Any]) -> dict[str, Any]:
    """The pull a read manifest records; a sandbox's name written by the process serving it
    (``HOLDS, on port PORT``, before it was named as in any other process) read as its
    loopback address and what it holds."""
    pull = found.get("pull", {})
    source = pull.get("source")
    named = _SERVED_HERE.match(source) if isinstance(source, str) and HOLDS not in pull else None
    if named is None:
        return dict(pull)
    return {**pull, "source": f"http://127.0.0.1:{named[2]}", HOLDS: named[1]}


def recorded_pull(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """What ``folder``'s manifest says its pull is, read without opening the folder: None
    when it holds no pull yet (no folder, or no manifest in it); ``{}`` when what is there
    cannot be read (opening the folder says why)."""
    try:
        found = _manifest_in(folder)
    except CheckpointError:
        return {}
    return None if found is None else _pull_of(found)


def recorded_last_window(folder: str | os.PathLike[str]) -> WindowCalls | None:
    """The window ``folder``'s manifest says its pull's last run was in (``recorded_window``,
    from the manifest alone), read without opening the folder: None when it holds none or
    cannot be read (opening the folder says why)."""
    try:
        found = _manifest_in(folder)
    except CheckpointError:
        return None
    return None if found is None else recorded_window(found.get(WINDOW), (), 0)


def _manifest_in(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """``folder``'s manifest, read without opening the folder: None when there is none;
    ``CheckpointError`` when it cannot be read."""
    path = Path(folder).expanduser() / MANIFEST
    if not os.path.lexists(path):
        return None
    return _read_manifest(path)


def _read_manifest(path: Path) -> dict[str, Any]:
    """The manifest at ``path``, each key the pull uses checked: one ``CheckpointError`` line
    naming the file and the key otherwise (read as ``_json_file.json_file`` reads)."""
    found, _ = json_file(path, limit=MAX_MANIFEST, what="checkpoint manifest", error=_failure)
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint: {path} is not a checkpoint this toolkit wrote")
    if not isinstance(found.get("pull", {}), dict):
        raise _broken(path, "pull", "must be an object")
    runs = found.get("runs", 0)
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
        raise _broken(path, "runs", "must be a whole number from 0")
    if "pulled_at" in found and _instant(found["pulled_at"]) is None:
        raise _broken(path, "pulled_at", "must be an ISO 8601 instant")
    if WINDOW in found and (problem := entry_problem(found[WINDOW])) is not None:
        raise _broken(path, WINDOW, problem)
    return found


def _failure(message: str) -> CheckpointError:
    return CheckpointError(f"checkpoint: {message}")


def _broken(path: Path, key: str, problem: str) -> CheckpointError:
    return CheckpointError(f"checkpoint: {path}: {key}: {problem}")


@dataclass
class _Walked:
    """What a stored list page says about the walk it belongs to."""

    key: str
    previous: str | None
    """The key of the page whose cursor led here (None for a first page)."""
    created: list[tuple[str, str]] = field(default_factory=list)
    """(id, created_at) of its items, in order."""


class Checkpoint:
    """The answers of one pull under ``folder``; a ``Recorder`` (see the module)."""

    def __init__(self, folder: str | os.PathLike[str], pull: Mapping[str, Any]) -> None:
        self.folder = Path(folder).expanduser()
        self.pull = dict(pull)
        self._stack = ExitStack()
        self._lock = threading.Lock()
        self._store: AnswerStore | None = None
        self.run = 0
        self.manifest: dict[str, Any] = {}
        self._cursor_from: dict[str, str] = {}
        """A cursor -> the key of the page that gave it."""
        self._pages: dict[str, _Walked] = {}
        self._fresh: dict[str, float] = {}
        """Key -> when (monotonic) its answer arrived in this run."""
        self._dropping: dict[str, set[str]] = {}
        """Key of a page read by ``created_at`` -> the IDs already stored to drop from it."""
        self._sent_query: dict[str, list[tuple[str, str]]] = {}
        """Key of a page answered in this run by another query -> that query (no cursor):
        the query its cursor belongs to."""
        self.recalled = 0
        """Answers given back from the folder by this run."""
        self.held: Counter[str] = Counter()
        """Answers the folder held at opening, per frame kind (``kind_of``): the pull asks
        each again as it replays what its earlier runs read (``answering``)."""
        self._recalled_again = 0
        """Answers stored by this run and asked again (given back, not held at opening)."""
        self._window_before: dict[str, Any] | None = None
        """The manifest's ``window`` as the earlier runs left it."""

    # -- opening -----------------------------------------------------------------

    def __enter__(self) -> Checkpoint:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CheckpointError(
                f"checkpoint: {self.folder} cannot be made: {error.strerror or error}"
            ) from None
        try:
            self._stack.enter_context(held(self.folder / "pull", "is being pulled into"))
            self.manifest = self._manifest()
            self._window_before = self.manifest.get(WINDOW)
            self.run = int(self.manifest.get("runs", 0)) + 1
            self.manifest["runs"] = self.run
            self._write_manifest()
            self._store = AnswerStore(self.folder)
            self._stack.callback(self._store.close)
            self._index()
            self.held = Counter(_key_kind(stored.key) or "" for stored in self._store.items())
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def _manifest(self) -> dict[str, Any]:
        path = self.folder / MANIFEST
        if not os.path.lexists(path):
            if held_answers(self.folder):  # whose pull they are is unknown: never mixed
                raise CheckpointError(
                    f"checkpoint: {self.folder} holds answers but no {MANIFEST} saying which"
                    " pull they belong to; give a new folder"
                )
            return {"format": FORMAT, "pull": self.pull, "runs": 0}
        found = _read_manifest(path)
        what = _differs(_pull_of(found), self.pull)
        if what:
            raise CheckpointError(
                f"checkpoint: {self.folder} holds another pull ({what}); resume it with the "
                "same arguments, or give a new folder"
            )
        return found

    def _write_manifest(self) -> None:
        path = self.folder / MANIFEST
        temporary = path.with_name(f".{MANIFEST}.tmp")
        temporary.write_text(json.dumps(self.manifest, indent=2) + "\n", encoding="utf-8")
        temporary.replace(path)

    def note(self, **values: Any) -> None:
        """Record ``values`` in the manifest (the pull's start, its end)."""
        with self._lock:
            self.manifest.update(values)
            self._write_manifest()

    @property
    def finished(self) -> bool:
        """Whether the folder holds a finished pull (a run of it reached its end)."""
        return self.manifest.get("complete") is True

    def note_window(self, use: Callable[[], WindowCalls | None], *, ahead: int = 0) -> None:
        """Record what the pull's runs spent of the window this run is in (``use()``; nothing
        while no answer named it), when it changed. With ``ahead``, before a call goes out
        (``use()`` counting it): nothing when the record already counts that many calls in
        the window, else ``ahead`` more calls than sent, spent ahead (a manifest written
        before each call would cost a file's write and rename a call; a later record without
        ``ahead`` says the calls sent exactly). ``use`` is read under the lock the record is
        written under: of two threads noting at once, the later record counts the later
        calls."""
        with self._lock:
            now = use()
            if now is None:
                return
            if ahead and _covers(self.manifest.get(WINDOW), now):
                return
            entry = entry_of(replace(now, sent=now.sent + ahead))
            if self.manifest.get(WINDOW) != entry:
                self.manifest[WINDOW] = entry
                self._write_manifest()

    def earlier(self, ends: float, limit: int | None) -> WindowCalls | None:
        """What the earlier runs spent of the window ending at ``ends`` under ``limit``
        (``window_ledger.earlier_calls``); None until the folder is open."""
        if self._store is None:
            return None
        return earlier_calls(self._window_before, self._store.items(), self.run, ends, limit)

    def last_window(self) -> WindowCalls | None:
        """The window the last run was in, with what the runs spent there
        (``window_ledger.recorded_window``); None without a record or until the folder is
        open."""
        if self._store is None:
            return None
        return recorded_window(self._window_before, self._store.items(), self.run)

    def _index(self) -> None:
        """The walks of the list pages stored: which cursor each gave, what it held."""
        assert self._store is not None
        for stored in self._store.items():
            if not _listing(stored.key):
                continue
            answer = self._store.get(stored.key)
            if answer is not None:
                self._walked(stored.key, answer.body)

    def _walked(self, key: str, body: bytes) -> dict[str, Any] | None:
        """Index the list page ``body`` stored under ``key``; its JSON (None if no list)."""
        try:
            page = json.loads(body)
        except ValueError:
            return None
        if not isinstance(page, dict) or not isinstance(page.get("data"), list):
            return None
        asked_cursor = _query_value(key, "cursor")
        walked = _Walked(key, None if asked_cursor is None else self._cursor_from.get(asked_cursor))
        for item in page["data"]:
            if isinstance(item, dict) and isinstance(item.get("created_at"), str):
                walked.created.append((str(item.get("id")), item["created_at"]))
        self._pages[key] = walked
        cursor = page.get("cursor")
        following = cursor.get("next") if isinstance(cursor, dict) else None
        if isinstance(following, str):
            self._cursor_from[following] = key
        return page

    @property
    def answering(self) -> int:
        """The answers the folder gives this run instead of calls, counted from its opening:
        every one it held then (each asked again as the pull replays its earlier runs' reads,
        whether given back yet or not), and any this run stored and asked again."""
        return self.held.total() + self._recalled_again

    # -- the Recorder ------------------------------------------------------------

    def recall(self, asked: Asked) -> httpx.Response | Asked:
        """The stored answer to ``asked``, else the request to send for it."""
        assert self._store is not None
        stored = self._store.get(asked.key)
        if stored is not None:
            with self._lock:
                self.recalled += 1
                self._recalled_again += stored.run == self.run
            return _response(asked, stored.body)
        cursor = asked.value("cursor")
        if cursor is None:
            return asked
        with self._lock:
            origin = self._cursor_from.get(cursor)
            arrived = None if origin is None else self._fresh.get(origin)
            if origin is None or (
                arrived is not None and time.monotonic() - arrived < CURSOR_FRESH
            ):
                query = self._sent_query.get(origin) if origin is not None else None
                if query is None:
                    return asked
                # a cursor of a page read by created_at belongs to that query, not the walk's
                return asked.with_params([*query, ("cursor", cursor)])
            instead = self._by_created(asked, origin)
            if instead is not None:
                self._dropping[asked.key] = instead[1]
                return instead[0]
        return asked

    def keep(self, asked: Asked, sent: Asked, answer: httpx.Response) -> httpx.Response | Asked:
        """Store ``answer`` under ``asked``; a page read by ``created_at`` without what was
        stored already (and, when that leaves it empty, the next page asked for instead)."""
        assert self._store is not None
        body = answer.content
        dropping = self._dropping.get(asked.key)
        if dropping is not None and sent != asked:
            page = json.loads(body)
            page["data"] = [i for i in page.get("data", []) if i.get("id") not in dropping]
            following = (page.get("cursor") or {}).get("next")
            if not page["data"] and isinstance(following, str):
                params = [(k, v) for k, v in sent.params if k != "cursor"]
                return sent.with_params([*params, ("cursor", following)])
            body = json.dumps(page, separators=(",", ":")).encode()
        at = _service_time(answer)
        self._store.put(asked.key, Answer(body, at, self.run, _window_end(answer)))
        with self._lock:
            self._dropping.pop(asked.key, None)
            if sent != asked:
                self._sent_query[asked.key] = [(k, v) for k, v in sent.params if k != "cursor"]
            self._fresh[asked.key] = time.monotonic()
            if _listing(asked.key):  # only list pages carry a walk's cursors
                self._walked(asked.key, body)
        return _response(asked, body)

    def _by_created(self, asked: Asked, origin: str) -> tuple[Asked, set[str]] | None:
        """``asked`` (a page after ``origin``) as a ``created_at`` query, and the IDs stored
        at the instant it starts from; None when the walk's order or items do not allow."""
        walked = self._pages.get(origin)
        if walked is None or not walked.created:
            return None
        order = [v for k, v in asked.params if k == "order"]
        if order not in ([], ["-created_at"], ["created_at"]):
            return None
        newest_first = order != ["created_at"]
        last = _instant(walked.created[-1][1])
        if last is None:
            return None
        bound, condition = (
            (last + _ONE_MS, "$before") if newest_first else (last - _ONE_MS, "$after")
        )
        key = _CREATED.format(condition)
        params = [(k, v) for k, v in asked.params if k != "cursor"]
        held_bound = next((_instant(v) for k, v in params if k == key), None)
        if held_bound is None or (bound < held_bound if newest_first else bound > held_bound):
            params = [(k, v) for k, v in params if k != key]
            params.append((key, _wire(bound)))
        return asked.with_params(params), self._stored_from(walked, last, newest_first)

    def _stored_from(self, walked: _Walked, last: datetime, newest_first: bool) -> set[str]:
        """IDs of the walk's stored items within 1 ms of ``last`` (walking back its pages)."""
        ids: set[str] = set()
        page: _Walked | None = walked
        while page is not None:
            near = False
            for item_id, created in page.created:
                at = _instant(created)
                if at is not None and abs(at - last) <= _ONE_MS:
                    ids.add(item_id)
                    near = True
            first = _instant(page.created[0][1]) if page.created else None
            reaches = first is not None and (
                (first <= last + _ONE_MS) if newest_first else (first >= last - _ONE_MS)
            )
            if not (near and reaches) or page.previous is None:
                break
            page = self._pages.get(page.previous)
        return ids

    # -- what was read, when -----------------------------------------------------

    def read_times(self) -> dict[str, tuple[datetime, datetime]]:
        """Per frame kind, the service's time of the first and the last answer stored."""
        assert self._store is not None
        spans: dict[str, list[float]] = {}
        for stored in self._store.items():
            kind, at = _key_kind(stored.key), stored.at
            if kind is None or at is None:
                continue
            span = spans.setdefault(kind, [at, at])
            span[0], span[1] = min(span[0], at), max(span[1], at)
        times = {
            kind: (datetime.fromtimestamp(a, UTC), datetime.fromtimestamp(b, UTC))
            for kind, (a, b) in spans.items()
        }
        if "rewards" in times:
            times["reward_costs"] = times["rewards"]
        return times


def _covers(recorded: Mapping[str, Any] | None, now: WindowCalls) -> bool:
    """Whether the manifest's window record ``recorded`` is of ``now``'s window, as ``now``
    says it, and counts at least its calls."""
    if recorded is None:
        return False
    entry = entry_of(now)
    return recorded["sent"] >= now.sent and all(
        recorded.get(key) == entry.get(key) for key in ("ends", "limit", "held", "here")
    )


def _key_kind(key: str) -> str | None:
    """The frame kind of a stored answer's ``key`` (``kind_of`` its path)."""
    return kind_of(key.split("?", 1)[0])


def _listing(key: str) -> bool:
    path = key.split("?", 1)[0]
    return kind_of(path) in (
        "rewards",
        "benefits",
        "card_definitions",
        "tier_structures",
        "programs",
        "members",
    ) and path.count("/") in (3, 5)


def _query_value(key: str, name: str) -> str | None:
    if "?" not in key:
        return None
    return next((v for k, v in parse_qsl(key.split("?", 1)[1]) if k == name), None)


def _response(asked: Asked, body: bytes) -> httpx.Response:
    request = httpx.Request("GET", f"http://checkpoint{asked.path}", params=list(asked.params))
    return httpx.Response(
        200, content=body, headers={"content-type": "application/json"}, request=request
    )


def _service_time(answer: httpx.Response) -> float | None:
    """The service's time of ``answer`` (its ``Date``), else this machine's."""
    date = answer.headers.get("date")
    if date:
        try:
            return email.utils.parsedate_to_datetime(date).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return time.time()


def _window_end(answer: httpx.Response) -> float | None:
    """The end of the budget window the service counted ``answer`` in (its
    ``X-Rate-Limit-Retry``, Unix seconds), or None when it names none."""
    try:
        ends = float(answer.headers.get("x-rate-limit-retry", "nan"))
    except ValueError:
        return None
    return ends if stored_time(ends) else None


def _instant(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _wire(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
