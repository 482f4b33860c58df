"""Explicit configuration objects for the client: where to connect, with what, how hard to retry.

Settings resolve in a fixed order so a notebook behaves the same on every
machine: keyword arguments first, then the process environment (``LYT_*``
variables), then a ``.env`` file. The ``.env`` file is read, never loaded into
``os.environ``. Credentials are held as ``SecretStr`` so no repr shows them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

import httpx
from dotenv import dotenv_values
from pydantic import SecretStr
from typing_extensions import Unpack

from .._secret import APP_TOKEN_VARIABLE, ENV_FILE, MANAGEMENT_TOKEN_VARIABLE, header_safe, remember
from ..errors import ConfigurationError
from ..models.enums import SCOPES, Cluster
from ._base_url import normalise, shown

ENV_VARS: dict[str, str] = {
    "base_url": "LYT_BASE_URL",
    "cluster": "LYT_CLUSTER",
    "app_id": "LYT_APP_ID",
    "app_token": APP_TOKEN_VARIABLE,
    "management_id": "LYT_MANAGEMENT_ID",
    "management_token": MANAGEMENT_TOKEN_VARIABLE,
    "cycle_calls": "LYT_CYCLE_CALLS",
}
"""Environment variable behind each setting."""

DEFAULT_CLUSTER = Cluster.API
DEFAULT_SCOPES: tuple[str, ...] = ("loyalties",)
"""Least privilege that the ``/v2`` loyalty endpoints accept."""
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
DEFAULT_ENV_FILE = ENV_FILE
DEFAULT_TOKEN_REFRESH_SKEW = 30.0
DEFAULT_MAX_PAGES = 100_000
"""Pages one ``iter``/``pages`` walk may fetch (10 million items at the largest page size)."""
DEFAULT_MAX_WAIT = 60.0
"""Seconds the client waits for a spent call budget to reset before it raises instead."""
RATE_UNITS = {"minute": 60.0, "hour": 3600.0}
_RATE = re.compile(r"\s*(\d+)\s*/\s*(minute|hour)\s*")


@dataclass(frozen=True)
class Rate:
    """``calls`` call starts per ``per_seconds``, evenly spread: ``Rate.parse("5000/hour")``."""

    calls: int
    per_seconds: float

    @property
    def interval(self) -> float:
        """Seconds between two call starts."""
        return self.per_seconds / self.calls

    def __str__(self) -> str:
        unit = next(name for name, seconds in RATE_UNITS.items() if seconds == self.per_seconds)
        return f"{self.calls}/{unit}"

    @classmethod
    def parse(cls, value: str | Rate) -> Rate:
        """A rate from text such as ``"5000/hour"`` or ``"80/minute"``; errors name ``rate``."""
        if isinstance(value, Rate):
            return value
        found = _RATE.fullmatch(value) if isinstance(value, str) else None
        if found is None or int(found[1]) < 1:
            raise ConfigurationError(
                "rate must be a number of calls from 1 per minute or hour, such as "
                f"'5000/hour' or '80/minute'; got {value!r}"
            )
        return cls(int(found[1]), RATE_UNITS[found[2]])


@dataclass(frozen=True)
class RetryConfig:
    """How hard the client tries before giving up on a transient failure.

    ``max_attempts`` counts the first try, so ``max_attempts=1`` disables
    retries. Delays grow exponentially from ``backoff_base`` up to
    ``backoff_max`` with full jitter, unless the service says ``Retry-After``.
    No retry starts once ``total_timeout`` seconds have passed since the first
    attempt or when its delay would cross that deadline.
    """

    max_attempts: int = 4
    backoff_base: float = 0.25
    backoff_max: float = 8.0
    total_timeout: float = 60.0
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigurationError("retry.max_attempts must be at least 1")
        numbers = (self.backoff_base, self.backoff_max, self.total_timeout)
        if (
            not all(math.isfinite(n) for n in numbers)
            or self.backoff_base < 0
            or self.backoff_max < 0
            or self.total_timeout <= 0
        ):
            raise ConfigurationError(
                "retry.backoff_base and retry.backoff_max must be finite and >= 0, "
                "total_timeout finite and > 0"
            )
        object.__setattr__(self, "retry_statuses", frozenset(self.retry_statuses))


NO_RETRY = RetryConfig(max_attempts=1)


class ClientSettings(TypedDict, total=False):
    """The keyword settings both clients and ``ClientConfig.resolve`` accept; all optional.

    A setting left out (or ``None``) falls back to its ``LYT_*`` environment
    variable, then the ``.env`` file, then its default. ``env_file`` names that
    file (default ``.env``); ``env_file=None`` ignores any ``.env`` file.
    """

    base_url: str | None
    cluster: str | None
    app_id: str | None
    app_token: str | SecretStr | None
    management_id: str | None
    management_token: str | SecretStr | None
    scopes: Sequence[str] | None
    timeout: float | httpx.Timeout | None
    retry: RetryConfig | None
    max_pages: int | None
    max_wait: float | None
    rate: str | Rate | None
    cycle_calls: int | None
    env_file: str | os.PathLike[str] | None


@dataclass(frozen=True)
class ClientConfig:
    """Everything the client needs, resolved once; build it with ``ClientConfig.resolve``."""

    base_url: str
    cluster: Cluster = DEFAULT_CLUSTER
    app_id: str | None = None
    app_token: SecretStr | None = None
    management_id: str | None = None
    management_token: SecretStr | None = None
    scopes: tuple[str, ...] = DEFAULT_SCOPES
    timeout: httpx.Timeout = field(default_factory=lambda: DEFAULT_TIMEOUT)
    retry: RetryConfig = field(default_factory=RetryConfig)
    max_pages: int = DEFAULT_MAX_PAGES
    """Pages one list walk may fetch before it stops with ``PaginationError``."""
    token_refresh_skew: float = DEFAULT_TOKEN_REFRESH_SKEW
    """Seconds before a token's expiry at which it is renewed rather than reused."""
    max_wait: float = DEFAULT_MAX_WAIT
    """Seconds the client may wait for a spent call budget to reset; longer raises
    ``QuotaExhaustedError``."""
    rate: Rate | None = None
    """Call starts spread evenly at this rate (``None``: as fast as the calls come)."""
    cycle_calls: int | None = None
    """The project's calls per billing cycle, where its plan is not a published one (an
    enterprise plan) or to state it (``None``: the published plan whose hourly budget the
    answers report, else unknown); see ``Quota.cycle``."""

    def __post_init__(self) -> None:
        # every toolkit error masks them from now on, whatever raises it (``LytError``); a
        # token given as text to the constructor, not as ``SecretStr``, is masked too
        held = (self.app_token, self.management_token)
        remember(t.get_secret_value() if isinstance(t, SecretStr) else str(t) for t in held if t)

    @cached_property
    def url(self) -> httpx.URL:
        """The base URL every call is joined to, normalised once: ``{cluster}`` filled in,
        its path ending in one ``/``.

        The ``/v2`` loyalty API lives under the same base URL as ``/v1`` and
        ``/management`` (spec, "Base address"), so one URL serves all.
        """
        return normalise(self.base_url, self.cluster.value)

    @property
    def resolved_base_url(self) -> str:
        """The base URL as ``client.base_url`` and messages show it: ``url`` without its
        trailing slash."""
        return shown(self.url)

    @classmethod
    def resolve(
        cls,
        *,
        env: Mapping[str, str] | None = None,
        token_refresh_skew: float | None = None,
        **settings: Unpack[ClientSettings],
    ) -> ClientConfig:
        """Resolve from ``settings``, then ``env`` (default ``os.environ``), then ``env_file``.

        Pass ``env_file=None`` to ignore any ``.env`` file.
        """
        unknown = sorted(set(settings) - ClientSettings.__optional_keys__)
        if unknown:
            raise TypeError(f"unknown client setting(s): {', '.join(unknown)}")
        given: Mapping[str, object] = settings
        sources = _sources(env, settings.get("env_file", DEFAULT_ENV_FILE))
        values = {name: _pick(name, given.get(name), sources) for name in ENV_VARS}
        if not values["base_url"]:
            raise ConfigurationError(
                "No service address configured: pass base_url=... (for example the "
                "sandbox's sb.base_url) or set LYT_BASE_URL in the environment or a .env file."
            )
        scopes = settings.get("scopes")
        retry = settings.get("retry")
        return cls(
            base_url=_check_base_url(str(values["base_url"])),
            cluster=_check_cluster(values["cluster"]),
            app_id=values["app_id"] or None,
            app_token=_secret("app_token", values["app_token"]),
            management_id=values["management_id"] or None,
            management_token=_secret("management_token", values["management_token"]),
            scopes=_check_scopes(scopes) if scopes is not None else DEFAULT_SCOPES,
            timeout=_timeout(settings.get("timeout")),
            retry=retry if retry is not None else RetryConfig(),
            max_pages=_max_pages(settings.get("max_pages")),
            max_wait=_max_wait(settings.get("max_wait")),
            rate=_rate(settings.get("rate")),
            cycle_calls=_cycle_calls(values["cycle_calls"]),
            token_refresh_skew=(
                DEFAULT_TOKEN_REFRESH_SKEW
                if token_refresh_skew is None
                else float(token_refresh_skew)
            ),
        )

    def require_app_keys(self) -> tuple[str, str]:
        """The application key pair, or a ConfigurationError saying how to set it."""
        if not self.app_id or self.app_token is None:
            raise ConfigurationError(
                "This call needs the application key pair: pass app_id=... and app_token=... "
                "or set LYT_APP_ID and LYT_APP_TOKEN."
            )
        return self.app_id, self.app_token.get_secret_value()

    def require_management_keys(self) -> tuple[str, str]:
        """The management key pair, or a ConfigurationError saying how to set it."""
        if not self.management_id or self.management_token is None:
            raise ConfigurationError(
                "This call needs the management key pair: pass management_id=... and "
                "management_token=... or set LYT_MANAGEMENT_ID and LYT_MANAGEMENT_TOKEN."
            )
        return self.management_id, self.management_token.get_secret_value()


