"""One exception hierarchy for everything the toolkit raises on purpose.

Users catch the class for the case they handle (``DuplicateFoundError`` when a
benefit name is taken, ``ResourceLockedError`` when a card definition is not
ACTIVE, ...) and ``LytError`` for everything else. Exception messages carry what
the service said and what the toolkit checked, never a credential: every ``LytError``
masks, as it is made, the secrets of every client configured in the process and the tokens
the environment or ``.env`` sets (its arguments and each text attribute, whatever raised
it; ``_secret.MaskedError``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from ._plans import Cycle
from ._secret import MaskedError
from ._shares import least_share, paces, plain_share, share_of
from ._text import about, counted, figure

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APITimeoutError",
    "BadRequestError",
    "BudgetExceededError",
    "ConfigurationError",
    "ConflictError",
    "CycleBudgetError",
    "DuplicateFoundError",
    "LytError",
    "MissingRequiredFeatureError",
    "NotFoundError",
    "OddValueWarning",
    "PaginationError",
    "PullBudgetError",
    "QuotaExhaustedError",
    "RateLimitError",
    "RedirectError",
    "RehearsalSnapshotError",
    "RequestValidationError",
    "ResourceLockedError",
    "ServerError",
    "StoppedError",
    "UnauthorizedError",
    "WayForward",
]


class LytError(MaskedError):
    """Root of every error raised by lyt_toolkit.

    Its arguments and every text attribute set on it have the secrets of every client
    configured in this process (key tokens, bearer tokens issued) and the tokens the
    environment or the working directory's ``.env`` sets masked as ``***``, so ``str``,
    ``repr``, ``args`` and a traceback never show one, even when the message quotes a file
    that holds one (a quote is masked before it is cut short: ``_json_file.shown``).
    """


class OddValueWarning(UserWarning):
    """A value in the service's answer that its column cannot hold as sent.

    Building a frame keeps going: the value is kept where the column can hold
    it (a new enumeration value) or set to NA; the message names the kind,
    the row's ID and the field.
    """


class ConfigurationError(LytError):
    """The client is missing a setting or was given one it cannot use."""


class RequestValidationError(LytError, ValueError):
    """A request was rejected locally before anything was sent.

    ``field`` names the offending body field, path parameter or filter (for
    example ``filters.name.$contains``) so a form can show the error next to it.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class RehearsalSnapshotError(LytError, ValueError):
    """A rehearsal refused before it starts, nothing sent: its ``snapshot`` cannot stand for
    production. Pulled as a sample (``sample``, as text), pulled without kinds the plan
    needs (``missing``), or none given for a plan read from its file (neither). The message
    names what is missing and the pull (or folder) to rehearse on. A ``ValueError`` too, as
    the refusal was before: ``except ValueError`` still catches it.
    """

    field = "snapshot"
    """The argument refused."""

    def __init__(
        self, message: str, *, missing: tuple[str, ...] = (), sample: str | None = None
    ) -> None:
        super().__init__(message)
        self.missing = missing
        """The kinds the rehearsal needs that the snapshot was pulled without."""
        self.sample = sample
        """The sample the snapshot was pulled as (None: every member)."""


class APIConnectionError(LytError):
    """The service could not be reached, or the connection broke mid-request."""

    def __init__(self, message: str = "Could not reach the service.") -> None:
        super().__init__(message)
        self.message = message


class APITimeoutError(APIConnectionError):
    """The service did not answer within the configured timeout."""

    def __init__(self, message: str = "The request to the service timed out.") -> None:
        super().__init__(message)


class StoppedError(LytError):
    """A call not sent, or not sent again: it was waiting (a retry's back-off, the call
    budget's reset, a paced pull's next window) when its client was closed or the work it
    was made for was stopped (Ctrl-C, a Cancel); the message says which."""


