"""Who is calling a tool: the name the HTTP layer authenticated, or the stdio process's own name.

The bearer-token wrapper (asgi.py) writes the client's name into the ASGI scope under `CLIENT_KEY`;
the tools read it back from the request the SDK hands them. When neither is there, the call is
refused: access control fails closed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from hindsight_desktop.core.clients import client_name

CLIENT_KEY = "hindsight.client"
CLIENT_ENV = "HINDSIGHT_CLIENT"
STDIO_DEFAULT = "stdio"
NO_AUTH_CLIENT = "no-auth"


class NoIdentity(PermissionError):
    """A request reached a tool without a known client (never expected behind the wrapper)."""


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
            return str(name)
        if self.anonymous is not None:
            return self.anonymous
        raise NoIdentity("the request carries no authenticated client; refusing")


def stdio_client_name(flag: str | None = None) -> str:
    """`--client NAME`, else $HINDSIGHT_CLIENT, else "stdio"."""
    return client_name(flag or os.environ.get(CLIENT_ENV) or STDIO_DEFAULT)