def _sources(
    env: Mapping[str, str] | None, env_file: str | os.PathLike[str] | None
) -> list[Mapping[str, str | None]]:
    sources: list[Mapping[str, str | None]] = [os.environ if env is None else env]
    if env_file is not None and Path(env_file).is_file():
        sources.append(dotenv_values(env_file))
    return sources


def _pick(name: str, value: Any, sources: list[Mapping[str, str | None]]) -> Any:
    if value is not None:
        return value
    for source in sources:
        found = source.get(ENV_VARS[name])
        if found:
            return found
    return None


def _secret(name: str, value: str | SecretStr | None) -> SecretStr | None:
    """``value`` held as a secret; a ``ConfigurationError`` naming ``name`` (never showing the
    value) unless it can be sent in a header: printable ASCII, no surrounding whitespace."""
    if value is None or value == "":
        return None
    secret = value if isinstance(value, SecretStr) else SecretStr(str(value))
    if not header_safe(secret.get_secret_value()):
        raise ConfigurationError(
            f"{name} must be printable ASCII without surrounding spaces or line breaks "
            "(check its quotes and line end in the .env file); its value is not shown"
        )
    return secret


def _check_base_url(value: str) -> str:
    normalise(value, DEFAULT_CLUSTER.value)
    return value


def _check_cluster(value: Any) -> Cluster:
    if value is None or value == "":
        return DEFAULT_CLUSTER
    try:
        return Cluster(str(value))
    except ValueError:
        allowed = ", ".join(c.value for c in Cluster)
        raise ConfigurationError(f"cluster must be one of {allowed}; got {value!r}") from None