class APIError(LytError):
    """The service answered with an error object.

    The attributes mirror the service's error object; ``status`` is the HTTP
    status of the response (equal to ``code`` for well-formed errors) and
    ``body`` is the decoded JSON body, or ``None`` when it was not JSON.
    ``hint`` is the toolkit's own advice (which credentials, when to come
    back, where a redirect pointed), appended to the message.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        key: str | None = None,
        details: str | None = None,
        request_id: str | None = None,
        resource_id: str | None = None,
        resource_type: str | None = None,
        body: Any = None,
        method: str | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.status = status
        self.key = key
        self.message = message
        self.details = details
        self.request_id = request_id
        self.resource_id = resource_id
        self.resource_type = resource_type
        self.body = body
        self.method = method
        self.path = path
        self.hint = hint
        super().__init__(self._describe())

    @property
    def status_code(self) -> int:
        """Alias of ``status`` for people used to httpx/requests naming."""
        return self.status

    def _describe(self) -> str:
        text = f"{self.status}"
        if self.key:
            text += f" {self.key}"
        text += f": {self.message}"
        if self.details:
            text += f" ({self.details})"
        if self.method and self.path:
            text += f" [{self.method} {self.path}]"
        if self.request_id:
            text += f" request_id={self.request_id}"
        if self.hint:
            text += f". {self.hint}"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._describe()!r})"


class APIResponseValidationError(LytError):
    """A successful answer whose body does not have the shape the toolkit expects.

    Distinct from ``APIError`` (the service refused) and raised instead of
    returning a half-read model: the service or the toolkit's models changed.
    ``status``, ``method`` and ``path`` say which answer it was.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.method = method
        self.path = path


class BadRequestError(APIError):
    """400: the service rejected the request's parameters or body."""


class UnauthorizedError(APIError):
    """401: credentials are missing, wrong, or the token expired."""


class MissingRequiredFeatureError(APIError):
    """402: the project's plan lacks a feature the operation needs."""


class NotFoundError(APIError):
    """404: the addressed resource (or one it references) does not exist."""


class ConflictError(APIError):
    """409: the resource is not in a state that allows the operation."""


class DuplicateFoundError(ConflictError):
    """409 ``duplicate_found``: a unique value (such as a benefit name) is taken."""


class ResourceLockedError(APIError):
    """423: a precondition on a related resource or on time does not hold."""


class RateLimitError(APIError):
    """429: too many requests, still refused after the configured retries.

    ``retry_after`` is the wait the service asked for in seconds (``None``
    when it named none) and ``retry_at`` the UTC time it comes to, when the
    service asked for longer than the client's retry budget allowed.
    """

    def __init__(
        self, status: int, message: str, *, retry_after: float | None = None, **kwargs: Any
    ) -> None:
        self.retry_after = retry_after
        self.retry_at = time_after(retry_after)
        super().__init__(status, message, **kwargs)


class QuotaExhaustedError(RateLimitError):
    """The project's call budget is spent until a window reset beyond the client's ``max_wait``.

    Raised before sending a call the service would refuse (``sent`` is False: nothing
    went out), or for a 429 whose ``Retry-After`` is beyond ``max_wait`` (``sent`` is
    True). ``retry_after`` is the seconds until the window resets, ``retry_at`` that
    instant in UTC, ``calls_used`` the calls this client has sent so far.
    """

    def __init__(
        self, status: int, message: str, *, calls_used: int, sent: bool, **kwargs: Any
    ) -> None:
        self.calls_used = calls_used
        self.sent = sent
        super().__init__(status, message, **kwargs)


