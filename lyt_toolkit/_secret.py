"""The forms a secret takes in a text, whether it can travel in an HTTP header, bearer
tokens masked in a text quoting a file, and the secrets the process holds.

A leaf every layer may import (it imports nothing of the package): the client's scrubber
and the command line's ``scrub`` mask the same forms. ``remember`` keeps each secret a
client is configured with or issued, process-wide, and ``hold_configured`` the tokens the
environment and the working directory's ``.env`` set (a client made with no argument would
use them), read again whenever an error is made or a file quoted; ``mask_held`` masks them
all in any text, whoever raises it (``MaskedError``, and so ``LytError``, masks its message
and attributes with it, and ``quoted``, what a message quotes of a file, before cutting it
short).
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import stat
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from urllib.parse import quote, quote_plus

__all__ = [
    "APP_TOKEN_VARIABLE",
    "ENV_FILE",
    "HELD",
    "ISSUED_REMEMBERED",
    "MANAGEMENT_TOKEN_VARIABLE",
    "MASK",
    "MIN_SECRET_LENGTH",
    "HeldSecrets",
    "MaskedError",
    "configured_tokens",
    "header_safe",
    "hold_configured",
    "mask",
    "mask_bearer",
    "mask_held",
    "quoted",
    "quoted_short",
    "remember",
    "secret_forms",
]

MASK = "***"
MIN_SECRET_LENGTH = 4
"""Shorter values are not masked: replacing every ``t`` would garble the message."""
_BEARER = re.compile(r"\b(bearer)(?:\s|\\[tnr]|%20)+([^\s'\"\\,;()<>\[\]{}]+)", re.IGNORECASE)
"""The scheme, the space after it (as is, escaped in a ``repr`` or percent-encoded) and the
token: everything up to a space, a quote or a backslash (a ``repr``'s end or escape), or a
separator no token holds (a comma, a semicolon, a bracket)."""
_PROSE = frozenset({"token", "tokens"})
"""Words that follow *bearer* in a sentence, not a token."""


def header_safe(secret: str) -> bool:
    """True when ``secret`` is printable ASCII without surrounding spaces: a header value."""
    return secret.isascii() and secret.isprintable() and secret == secret.strip()


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """Every form of each secret, longest first: as is, percent-encoded (in a path or
    a form), escaped as a ``repr`` of it or of its bytes shows it (a newline as ``\\n``,
    as h11's errors quote it), in a JSON string and in HTML (a server may echo a header
    or a form field in any of these)."""
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) >= MIN_SECRET_LENGTH:
            forms.update(_forms_of(secret))
    return sorted(forms, key=len, reverse=True)


FORMS_KEPT = 256
"""Secrets whose forms ``_forms_of`` keeps worked out (most recently used): more than
``HeldSecrets`` holds, so a token issued works out its own forms only, not every one held
again (eleven encodings of each of up to 64 tokens, per token issued)."""


@functools.lru_cache(maxsize=FORMS_KEPT)
def _forms_of(secret: str) -> tuple[str, ...]:
    """The forms of one secret (``secret_forms``), each once."""
    escaped = (repr(secret)[1:-1], repr(secret.encode())[2:-1])
    encoded = (quote(secret, safe=""), quote(secret), quote_plus(secret))
    as_json = (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1])
    as_html = (html.escape(secret), html.escape(secret, quote=False))
    return tuple({secret, *escaped, *encoded, *as_json, *as_html})


def mask_bearer(text: str) -> str:
    """``text`` with the token of every ``Bearer <token>`` in it replaced by ``***`` whole
    (``Bearer ***``), whoever's it is: a value quoted from a file may hold any token, not
    only a configured one. *bearer token* in a sentence is kept."""

    def masked(found: re.Match[str]) -> str:
        word = found[2].rstrip(".:!?").lower()
        return found[0] if word in _PROSE else f"{found[1]} {MASK}"

    return _BEARER.sub(masked, text)


def mask(text: str, forms: Sequence[str]) -> str:
    """``text`` with each of ``forms`` (longest first) replaced by ``***``."""
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    return text


ISSUED_REMEMBERED = 64
"""Bearer tokens ``remember`` keeps, process-wide (the newest): older ones expired long ago."""


class HeldSecrets:
    """The secrets of every client of the process: each key token a client was configured
    with (never forgotten: a process configures few) and the last ``ISSUED_REMEMBERED``
    bearer tokens issued. ``forms`` is replaced whole on a change, so it is read without a
    lock."""

    def __init__(self) -> None:
        self.keys: dict[str, None] = {}
        self.issued: deque[str] = deque(maxlen=ISSUED_REMEMBERED)
        self.forms: tuple[str, ...] = ()
        """The forms of every secret held (``secret_forms``), longest first."""
        self.lock = threading.Lock()

    def add(self, secrets: Iterable[str], *, issued: bool) -> None:
        """Hold ``secrets`` (those of ``MIN_SECRET_LENGTH`` characters or more)."""
        with self.lock:
            held = (*self.keys, *self.issued) if issued else self.keys
            new = [s for s in dict.fromkeys(secrets) if len(s) >= MIN_SECRET_LENGTH]
            new = [s for s in new if s not in held]
            if not new:
                return
            if issued:
                self.issued.extend(new)
            else:
                self.keys.update(dict.fromkeys(new))
            self.forms = tuple(secret_forms([*self.keys, *self.issued]))

    def after_fork(self) -> None:
        """A new lock in a child just forked: a thread of the parent may have held it."""
        self.lock = threading.Lock()


HELD = HeldSecrets()
"""The process's secrets (a test puts an empty one in its place to start from none)."""
os.register_at_fork(after_in_child=lambda: HELD.after_fork())


def remember(secrets: Iterable[str], *, issued: bool = False) -> None:
    """Keep ``secrets`` for ``mask_held``: a client's key tokens when its configuration is
    made, or, ``issued``, a bearer token as a client receives it. Nothing is forgotten when a
    client closes: a message may quote a token after its client is gone."""
    HELD.add(secrets, issued=issued)


def mask_held(text: str) -> str:
    """``text`` with every secret ``remember`` keeps (in each of its forms) masked."""
    forms = HELD.forms
    return mask(text, forms) if forms else text


APP_TOKEN_VARIABLE = "LYT_APP_TOKEN"
MANAGEMENT_TOKEN_VARIABLE = "LYT_MANAGEMENT_TOKEN"
ENV_FILE = ".env"
"""The file a client reads its settings from by default, in the working directory."""
_env_file_read: tuple[tuple[int, ...], tuple[str, ...]] = ((), ())
"""The last ``ENV_FILE`` parsed, by what ``os.stat`` said of it, and the tokens it set."""


def configured_tokens() -> list[str]:
    """The tokens the process environment and the working directory's ``.env`` set
    (``LYT_APP_TOKEN``, ``LYT_MANAGEMENT_TOKEN``): those a client made with no token argument
    would use. The file is parsed again only once ``os.stat`` says it changed: otherwise
    this costs two look-ups in ``os.environ`` and one ``os.stat``."""
    names = (APP_TOKEN_VARIABLE, MANAGEMENT_TOKEN_VARIABLE)
    found = [value for name in names if (value := os.environ.get(name))]
    return found + list(_env_file_tokens(names))


def _env_file_tokens(names: tuple[str, ...]) -> tuple[str, ...]:
    """The values ``ENV_FILE`` gives ``names`` (none when it is missing or unreadable)."""
    global _env_file_read
    try:
        status = os.stat(ENV_FILE)
    except OSError:
        return ()
    if not stat.S_ISREG(status.st_mode):
        return ()
    signature = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    read, tokens = _env_file_read
    if read == signature:
        return tokens
    from dotenv import dotenv_values  # only where there is a .env: an error is made rarely

    try:
        values = dotenv_values(ENV_FILE)
    except (OSError, ValueError):  # unreadable, or not UTF-8
        return ()
    tokens = tuple(value for name in names if (value := values.get(name)))
    _env_file_read = (signature, tokens)
    return tokens


def hold_configured() -> bool:
    """Hold (``remember``) the tokens the environment and the working directory's ``.env``
    set now (``configured_tokens``): a message may quote one before any client is made.
    True when one was not held before."""
    tokens = configured_tokens()
    if any(len(token) >= MIN_SECRET_LENGTH and token not in HELD.keys for token in tokens):
        remember(tokens)
        return True
    return False


def quoted(text: str) -> str:
    """What a message quotes of a file or a frame, made safe to show: every secret held and
    every token the environment configures masked (``hold_configured``, ``mask_held``), and
    any other ``Bearer <token>`` (``mask_bearer``). Mask before cutting a quote short: a cut
    token is not found."""
    hold_configured()
    return mask_bearer(mask_held(text))


def quoted_short(text: str, width: int = 60) -> str:
    """``quoted(text)`` cut to ``width`` characters, ``...`` ending a cut one: masked first,
    so no start of a secret shows where a quote is cut."""
    shown = quoted(text)
    return shown if len(shown) <= width else shown[: width - 3] + "..."


def _masked_value(value: object) -> object:
    """``value`` with every secret held masked: a text, or each text of a list or tuple."""
    if isinstance(value, str):
        return mask_held(value)
    if isinstance(value, list | tuple) and any(isinstance(v, str) for v in value):
        masked = [mask_held(v) if isinstance(v, str) else v for v in value]
        return masked if isinstance(value, list) else tuple(masked)
    return value


class MaskedError(Exception):
    """An exception that shows no secret, whatever raised it. As it is made, the tokens the
    environment or ``.env`` sets are held (``hold_configured``); its arguments and every text
    attribute set on it (or list or tuple of texts) have every secret held masked as ``***``
    (``mask_held``), so ``str``, ``repr``, ``args`` and a traceback never show one."""

    def __init__(self, *args: object) -> None:
        if hold_configured():  # a token new: mask again what a subclass set before
            for name, value in list(vars(self).items()):
                super().__setattr__(name, _masked_value(value))
        super().__init__(*(_masked_value(a) for a in args))

    def __setattr__(self, name: str, value: object) -> None:
        super().__setattr__(name, _masked_value(value))