def _check_scopes(scopes: Sequence[str]) -> tuple[str, ...]:
    """``scopes`` as a tuple: a list of scopes, or one string of them space-delimited as on
    the wire (``"loyalties"``)."""
    if isinstance(scopes, str):
        scopes = scopes.split()
    if not isinstance(scopes, Sequence | set | frozenset):
        raise ConfigurationError(
            f"scopes must be a list of scope values such as ['loyalties'], got {scopes!r}"
        )
    unknown = [s for s in scopes if s not in SCOPES]
    if not scopes or unknown:
        raise ConfigurationError(f"scopes must be non-empty known scope values; unknown: {unknown}")
    return tuple(scopes)


def _timeout(value: float | httpx.Timeout | None) -> httpx.Timeout:
    if value is None:
        return DEFAULT_TIMEOUT
    if isinstance(value, httpx.Timeout):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise ConfigurationError(
            f"timeout must be a positive number of seconds or an httpx.Timeout, got {value!r}"
        )
    return httpx.Timeout(float(value))


def _max_pages(value: int | None) -> int:
    if value is None:
        return DEFAULT_MAX_PAGES
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"max_pages must be a whole number from 1, got {value!r}")
    return value


def _max_wait(value: float | None) -> float:
    if value is None:
        return DEFAULT_MAX_WAIT
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigurationError(
            f"max_wait must be a number of seconds from 0 (0: never wait), got {value!r}"
        )
    return float(value)


def _rate(value: str | Rate | None) -> Rate | None:
    return None if value is None else Rate.parse(value)


def _cycle_calls(value: object) -> int | None:
    """``cycle_calls`` (``LYT_CYCLE_CALLS``: its text) as a whole number from 1."""
    if value is None:
        return None
    number = value.strip().replace("_", "").replace(",", "") if isinstance(value, str) else value
    if isinstance(number, str) and number.isdigit():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ConfigurationError(
            f"cycle_calls (LYT_CYCLE_CALLS) must be a whole number of calls from 1, got {value!r}"
        )
    return number
