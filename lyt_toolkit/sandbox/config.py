"""Settings of one sandbox instance: credentials, data, clock and lifetimes."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import timedelta
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypedDict

from .._secret import APP_TOKEN_VARIABLE, MANAGEMENT_TOKEN_VARIABLE
from .clock import iso, parse_instant

DEMO_PROGRAM: Traversable = files(__package__) / "demo_program.json"
"""The demo program, shipped inside the package (so a wheel install has it too)."""

DEFAULT_CREDENTIALS = {
    "app_id": "sandbox-app-id",
    "app_token": "sandbox-app-token",
    "management_id": "sandbox-management-id",
    "management_token": "sandbox-management-token",
}
ENV_VARIABLES = {
    "app_id": "LYT_APP_ID",
    "app_token": APP_TOKEN_VARIABLE,
    "management_id": "LYT_MANAGEMENT_ID",
    "management_token": MANAGEMENT_TOKEN_VARIABLE,
}


class ClientKeys(TypedDict):
    """The key pairs as ``LoyaltyClient`` keyword arguments (``**keys`` type-checks)."""

    app_id: str
    app_token: str
    management_id: str
    management_token: str


@dataclass(frozen=True)
class SandboxCredentials:
    """The key pairs the sandbox accepts. The tokens never show in a repr."""

    app_id: str
    app_token: str = field(repr=False)
    management_id: str
    management_token: str = field(repr=False)

    @classmethod
    def from_env(cls) -> SandboxCredentials:
        """From ``LYT_*`` variables, falling back to the documented demo values."""
        return cls(
            **{k: os.environ.get(ENV_VARIABLES[k]) or v for k, v in DEFAULT_CREDENTIALS.items()}
        )

    def as_client_kwargs(self) -> ClientKeys:
        """The key pairs to give a client: ``LoyaltyClient(..., **keys.as_client_kwargs())``."""
        return {
            "app_id": self.app_id,
            "app_token": self.app_token,
            "management_id": self.management_id,
            "management_token": self.management_token,
        }


@dataclass
class SandboxConfig:
    """Everything needed to build one sandbox app."""

    data: str | Path | dict[str, Any] | None = None
    db: str | None = None
    now: str | None = None
    seed: int | None = None
    credentials: SandboxCredentials = field(default_factory=SandboxCredentials.from_env)
    token_ttl: timedelta = timedelta(hours=1)
    cursor_ttl: timedelta = timedelta(minutes=30)
    activation_delay: float = 0.05
    """Seconds before an activation transaction completes in the background."""
    plan: str | None = None
    """The call budget (``startup``, ``100/minute``, ...; see ``quota``); ``None`` takes
    the plan of the program's first project, else ``unlimited``."""


def held_program(config: SandboxConfig) -> str:
    """What a sandbox built from ``config`` holds, as a record of the service names it
    (``_services``): its program (the bundled demo, else a digest of the file or the data
    given), seed, clock (its instant in the wire form) and database (``path_digest``: never
    the path, which every answer carries, even a refusal). Printable ASCII throughout, so
    it is a header value as it is."""
    data = config.data
    if data is None:
        program = "the bundled demo program"
    elif isinstance(data, dict):
        content = json.dumps(data, sort_keys=True, default=str).encode()
        program = f"program {hashlib.sha256(content).hexdigest()[:16]}"
    else:
        try:
            program = f"program {hashlib.sha256(Path(data).read_bytes()).hexdigest()[:16]}"
        except OSError:  # gone since it was loaded: named by its path (a digest of it)
            program = f"program file {path_digest(data)}"
    parts = [f"sandbox of {program}", f"seed {config.seed}"]
    if config.now is not None:
        parts.append(f"clock {iso(parse_instant(config.now))}")
    if config.db:  # "" keeps it in memory, as None does
        parts.append(f"database {path_digest(config.db)}")
    return ", ".join(parts)


def path_digest(path: str | os.PathLike[str]) -> str:
    """A file named without its path: the first 12 hex digits of the SHA-256 of its
    canonical path's bytes (``os.path.realpath``: absolute, every symbolic link followed, so
    a ``..`` after a link leads where the file system goes; ``os.fsencode``: a name that is
    not UTF-8 too). The same in every process that names the file by a path reaching it (a
    relative one taken from where it runs); another file, another digest."""
    return hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:12]
