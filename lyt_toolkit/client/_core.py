"""The request-building core shared by the sync and async clients.

Everything here is free of I/O so the two clients cannot drift apart: a
``Call`` describes one API operation, ``RequestCore`` turns it into an
``httpx.Request`` with the right credentials for its path family and decodes
the answer into models or the matching exception, and the retry policy is a
set of pure functions the send flow (``_flow``) consults.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import json
import logging
import math
import random
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter, ValidationError

from .._secret import mask, remember, secret_forms
from .._unicode import encodable, lone_surrogate, lone_surrogates, shown
from .._version import __version__
from ..errors import (
    APIError,
    APIResponseValidationError,
    LytError,
    OddValueWarning,
    RateLimitError,
    RequestValidationError,
    api_error,
    error_class,
    time_after,
)
from ..models.errors import error_object
from ..models.numbers import first_problem
from ._base_url import Targets
from .config import ClientConfig, RetryConfig

T = TypeVar("T")

logger = logging.getLogger("lyt_toolkit.client")

USER_AGENT = f"lyt-toolkit/{__version__}"
TOKEN_PATH = "/oauth/token"


class Family(StrEnum):
    """Path families; each authenticates differently (spec, "Authentication")."""

    V1 = "v1"
    OAUTH = "oauth"
    V2 = "v2"
    MANAGEMENT = "management"

    @classmethod
    def of(cls, path: str) -> Family:
        """The family of an API path, from its first segment."""
        head = path.lstrip("/").split("/", 1)[0]
        try:
            return cls(head)
        except ValueError:
            raise LytError(f"no known API family for path {path!r}") from None


ODD_VALUE_ERRORS = (ValueError, ArithmeticError, TypeError, RecursionError)
"""What decoding an odd answer can raise besides pydantic's ValidationError (a year-1
timestamp moved to UTC overflows, a 5,000-digit integer is refused, nesting too deep...)."""


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""The start of a JSON escape of a surrogate: where a lone one may be."""

_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)
"""One JSON escape (read left to right, so an escaped backslash is never the start of one)."""

_NAMED = 5
"""The fields one warning about lone surrogates names; the others are counted."""


def mended(response: httpx.Response) -> httpx.Response:
    """``response`` with each lone surrogate its JSON body escapes (``"\\ud800"``, which
    Python decodes into text with no UTF-8 form) replaced by U+FFFD, with an
    ``OddValueWarning`` naming the fields; ``response`` itself when it holds none."""
    content = response.content
    if _SURROGATE.search(content) is None:
        return response
    spans = _lone_escapes(content)
    if not spans:
        return response
    fixed, end = [], 0
    for start, stop in spans:
        fixed += [content[end:start], rb"\ufffd"]
        end = stop
    try:
        fields = list(lone_surrogates(json.loads(content)))
    except ODD_VALUE_ERRORS:  # not JSON, or nested deeper than Python decodes: not named
        fields = []
    named = ", ".join(fields[:_NAMED]) or "the body"
    more = f" and {len(fields) - _NAMED} more" if len(fields) > _NAMED else ""
    warnings.warn(
        f"{response.request.method} {response.request.url.path}: {named}{more}: held a lone"
        " surrogate (text with no UTF-8 form), replaced with U+FFFD",
        OddValueWarning,
        stacklevel=2,
    )
    dropped = ("content-length", "content-encoding")  # the new body is plain bytes
    return httpx.Response(
        response.status_code,
        headers=[(k, v) for k, v in response.headers.multi_items() if k.lower() not in dropped],
        content=b"".join([*fixed, content[end:]]),
        request=response.request,
        extensions=response.extensions,
    )


def _lone_escapes(content: bytes) -> list[tuple[int, int]]:
    """The spans of the escapes in ``content`` that spell a lone surrogate: a high one not
    followed at once by a low one, or a low one not right after a high one."""
    spans: list[tuple[int, int]] = []
    high: tuple[int, int] | None = None
    for escape in _ESCAPE.finditer(content):
        code = int(escape[1], 16) if escape[1] else 0
        if high is not None:
            if escape.start() == high[1] and 0xDC00 <= code <= 0xDFFF:
                high = None
                continue
            spans.append(high)
            high = None
        if 0xD800 <= code <= 0xDBFF:
            high = escape.span()
        elif 0xDC00 <= code <= 0xDFFF:
            spans.append(escape.span())
    if high is not None:
        spans.append(high)
    return spans