class BudgetExceededError(LytError):
    """Work refused before its first call: it needs more calls than the window has left.

    ``needed`` is the calls the work would send, ``remaining`` and ``limit`` the window's
    budget as the client last read it, ``resets_at`` when it refills (UTC, None if unknown),
    ``share`` the part of ``remaining`` the work may use (the rest stays for the project's
    other traffic). Nothing was sent; wait for the reset (offered only when the share of a
    whole window holds the work; else, unless it can be paced, split it into parts that one
    does), or, where the work takes it
    (``partial``), let it stop part-way (``allow_partial=True``) and resume it from its log
    after the reset, or, where it takes it (``paced``), pace it across windows
    (``paced=True``; ``resumable``: a paced run stopped goes on from its log, else it starts
    again, as a verification does).
    """

    def __init__(
        self,
        what: str,
        *,
        needed: int,
        remaining: int,
        limit: int | None = None,
        resets_at: datetime | None = None,
        partial: bool = True,
        share: float = 1.0,
        paced: bool = False,
        resumable: bool = True,
    ) -> None:
        self.needed = needed
        self.remaining = remaining
        self.limit = limit
        self.resets_at = resets_at
        self.share = share
        of = "" if limit is None else f" of {figure(limit)}"
        when = (
            "at a time not known" if resets_at is None else f"at {resets_at:%Y-%m-%d %H:%M:%S} UTC"
        )
        allowed = share_of(remaining, share)
        if share < 1:
            budget = (
                f"its share ({share:g}) of the call budget left this window is {figure(allowed)}"
                f" ({figure(remaining)}{of} left; {figure(needed - allowed)} short)"
            )
        else:
            budget = (
                f"the call budget has {figure(remaining)}{of} left this window"
                f" ({figure(needed - remaining)} short)"
            )
        whole = None if limit is None else share_of(limit, share)
        ways = []
        beyond = ""
        if limit is None or whole is None or needed <= whole:
            ways.append("Run it after the reset")
        else:  # after the reset it would be refused again
            beyond = (
                f" No window's share holds it either ({figure(whole)} of {figure(limit)} at"
                f" {share:g})."
            )
        if share < 1 and needed <= remaining:
            ways.append("pass budget_share=1.0 to let it take the window's whole budget")
        if partial:
            ways.append(
                "pass allow_partial=True to send what fits and resume from the log after the reset"
            )
        pacing = _paced_way(limit, share) if paced else ""
        if pacing:
            again = "resumable from its log" if resumable else "stopped, it starts again"
            ways.append(
                f"pass {pacing} to send its share of every window, waiting for each reset,"
                f" until it is done ({again})"
            )
        if beyond and not pacing:  # only parts of it can run, one a window
            ways.append(
                f"split it into parts of at most {counted(whole or 0, 'call')}, one a window"
                f" ({figure(allowed)} fit now)"
            )
        super().__init__(
            f"{what} not started: it needs {counted(needed, 'call')} and {budget}; the window"
            f" resets {when}.{beyond} {_sentence(', or '.join(ways))}"
        )


def _paced_way(limit: int | None, share: float) -> str:
    """The words that pace a work at ``share`` of a window of ``limit`` calls: ``paced=True``,
    with the least share that paces it where ``share`` of a window cannot hold a token request
    and the call it serves (``_shares``); "" where no share can."""
    if limit is None or paces(share, limit):  # not known: as a paced work takes it
        return "paced=True"
    least = least_share(limit)
    return "" if least is None else f"paced=True with budget_share={plain_share(least)}"


def _sentence(text: str) -> str:
    """``text`` begun with a capital, as a sentence."""
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class WayForward:
    """One way to get what a refused pull was for: ``what`` it is, the ``calls`` it costs
    (at most, or ``at_least`` where the rest is known only once members are read) and
    ``how`` to ask for it; ``argument`` is the pull's keyword argument that takes this way,
    ``(name, value)`` (None when none does), for a front end to spell its own way."""

    what: str
    calls: int
    how: str
    at_least: bool = False
    argument: tuple[str, Any] | None = None

    def __str__(self) -> str:
        cost = ("at least " if self.at_least else "") + counted(self.calls, "call")
        return f"{self.what}: {cost} ({self.how})"


