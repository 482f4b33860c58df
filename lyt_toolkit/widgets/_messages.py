"""What widgets say: status lines with their state's icon and colour, error text that
never carries a credential, option labels."""

from __future__ import annotations

import html
from typing import Any, Literal

from ..errors import LytError

__all__ = [
    "BAR_STYLES",
    "COLOURS",
    "State",
    "describe_error",
    "enum_text",
    "error_html",
    "ok_html",
    "status_html",
]

State = Literal["running", "success", "partial", "failure"]

COLOURS: dict[State, str] = {
    "running": "#0d47a1",
    "success": "#1b5e20",
    "partial": "#8a5300",
    "failure": "#b00020",
}
BAR_STYLES: dict[State, str] = {
    "running": "info",
    "success": "success",
    "partial": "warning",
    "failure": "danger",
}
ICONS: dict[State, str] = {
    "running": "\u23f3",
    "success": "\u2714",
    "partial": "\u26a0",
    "failure": "\u2716",
}


def status_html(text: str, state: State) -> str:
    """``text`` escaped, with the icon and colour of ``state`` (running, success, partial,
    failure)."""
    return (
        f'<span style="color:{COLOURS[state]};font-weight:600">'
        f"{ICONS[state]} {html.escape(text)}</span>"
    )


def error_html(text: str) -> str:
    """``text`` escaped and shown as a failure."""
    return status_html(text, "failure")


def ok_html(text: str) -> str:
    """``text`` escaped and shown as a success."""
    return status_html(text, "success")


def describe_error(exc: BaseException) -> str:
    """A user-facing line for an error raised while loading data (never a credential)."""
    if isinstance(exc, LytError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def enum_text(value: Any) -> str:
    """An enum member's value, or any other value as text (for option labels)."""
    return str(getattr(value, "value", value))
