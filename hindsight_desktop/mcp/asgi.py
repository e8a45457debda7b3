"""The guard in front of the MCP HTTP app: Host/Origin checks, one path, a bearer token per client,
and sessions kept bounded and bound to the client that opened them.

Order matters: a request from a rebinding web page is refused for its Host/Origin (421/403) before
anything looks at credentials; only then is the token checked (401 with `WWW-Authenticate: Bearer` and
no detail). Nothing but the MCP endpoint is served, so no OAuth discovery document can ever be
advertised (clients such as Claude Code and Cursor stop sending a configured header once one is).
Each authenticated request is reported to a `Presence`, so the app can show who is connected.

Sessions (see sessions.py): a request carrying another client's session id gets the same 404 as an
unknown id; a client opening one session more than its allowance has its longest-idle session closed
first (or gets 429 when all are in use). The SDK is told the caller too (`scope["user"]`), so its own
session-owner check agrees with ours.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hindsight_desktop.core.identities import NO_AUTH_CLIENT
from hindsight_desktop.mcp.identity import CLIENT_KEY
from hindsight_desktop.mcp.presence import Presence
from hindsight_desktop.mcp.sessions import SessionLimits, SessionsFull, SessionTable

Verifier = Callable[[str], str | None]  # token -> client name, or None when unknown or revoked
SESSION_HEADER = "mcp-session-id"
VERSION_HEADER = "mcp-protocol-version"


def _header(scope: Scope, name: str) -> str | None:
    raw = name.encode("ascii")
    return next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == raw), None)


# The names this loopback server answers to. The SDK's own check matches "localhost:*" as a prefix, so
# "localhost:1@evil.com" passed it; ours compares whole values, host and port.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _values(scope: Scope, name: str) -> list[str]:
    raw = name.encode("ascii")
    return [v.decode("latin-1") for k, v in scope["headers"] if k.lower() == raw]


def local_hosts(port: int | None) -> frozenset[str] | None:
    """Every Host value that names this server on `port` exactly (None: any port, when it is unknown)."""
    if port is None:
        return None
    return frozenset({f"{name}:{port}" for name in LOCAL_HOSTS} | (set(LOCAL_HOSTS) if port == 80 else set()))


def _is_local_host(value: str, allowed: frozenset[str] | None) -> bool:
    value = value.strip().lower()
    if allowed is not None:
        return value in allowed
    name, port = value, ""
    if ":" in value and not value.endswith("]"):
        name, _, port = value.rpartition(":")
    return name in LOCAL_HOSTS and (not port or (port.isdigit() and len(port) <= 5))


def refusal(scope: Scope) -> Response | None:
    """421 unless there is exactly one Host header naming this server (loopback name and its port); 403
    when an Origin header is there and is not this server's own origin (http, loopback, its port)."""
    server = scope.get("server")
    allowed = local_hosts(server[1] if server and isinstance(server[1], int) else None)
    hosts = _values(scope, "host")
    if len(hosts) != 1 or not _is_local_host(hosts[0], allowed):
        return _error(421, "Invalid Host header")
    origins = _values(scope, "origin")
    if origins:
        value = origins[0].strip().lower()
        scheme, sep, rest = value.partition("://")
        if len(origins) != 1 or scheme != "http" or not sep or not _is_local_host(rest, allowed):
            return _error(403, "Invalid Origin header")
    return None


def _error(status: int, message: str) -> Response:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    return Response(json.dumps(body, separators=(",", ":")), status_code=status, media_type="application/json")


class GuardedApp:
    """ASGI wrapper. `verify=None` turns token checks off (serve --no-auth, loopback only)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        verify: Verifier | None,
        security: TransportSecuritySettings,
        path: str = "/mcp",
        presence: Presence | None = None,
        limits: SessionLimits | None = None,
    ) -> None:
        self.app = app
        self.verify = verify
        self.path = path
        self.presence = presence
        self.sessions = SessionTable(limits or SessionLimits())
        self._hosts = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets and anything else: not served here
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        refused = refusal(scope) or await self._hosts.validate_request(Request(scope), is_post=False)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope["path"] not in (self.path, self.path + "/"):
            await Response(status_code=404)(scope, receive, send)
            return
        name = NO_AUTH_CLIENT
        if self.verify is not None:
            # A database read: off the event loop, so a busy disk never stalls other requests.
            verified = await anyio.to_thread.run_sync(self._client, scope)
            if verified is None:
                await Response(status_code=401, headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
            name = scope[CLIENT_KEY] = verified
            # The SDK binds each session to this principal as well (its own 404 on a mismatch).
            scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=name, scopes=[]))
        if self.presence is not None and self.verify is not None:
            await self._noted(name, scope, receive, send)
            return
        await self._in_session(name, scope, receive, send)

    async def _in_session(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request within the session rules: owner check, per-client allowance, bookkeeping."""
        session_id = _header(scope, SESSION_HEADER)
        if session_id is not None:
            owner = self.sessions.owner(session_id)
            if owner is not None and owner != name:
                # Exactly what an unknown id gets: nothing tells the caller the id exists.
                await _error(404, "Session not found")(scope, receive, send)
                return
            await self._existing(session_id, scope, receive, send)
            return
        if scope["method"] == "POST" and _header(scope, VERSION_HEADER) in (None, *HANDSHAKE_PROTOCOL_VERSIONS):
            try:
                stale = self.sessions.make_room(name)
            except SessionsFull as exc:
                await _error(429, str(exc))(scope, receive, send)
                return
            for old in stale:
                await self._close(old, scope)
            await self.app(scope, receive, self._recording(name, send))
            return
        await self.app(scope, receive, send)

    async def _existing(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        status = 0

        async def watching(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        self.sessions.begin(session_id)
        try:
            await self.app(scope, receive, watching)
        finally:
            self.sessions.end(session_id)
            if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
                self.sessions.closed(session_id)  # ended by the client, or already gone in the SDK

    def _recording(self, name: str, send: Send) -> Send:
        """Note the session id the SDK hands out in its answer, under the client that asked."""

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == SESSION_HEADER.encode("ascii"):
                        self.sessions.opened(name, value.decode("latin-1"))
            await send(message)

        return recording

    async def _close(self, session_id: str, scope: Scope) -> None:
        """End a session in the SDK the way its client would: a DELETE with its id (answer discarded)."""
        keep = {b"host", b"origin", b"authorization"}
        headers = [(k, v) for k, v in scope["headers"] if k.lower() in keep]
        headers.append((SESSION_HEADER.encode("ascii"), session_id.encode("latin-1")))
        delete = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}

        sent = False

        async def nothing_more() -> Message:
            nonlocal sent
            if sent:  # anything listening for more hears that this caller is gone
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self.app(delete, nothing_more, discard)

    async def _noted(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request while `presence` knows it is in flight, and how it was answered."""
        assert self.presence is not None
        with self.presence.request(name, scope["method"]) as answered:

            async def noting(message: Message) -> None:
                if message["type"] == "http.response.start":
                    answered(int(message["status"]))
                await send(message)

            await self._in_session(name, scope, receive, noting)

    def _client(self, scope: Scope) -> str | None:
        header = Request(scope).headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        assert self.verify is not None
        return self.verify(token.strip())
