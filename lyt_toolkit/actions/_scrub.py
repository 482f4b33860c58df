"""Keep credentials out of result rows: the one scrubber every plan's messages pass through."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import SecretStr

__all__ = ["credential_scrubber"]

_CREDENTIALS = ("app_token", "management_token")
_SHORTEST = 4  # shorter values would mask ordinary words


def credential_scrubber(client: object) -> Callable[[str], str]:
    """A function replacing any credential of ``client``'s config in a text with ``***``."""
    config = getattr(client, "config", None)
    secrets = [
        text
        for text in (_text(getattr(config, name, None)) for name in _CREDENTIALS)
        if text is not None and len(text) >= _SHORTEST
    ]

    def scrub(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, "***")
        return text

    return scrub


def _text(value: object) -> str | None:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    return value if isinstance(value, str) else None