def json_body(response: httpx.Response) -> Any:
    """The decoded JSON of a response, or ``None`` when its body is empty."""
    return response.json() if response.content else None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API operation, described independently of how it is sent.

    ``decode`` turns the successful response into the return value; by
    default the decoded JSON as is (or ``None`` for an empty body).
    """

    method: str
    path: str
    params: Sequence[tuple[str, str]] = ()
    json: Any = None
    form: Mapping[str, str] | None = None
    decode: Callable[[httpx.Response], T] = json_body
    family: Family = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", self.method.upper())
        object.__setattr__(self, "family", Family.of(self.path))

    @property
    def idempotent(self) -> bool:
        """True when sending the call twice has the effect of sending it once.

        GET, HEAD and DELETE qualify (a repeated DELETE at worst answers 404).
        The token POST qualifies too: each request only mints a new token and
        changes nothing else, so a duplicate costs nothing. Every other POST
        may create or change something and is never resent after it may have
        reached the service.
        """
        if self.method in ("GET", "HEAD", "DELETE", "OPTIONS"):
            return True
        return self.method == "POST" and self.family is Family.OAUTH


_DOT_SEGMENTS = ("", ".", "..")
"""Parameters a URL reads as no segment, this directory or its parent: never one ID."""


def path(template: str, **params: str) -> str:
    """Fill a path template, quoting each parameter so it stays one path segment; a
    ``RequestValidationError`` naming a parameter that is empty, ``.`` or ``..``, or
    that holds a lone surrogate (it has no UTF-8 form to quote)."""
    for name, value in params.items():
        if str(value) in _DOT_SEGMENTS:
            raise RequestValidationError(
                f"{name} must be an ID, got {str(value)!r}: in a URL it would name a "
                "directory (the request would go to another path)",
                field=name,
            )
        if not encodable(str(value)):
            raise RequestValidationError(
                f"{name} must be an ID, got {str(value)!r}: it holds a lone surrogate, "
                "which has no UTF-8 form a URL can carry",
                field=name,
            )
    return template.format(**{k: quote(str(v), safe="") for k, v in params.items()})


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def adapter(tp: Any) -> TypeAdapter[Any]:
    """A cached TypeAdapter; building one per response would dominate small pages."""
    found = _ADAPTERS.get(tp)
    if found is None:
        found = _ADAPTERS[tp] = TypeAdapter(tp)
    return found


def parsed(content: bytes, tp: Any) -> Any:
    """``content`` validated into ``tp`` by pydantic's ``validate_json``: parsed and validated
    in one pass, with no Python values built on the way (faster than parsing with
    ``pydantic_core.from_json`` and validating the result: a page of 100 rewards 42% less
    CPU, a member 33% less; the same models and errors, ``tests/frames/test_decode.py``)."""
    return adapter(tp).validate_json(content)


def decoder(tp: Any) -> Callable[[httpx.Response], Any]:
    """A ``Call.decode`` that validates the JSON body straight into ``tp``."""

    def decode(response: httpx.Response) -> Any:
        try:
            return parsed(response.content, tp)
        except ValidationError as exc:
            method, where = response.request.method, response.request.url.path
            raise APIResponseValidationError(
                f"{method} {where}: the response did not "
                f"match the expected {getattr(tp, '__name__', tp)!s} shape: "
                f"{exc.error_count()} error(s), first: {_first_error(exc)}",
                status=response.status_code,
                method=method,
                path=where,
            ) from None

    return decode


def odd_answer(response: httpx.Response, exc: BaseException) -> APIResponseValidationError:
    """The error for a successful answer holding a value the toolkit cannot represent."""
    method, where = response.request.method, response.request.url.path
    return APIResponseValidationError(
        f"{method} {where}: the response holds a value the toolkit cannot read "
        f"({type(exc).__name__}; an out-of-range number or date, or a body that is not JSON)",
        status=response.status_code,
        method=method,
        path=where,
    )


def _first_error(exc: ValidationError) -> str:
    err = exc.errors(include_url=False, include_input=False)[0]
    loc = ".".join(str(p) for p in err.get("loc", ()))
    return f"{loc}: {err.get('msg')}"


class RequestCore:
    """Builds requests and interprets responses for one ``ClientConfig``."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self._timeout = config.timeout.as_dict()
        self._targets = Targets(config.url)

    def build(
        self,
        call: Call[Any],
        *,
        bearer: str | None = None,
        timeout: Mapping[str, float | None] | None = None,
    ) -> httpx.Request:
        """The HTTP request for ``call``; ``bearer`` is the token for ``/v2`` calls.

        ``timeout`` (an httpx timeout extension) defaults to the configured one.
        """
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        headers.update(self.auth_headers(call.family, bearer))
        kwargs: dict[str, Any] = {}
        if call.form is not None:
            kwargs["data"] = dict(call.form)
        elif call.json is not None:
            kwargs["json"] = call.json
        return httpx.Request(
            call.method,
            self._targets.url(call.path, call.params),
            headers=headers,
            extensions={"timeout": dict(timeout) if timeout is not None else self._timeout},
            **kwargs,
        )

    def auth_headers(self, family: Family, bearer: str | None) -> dict[str, str]:
        """Credentials per path family, as the spec's authentication table sets them."""
        if family is Family.MANAGEMENT:
            mid, mtoken = self.config.require_management_keys()
            return {"X-Management-Id": mid, "X-Management-Token": mtoken}
        app_id, app_token = self.config.require_app_keys()
        headers = {"X-App-Id": app_id, "X-App-Token": app_token}
        if family is Family.V2:
            if bearer is None:
                raise LytError("internal: a /v2 call was built without a bearer token")
            headers["Authorization"] = f"Bearer {bearer}"
        return headers

    def secrets(self, bearer: str | None) -> list[str]:
        """The credentials a request may carry: both key pairs' tokens and ``bearer``."""
        config = self.config
        held = [s.get_secret_value() for s in (config.app_token, config.management_token) if s]
        return held if bearer is None else [*held, bearer]

    def token_call(self, scopes: Sequence[str] | str | None = None) -> Call[Any]:
        """The token request; form-encoded, scopes space-delimited."""
        from ..models.auth import AccessToken, TokenRequest

        request = TokenRequest(scope=scopes if scopes is not None else list(self.config.scopes))
        decode = decoder(AccessToken)

        def remembered(response: httpx.Response) -> AccessToken:
            token: AccessToken = decode(response)
            remember([token.access_token], issued=True)  # every toolkit error masks it now
            return token

        return Call("POST", TOKEN_PATH, form=request.form(), decode=remembered)

    def decode(self, call: Call[T], response: httpx.Response) -> T:
        """The return value of a successful ``call``: its decoder's result, or the JSON.

        Odd values raise ``APIResponseValidationError``, never a raw Python error; a lone
        surrogate becomes U+FFFD with an ``OddValueWarning`` (``mended``).
        """
        try:
            return call.decode(mended(response))
        except LytError:
            raise
        except ODD_VALUE_ERRORS as exc:
            raise odd_answer(response, exc) from None

    def error(self, call: Call[Any], response: httpx.Response) -> APIError:
        """The exception for a non-2xx response; unknown bodies still keep the status."""
        body = _json_or_none(mended(response))
        status = response.status_code
        info = error_object(status, response.reason_phrase or "Error", body)
        extra: dict[str, Any] = {"hint": self.hint(call.family, status)}
        answered = None
        if status == 429:
            answered = date_second(response.headers.get("date"))
            extra["retry_after"] = parse_retry_after(response.headers.get("retry-after"), answered)
            extra["hint"] = come_back_hint(extra["retry_after"], answered)
        elif 300 <= status < 400:
            extra["location"] = response.headers.get("location")
            extra["hint"] = redirect_hint(extra["location"], self.config.resolved_base_url)
        error = api_error(
            error_class(status, info.key),
            status,
            info,
            request_id=info.request_id or response.headers.get("x-request-id"),
            body=body,
            method=call.method,
            path=call.path,
            **extra,
        )
        if isinstance(error, RateLimitError) and answered is not None:
            error.retry_at = time_after(error.retry_after, answered)  # as the hint says
        return error

    def hint(self, family: Family, status: int) -> str | None:
        """For a 401: which credentials were refused and which settings supply them."""
        if status != 401:
            return None
        if family is Family.MANAGEMENT:
            return (
                "The management key pair was refused: check management_id/management_token "
                "(LYT_MANAGEMENT_ID, LYT_MANAGEMENT_TOKEN)"
            )
        if family is Family.V2:
            scopes = " ".join(self.config.scopes)
            return (
                "A freshly issued bearer token was refused: its scopes "
                f"({scopes!r}, set with scopes=...) may not cover this call; the token is "
                "issued for the application key pair (LYT_APP_ID, LYT_APP_TOKEN)"
            )
        return (
            "The application key pair was refused: check app_id/app_token "
            "(LYT_APP_ID, LYT_APP_TOKEN)"
        )