class PullBudgetError(BudgetExceededError):
    """A pull stopped before a stage its share of the call budget cannot hold, or partway
    through one (``during``) when its share ran out there.

    ``stage`` names what was not started or not finished (``"member reads"``, ``"bucket
    lists"``, or ``"lists"`` when even the lists did not fit); ``needed`` is the calls the
    rest of the pull needs at least, ``remaining`` what is left of its share (``share`` of
    the ``window_left`` calls the window had when it started, less ``others``: those the
    project's other traffic has spent of them since, at least), ``sent`` the calls it sent
    before stopping. ``ways`` are the ways forward (``WayForward``), each with its cost. The
    rest of the window's budget is left to the project's other traffic. A paced pull resumed
    in a window its earlier runs spent of: ``earlier`` is the calls they sent in it (counted
    against the same share), and ``window_left`` what the window held for the pull when the
    first of them started there. A pull stopped during its member reads because the bucket
    lists to come would not fit: ``projected`` is what they were projected from, the members
    read and the cards holding pending points among them (the rest of ``needed`` counts a low
    bound of the bucket lists of the members not read), ``expected`` the calls the pull needs
    in all, projected from them (the bucket lists of the members not read at the rate those
    read showed, as ``PullEstimate.expected`` projects them), and ``interval`` its 95 %
    interval, low and high (both None otherwise: no call is spent to know them). The text
    quotes them to three significant figures: ``in all it needs about 24,200 calls (95 %
    23,500 to 25,100)``. A pull stopped partway through its member reads quotes them too,
    projected from the members read before the stop, 30 at least; with fewer,
    ``not_projected`` says why there is no figure (``only 12 members were read before it
    stopped, ...``), and the text gives it (``no figure for the calls it needs in all:
    ...``); None otherwise. ``cost_first``: for a pull of every member (not a sample, not paced)
    refused for its member reads, the line naming the estimate that tells its cost before it
    is tried again (``To know the cost first: ProgramSnapshot.estimate(client,
    read_sample=100) (...)``), the text's last; None otherwise. ``census``: for a sample
    asked of at least the program's members, ``(asked, members)``, and the text's first line
    says so (the sample reads every member: it is a whole pull); None otherwise.
    ``lists_counted``: for a refusal before the lists are walked (a drift's, counting them
    from its snapshot), the list calls counted but not sent; ``remaining`` is then what the
    share holds once they are, and the text says so (``has 2,278 left after its lists, 213
    calls counted from the snapshot and not sent``); None otherwise.
    """

    def __init__(
        self,
        stage: str,
        *,
        needed: int,
        remaining: int,
        share: float,
        window_left: int | None,
        sent: int,
        ways: tuple[WayForward, ...] = (),
        limit: int | None = None,
        resets_at: datetime | None = None,
        others: int = 0,
        during: bool = False,
        earlier: int = 0,
        projected: tuple[int, int] | None = None,
        expected: int | None = None,
        interval: tuple[int, int] | None = None,
        cost_first: str | None = None,
        not_projected: str | None = None,
        census: tuple[int, int] | None = None,
        lists_counted: int | None = None,
    ) -> None:
        self.stage = stage
        self.census = census
        self.lists_counted = lists_counted
        self.cost_first = cost_first
        self.not_projected = not_projected
        self.projected = projected
        self.expected = expected
        self.interval = interval
        self.share = share
        self.window_left = window_left
        self.others = others
        self.earlier = earlier
        self.during = during
        self.sent = sent
        self.ways = ways
        self.needed = needed
        self.remaining = remaining
        self.limit = limit
        self.resets_at = resets_at
        of = "" if limit is None else f" of {figure(limit)}"
        left = "an unknown number" if window_left is None else figure(window_left)
        when = (
            "at a time not known" if resets_at is None else f"at {resets_at:%Y-%m-%d %H:%M:%S} UTC"
        )
        since = (
            f", at least {figure(others)} of them since spent by other traffic" if others else ""
        )
        if stage == "lists":
            head = (
                f"pull stopped during its lists: they need more than the pull's share "
                f"({share:g}) of the call budget"
            )
        elif during:
            basis = ""
            if projected is not None:
                read, holding = projected
                basis = (
                    f" (its bucket lists projected from the {counted(read, 'member')} read,"
                    f" whose cards hold {counted(holding, 'bucket list')})"
                )
            head = (
                f"pull stopped during its {stage}: the rest needs at least "
                f"{counted(needed, 'call')}{basis} and the pull's share ({share:g}) of the call "
                f"budget has {figure(remaining)} left"
            )
        else:
            unsent = (
                ""
                if lists_counted is None
                else f" after its lists, {counted(lists_counted, 'call')} counted from the snapshot"
                " and not sent"
            )
            head = (
                f"pull stopped before its {stage}: they need at least {counted(needed, 'call')} "
                f"and the pull's share ({share:g}) of the call budget has {figure(remaining)} left"
                f"{unsent}"
            )
        started = "the pull's first run in this window" if earlier else "the pull"
        runs = f" (its earlier runs {counted(earlier, 'call')} of this window)" if earlier else ""
        lines = [
            f"{head} (the window had {left}{of} left when {started} started{since}; it resets "
            f"{when}); "
            f"the pull sent {counted(sent, 'call')}{runs} and nothing more"
            f"{_in_all(expected, interval, not_projected)}{_census(census)}"
        ]
        if ways:
            lines.append("Ways forward:")
            lines.extend(f"  - {way}" for way in ways)
        if cost_first is not None:
            lines.append(cost_first)
        LytError.__init__(self, "\n".join(lines))

    def with_ways(self, ways: tuple[WayForward, ...]) -> PullBudgetError:
        """The same refusal with other ``ways`` forward (those a front end can take)."""
        return PullBudgetError(
            self.stage,
            needed=self.needed,
            remaining=self.remaining,
            share=self.share,
            window_left=self.window_left,
            sent=self.sent,
            ways=ways,
            limit=self.limit,
            resets_at=self.resets_at,
            others=self.others,
            during=self.during,
            earlier=self.earlier,
            projected=self.projected,
            expected=self.expected,
            interval=self.interval,
            cost_first=self.cost_first,
            not_projected=self.not_projected,
            census=self.census,
            lists_counted=self.lists_counted,
        )


