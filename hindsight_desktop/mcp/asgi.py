"""The guard in front of the MCP HTTP app: Host/Origin checks, one path, a bearer token per client.

Order matters: a request from a rebinding web page is refused for its Host/Origin (421/403) before
anything looks at credentials; only then is the token checked (401 with `WWW-Authenticate: Bearer` and
no detail). Nothing but the MCP endpoint is served, so no OAuth discovery document can ever be
advertised (clients such as Claude Code and Cursor stop sending a configured header once one is).
Each authenticated request is reported to a `Presence`, so the app can show who is connected.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio.to_thread
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hindsight_desktop.mcp.identity import CLIENT_KEY
from hindsight_desktop.mcp.presence import Presence

Verifier = Callable[[str], str | None]  # token -> client name, or None when unknown or revoked


class GuardedApp:
    """ASGI wrapper. `verify=None` turns token checks off (serve --no-auth, loopback only)."""

    def __init__(self, app: ASGIApp, *, verify: Verifier | None, security: TransportSecuritySettings,
                 path: str = "/mcp", presence: Presence | None = None) -> None:
        self.app = app
        self.verify = verify
        self.path = path
        self.presence = presence
        self._hosts = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets and anything else: not served here
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        refused = await self._hosts.validate_request(Request(scope), is_post=False)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope["path"] not in (self.path, self.path + "/"):
            await Response(status_code=404)(scope, receive, send)
            return
        if self.verify is not None:
            # A database read: off the event loop, so a busy disk never stalls other requests.
            name = await anyio.to_thread.run_sync(self._client, scope)
            if name is None:
                await Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
            scope[CLIENT_KEY] = name
            if self.presence is not None:
                await self._noted(name, scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _noted(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request while `presence` knows it is in flight, and how it was answered."""
        assert self.presence is not None
        with self.presence.request(name, scope["method"]) as answered:
            async def noting(message: Message) -> None:
                if message["type"] == "http.response.start":
                    answered(int(message["status"]))
                await send(message)

            await self.app(scope, receive, noting)

    def _client(self, scope: Scope) -> str | None:
        header = Request(scope).headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        assert self.verify is not None
        return self.verify(token.strip())