def check_bounds(body: Any) -> None:
    """Refuse a body holding an integer beyond 64 bits or a number that is not finite."""
    if body is None:
        return
    problem = first_problem(body)
    if problem is not None:
        raise RequestValidationError(
            f"request body: {problem.where}: {problem.reason}", field=problem.where
        )


def check_encodable(call: Call[Any]) -> None:
    """Refuse a call whose query, form or body holds a lone surrogate, naming its field:
    it has no UTF-8 form (httpx would raise a raw ``UnicodeEncodeError``)."""
    for name, value in (*call.params, *(call.form or {}).items()):
        if not (encodable(name) and encodable(value)):
            field = shown(name)
            raise RequestValidationError(
                f"{field} holds a lone surrogate, which has no UTF-8 form to send", field=field
            )
    where = lone_surrogate(call.json) if call.json is not None else None
    if where is not None:
        raise RequestValidationError(
            f"request body: {where}: holds a lone surrogate, which has no UTF-8 form to send",
            field=where,
        )


def come_back_hint(seconds: float | None, answered: float | None = None) -> str | None:
    """When a rate-limited caller may come back, in seconds and UTC time: ``seconds`` after
    ``answered`` (the answer's ``Date``, the service's clock, as its window's reset is) when
    known, else after now on this machine's clock."""
    if seconds is None:
        return None
    at = time_after(seconds, answered)
    clock = "this machine's" if answered is None else "the service's"
    when = "much later" if at is None else f"after {at:%Y-%m-%d %H:%M:%S} UTC ({clock} clock)"
    return f"The service asks to wait {seconds:g} s before retrying (Retry-After): come back {when}"