def _census(census: tuple[int, int] | None) -> str:
    """``; `` and ``whole_pull``'s words for a ``census``; else nothing."""
    return "" if census is None else f"; {whole_pull(*census)}"


def whole_pull(asked: int, members: int) -> str:
    """A sample of ``asked`` members that reads every one of the program's ``members``, in
    words: ``the sample of N asked is more than the program's M members: it reads every
    member, a whole pull`` (or ``is all of``, N being M)."""
    than = "all of" if asked == members else "more than"
    return (
        f"the sample of {figure(asked)} asked is {than} the program's"
        f" {counted(members, 'member')}: it reads every member, a whole pull"
    )


def _in_all(
    expected: int | None, interval: tuple[int, int] | None, not_projected: str | None = None
) -> str:
    """``; in all it needs about E calls (95 % L to H), projected from the members read``,
    the figures to three significant figures (the interval's ends rounded outwards); without
    them, ``; no figure for the calls it needs in all: WHY`` (``not_projected``), or nothing."""
    if not_projected is not None:
        return f"; no figure for the calls it needs in all: {not_projected}"
    if expected is None or interval is None:
        return ""
    low, high = interval
    return (
        f"; in all it needs about {about(expected)} calls (95 % {about(low, math.floor)} to"
        f" {about(high, math.ceil)}), projected from the members read"
    )


