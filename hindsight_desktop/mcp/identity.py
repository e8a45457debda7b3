"""Who is calling a tool: the name the HTTP layer authenticated, or the stdio process's own name.

The bearer-token wrapper (asgi.py) writes the client's name into the ASGI scope under `CLIENT_KEY`;
the tools read it back from the request the SDK hands them. When neither is there, the call is
refused: access control fails closed.

A client's name is its identity: it owns the private memories written under that name. The names the
product writes under itself are reserved, so an HTTP client can never be registered as one, and a call
that arrives over HTTP under one is refused. A stdio process is started by the local user and is
trusted as that user: it may take any name but the person's own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.identities import (
    PERSON_WRITERS,
    RESERVED_WRITERS,
    STDIO_DEFAULT,
    client_name,
)
from hindsight_desktop.mcp.client_config import KINDS

CLIENT_KEY = "hindsight.client"
CLIENT_ENV = "HINDSIGHT_CLIENT"

# The product's own writer names (core/identities.py) and the name set up for each command-launched
# client: an HTTP client named like any of these could read what they wrote privately.
RESERVED_NAMES = RESERVED_WRITERS | {kind.key for kind in KINDS.values() if kind.stdio}


class NoIdentity(PermissionError):
    """A request reached a tool without a known client (never expected behind the wrapper)."""


def is_reserved(name: str) -> bool:
    """True for a name the product writes under itself (compared without case: 'Desktop' reads the same)."""
    return name.strip().casefold() in RESERVED_NAMES


def http_client_name(value: object) -> str:
    """A name an HTTP client may be registered under: a valid client name that is not reserved."""
    name = client_name(value)
    if is_reserved(name):
        raise InvalidInput(
            f"client name {name!r} is reserved: Hindsight Desktop writes under it itself (the person, or an "
            f"assistant started as a command), so an HTTP client may not use it; choose another name"
        )
    return name


@dataclass(frozen=True)
class Identity:
    """How this server names its callers.

    `local` is the name for calls that arrive without an HTTP request (stdio, in-process);
    `anonymous` is the name for HTTP calls without a token, set only by `serve --no-auth`.
    """

    local: str | None = None
    anonymous: str | None = None

    def of(self, request: Any) -> str:
        if request is None:
            if self.local is None:
                raise NoIdentity("this server has no client name for local calls")
            return self.local
        scope = getattr(request, "scope", None) or {}
        name = scope.get(CLIENT_KEY)
        if name:
            if is_reserved(str(name)):
                # Registered before names were reserved (or by hand): refused rather than trusted.
                raise NoIdentity(
                    f"client name {name!r} is reserved for Hindsight Desktop itself; register this "
                    f"client under another name"
                )
            return str(name)
        if self.anonymous is not None:
            return self.anonymous
        raise NoIdentity("the request carries no authenticated client; refusing")


def stdio_client_name(flag: str | None = None) -> str:
    """`--client NAME`, else $HINDSIGHT_CLIENT, else "stdio". Any name but the person's own: what a
    stdio assistant writes must never read as the person's words."""
    name = client_name(flag or os.environ.get(CLIENT_ENV) or STDIO_DEFAULT)
    if name.casefold() in PERSON_WRITERS:
        raise InvalidInput(
            f"client name {name!r} is the person's own (what they write in the app or the CLI); "
            f"start the stdio server under the assistant's name, e.g. --client claude-desktop"
        )
    return name