@functools.lru_cache(maxsize=64)
def _date_second(date: str) -> float | None:
    with contextlib.suppress(TypeError, ValueError, OverflowError, IndexError):
        return email.utils.parsedate_to_datetime(date).timestamp()
    return None


def date_second(date: str | None) -> float | None:
    """The epoch second an HTTP ``Date`` names (the service's clock), or None when it names
    none (kept: the answers of one second all carry the same ``Date``)."""
    return None if not date else _date_second(date)


def redirect_hint(location: str | None, base_url: str) -> str:
    """What a redirect pointed to; the client never follows one."""
    target = repr(location) if location else "no Location"
    return (
        f"The service redirected to {target}; the client does not follow redirects "
        f"(credentials would go along): check base_url ({base_url!r})"
    )


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ODD_VALUE_ERRORS:
        return None


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def request_id(response: httpx.Response) -> str | None:
    """The service's request ID: a response header if sent, else the error body's field."""
    found = response.headers.get("x-request-id")
    if found is None and response.is_error and response.content[:1] == b"{":
        try:
            found = _str(response.json().get("request_id"))
        except (*ODD_VALUE_ERRORS, AttributeError):
            found = None
    return found


def log_response(
    call: Call[Any], response: httpx.Response, attempt: int, secrets: Sequence[str]
) -> None:
    """One DEBUG line per response: never headers, bodies or tokens; the request ID, which
    the service sends, with ``secrets`` (the credentials the request carried) masked."""
    if logger.isEnabledFor(logging.DEBUG):
        found = request_id(response)
        logger.debug(
            "%s %s -> %s request_id=%s attempt=%d",
            call.method,
            call.path,
            response.status_code,
            None if found is None else mask(found, secret_forms(secrets)),
            attempt,
        )


def log_failure(call: Call[Any], exc: Exception, attempt: int) -> None:
    """One DEBUG line per failed send: the exception's type only, never its text."""
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s %s -> %s attempt=%d", call.method, call.path, type(exc).__name__, attempt)


# -- retry policy (pure functions) --------------------------------------------


def retryable_status(call: Call[Any], status: int, retry: RetryConfig) -> bool:
    """Whether a response status warrants another attempt of ``call``.

    A 429 is the service refusing before doing any work, so even a
    non-idempotent POST is safe to resend after it. Gateway failures (502,
    503, 504) may come after the work was done, so only idempotent calls
    retry on them.
    """
    if status not in retry.retry_statuses:
        return False
    return status == 429 or call.idempotent


def retryable_exception(call: Call[Any], exc: Exception) -> bool:
    """Connection errors and timeouts retry only when a repeat cannot double an effect."""
    return isinstance(exc, httpx.TransportError) and call.idempotent


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            seconds = when.timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, OverflowError, IndexError, AttributeError):
            return None
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def backoff_delay(
    attempt: int, retry: RetryConfig, rand: Callable[[], float] = random.random
) -> float:
    """Full-jitter exponential backoff after failed attempt number ``attempt`` (1-based)."""
    ceiling = min(retry.backoff_max, retry.backoff_base * (2 ** (attempt - 1)))
    return ceiling * rand()


def next_delay(
    attempt: int,
    elapsed: float,
    retry: RetryConfig,
    retry_after: str | None = None,
    rand: Callable[[], float] = random.random,
    *,
    time_left: float | None = None,
) -> float | None:
    """Seconds to wait before the next attempt, or None when the budget is spent.

    A ``Retry-After`` from the service wins over the computed backoff; if it
    asks for longer than the remaining total time (``retry.total_timeout``, or
    ``time_left`` before the call's deadline if sooner), the client gives up
    now rather than sleeping into a certain failure.
    """
    if attempt >= retry.max_attempts:
        return None
    asked = parse_retry_after(retry_after)
    delay = asked if asked is not None else backoff_delay(attempt, retry, rand)
    budget = retry.total_timeout - elapsed
    if time_left is not None:
        budget = min(budget, time_left)
    if delay > budget:
        return None
    return delay