class CycleBudgetError(PullBudgetError):
    """A paced pull refused, or stopped, for the project's billing-cycle budget: before
    ``stage`` when the calls it needs in all (``needed``, at least) are more than its
    ``share`` of the ``cycle``'s budget, or partway through it (``during``) once the
    service's answers say the cycle's budget is spent (``reached``; ``cycle`` None when its
    size is not known). What a paced pull read stays in its checkpoint. ``ways`` as for
    ``PullBudgetError``. ``work`` names another paced work refused so (a plan executed with
    ``paced=True``, before its writes)."""

    def __init__(
        self,
        stage: str,
        *,
        needed: int,
        share: float,
        cycle: Cycle | None,
        sent: int,
        ways: tuple[WayForward, ...] = (),
        reached: bool = False,
        work: str = "pull",
    ) -> None:
        super().__init__(
            stage,
            needed=needed,
            remaining=0,
            share=share,
            window_left=None,
            sent=sent,
            ways=ways,
            during=reached,
        )
        self.cycle, self.reached, self.work = cycle, reached, work
        overdrawn = (
            "past it the service lets calls through with a reminder, and weeks of that lead to"
            " throttling or suspension of the project"
        )
        if reached or cycle is None:
            head = (
                f"pull stopped during its {stage}: the service's answers say the project's"
                f" billing-cycle budget is spent ({overdrawn}); what it read is kept in its"
                " checkpoint: run it again once the cycle renews"
            )
        else:
            known = (
                " (known from its hourly budget; for another plan's, give cycle_calls= or"
                " LYT_CYCLE_CALLS)"
                if cycle.plan
                else ""
            )
            head = (
                f"{work} stopped before its {stage}: paced, it needs at least"
                f" {counted(needed, 'call')} in all, {cycle.share_of(needed)}{known}, more than"
                f" its share ({share:g}) of it ({overdrawn})"
            )
        subject = "the pull" if work == "pull" else "it"
        lines = [f"{head}; {subject} sent {counted(sent, 'call')} and nothing more"]
        if ways:
            lines.append("Ways forward:")
            lines.extend(f"  - {way}" for way in ways)
        LytError.__init__(self, "\n".join(lines))

    def with_ways(self, ways: tuple[WayForward, ...]) -> CycleBudgetError:
        """The same refusal with other ``ways`` forward (those a front end can take)."""
        return CycleBudgetError(
            self.stage,
            needed=self.needed,
            share=self.share,
            cycle=self.cycle,
            sent=self.sent,
            ways=ways,
            reached=self.reached,
            work=self.work,
        )


def time_after(seconds: float | None, since: float | None = None) -> datetime | None:
    """The UTC time ``seconds`` after ``since`` (Unix seconds; None: now, on this machine's
    clock); None when unknown or beyond the calendar."""
    if seconds is None:
        return None
    try:
        start = datetime.now(UTC) if since is None else datetime.fromtimestamp(since, UTC)
        return start + timedelta(seconds=seconds)
    except (OverflowError, OSError, ValueError):
        return None


class RedirectError(APIError):
    """3xx: the service answered with a redirect, which the client never follows.

    ``location`` is where it pointed (often a wrong ``base_url`` or a proxy).
    """

    def __init__(
        self, status: int, message: str, *, location: str | None = None, **kwargs: Any
    ) -> None:
        self.location = location
        super().__init__(status, message, **kwargs)


class PaginationError(LytError):
    """A list walk stopped: the service repeated a cursor or the page bound was reached."""


class ServerError(APIError):
    """5xx: the service failed, still failing after the configured retries."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    402: MissingRequiredFeatureError,
    404: NotFoundError,
    409: ConflictError,
    423: ResourceLockedError,
    429: RateLimitError,
}


def error_class(status: int, key: str | None) -> type[APIError]:
    """The most specific exception class for an error status and key."""
    if status == 409 and key == "duplicate_found":
        return DuplicateFoundError
    if status >= 500:
        return ServerError
    if 300 <= status < 400:
        return RedirectError
    return _BY_STATUS.get(status, APIError)


class ErrorFields(Protocol):
    """What an error answer says: the service's error object, or an ``APIError`` made of one."""

    @property
    def key(self) -> str | None: ...
    @property
    def message(self) -> str: ...
    @property
    def details(self) -> str | None: ...
    @property
    def request_id(self) -> str | None: ...
    @property
    def resource_id(self) -> str | None: ...
    @property
    def resource_type(self) -> str | None: ...


_E = TypeVar("_E", bound=APIError)


def api_error(kind: type[_E], status: int, said: ErrorFields, **extra: Any) -> _E:
    """A ``kind`` for an error answer of ``status``: the fields ``said`` holds, and ``extra``
    (``body``, ``method``, ``path``, ``hint`` and the like; ``extra`` wins where both name one).
    """
    fields = {
        "key": said.key,
        "details": said.details,
        "request_id": said.request_id,
        "resource_id": said.resource_id,
        "resource_type": said.resource_type,
    }
    return kind(status, said.message, **(fields | extra))
