"""Memory as MCP resources, and change notifications for the sessions that subscribe.

    memory://recent              the most recent active memories the caller may see (RECENT_LIMIT)
    memory://pinned              the pinned active memories the caller may see
    memory://memories/{id}       one memory, if the caller may see it

Each read is rendered as a search result reads: one sentence per memory with its id, then the note
that memory is data. `resources/subscribe` registers the session under its caller; a `ChangeFeed`
reads the event log (which every process appends to when it commits) every CHECK_INTERVAL seconds
and sends `notifications/resources/updated` for a subscribed URI only when a changed memory is one
the subscriber may see. A purged memory can no longer be looked at, so its purge is not announced.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    SubscribeRequestParams,
    TextResourceContents,
    UnsubscribeRequestParams,
)

from hindsight_desktop.core import render
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.records import Memory, MemoryFilter
from hindsight_desktop.core.render import DATA_NOT_INSTRUCTIONS
from hindsight_desktop.mcp.identity import Identity

if TYPE_CHECKING:
    from hindsight_desktop.core.engine import MemoryEngine

RECENT = "memory://recent"
PINNED = "memory://pinned"
ONE_PREFIX = "memory://memories/"
ONE_TEMPLATE = ONE_PREFIX + "{id}"
RECENT_LIMIT = 20
PINNED_LIMIT = 200
CHECK_INTERVAL = 0.5
EVENTS_PER_CHECK = 1000


def _line(m: Memory) -> str:
    pinned = ", pinned" if m.pinned else ""
    return f"- {render.memory_sentence(m)} (id {m.id}; {m.type}; by {m.client}{pinned})"


def render_memories(title: str, memories: list[Memory]) -> str:
    if not memories:
        return f"{title}: none."
    return render.visible("\n".join([f"{title}:", *(_line(m) for m in memories), "", DATA_NOT_INSTRUCTIONS]))


class MemoryResources:
    """The resource handlers over one engine, installed on a server's low-level request table (the
    high-level resource API gives static resources no caller, and visibility depends on the caller)."""

    def __init__(self, engine: MemoryEngine, identity: Identity) -> None:
        self.engine = engine
        self.identity = identity
        self.feed = ChangeFeed(engine)

    def install(self, lowlevel: Any) -> None:
        lowlevel.add_request_handler("resources/list", PaginatedRequestParams, self._list)
        lowlevel.add_request_handler("resources/templates/list", PaginatedRequestParams, self._templates)
        lowlevel.add_request_handler("resources/read", ReadResourceRequestParams, self._read)
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self._unsubscribe)

    def caller(self, ctx: Any) -> str:
        try:
            return self.identity.of(ctx.request)
        except PermissionError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc)) from exc

    async def _list(self, ctx: Any, params: Any) -> ListResourcesResult:
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=RECENT,
                    name="recent",
                    title="Recent memories",
                    mime_type="text/plain",
                    description=f"The {RECENT_LIMIT} most recent memories you may see, newest first.",
                ),
                Resource(
                    uri=PINNED,
                    name="pinned",
                    title="Pinned memories",
                    mime_type="text/plain",
                    description="The memories the person pinned (that you may see).",
                ),
            ]
        )

    async def _templates(self, ctx: Any, params: Any) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(
            resource_templates=[
                ResourceTemplate(
                    uri_template=ONE_TEMPLATE,
                    name="memory",
                    title="One memory",
                    mime_type="text/plain",
                    description="One memory by its id (as search results give it).",
                ),
            ]
        )

    async def _read(self, ctx: Any, params: ReadResourceRequestParams) -> ReadResourceResult:
        uri, caller = str(params.uri), self.caller(ctx)
        text = await anyio.to_thread.run_sync(self.read, uri, caller)
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type="text/plain", text=text)])

    def read(self, uri: str, caller: str) -> str:
        """The text of `uri` as `caller` may see it; an unknown URI or an invisible memory is one error."""
        active = ("active",)
        if uri == RECENT:
            found = self.engine.list_memories(MemoryFilter(statuses=active, viewer=caller), limit=RECENT_LIMIT)
            return render_memories("Recent memories", found)
        if uri == PINNED:
            found = self.engine.list_memories(
                MemoryFilter(statuses=active, pinned=True, viewer=caller), limit=PINNED_LIMIT
            )
            return render_memories("Pinned memories", found)
        if uri.startswith(ONE_PREFIX):
            try:
                return render_memories("Memory", [self.engine.get(uri[len(ONE_PREFIX) :], client=caller)])
            except HindsightError as exc:
                raise MCPError(code=INVALID_PARAMS, message=str(exc), data={"uri": uri}) from exc
        raise MCPError(code=INVALID_PARAMS, message=f"unknown resource {uri!r}", data={"uri": uri})

    async def _subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        uri = str(params.uri)
        if uri not in (RECENT, PINNED) and not uri.startswith(ONE_PREFIX):
            raise MCPError(code=INVALID_PARAMS, message=f"unknown resource {uri!r}", data={"uri": uri})
        self.feed.add(Subscription(ctx.session, asyncio.get_running_loop(), uri, self.caller(ctx)))
        return EmptyResult()

    async def _unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        self.feed.remove(ctx.session, str(params.uri))
        return EmptyResult()


@dataclass(frozen=True)
class Subscription:
    session: Any  # the SDK's ServerSession of the subscriber
    loop: asyncio.AbstractEventLoop  # where that session lives
    uri: str
    caller: str


class ChangeFeed:
    """Reads the event log on its own thread while anyone is subscribed; tells each subscriber about the
    changes to what it subscribed to and may see."""

    def __init__(self, engine: MemoryEngine, interval: float = CHECK_INTERVAL) -> None:
        self.engine = engine
        self.interval = interval
        self._subs: dict[tuple[int, str], Subscription] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last: int | None = None

    def add(self, sub: Subscription) -> None:
        with self._lock:
            self._subs[(id(sub.session), sub.uri)] = sub
            if self._thread is None:
                self._last = self._newest()
                self._thread = threading.Thread(target=self._run, name="hindsight-mcp-changes", daemon=True)
                self._thread.start()

    def remove(self, session: Any, uri: str) -> None:
        with self._lock:
            self._subs.pop((id(session), uri), None)

    def _newest(self) -> int:
        newest = self.engine.events(limit=1)
        return newest[0].id if newest else 0

    def _run(self) -> None:
        while True:
            threading.Event().wait(self.interval)
            with contextlib.suppress(Exception):  # a failed check (a closing engine) is tried again
                self.check()

    def check(self) -> None:
        """Announce what changed since the last check."""
        events = [e for e in self.engine.events(limit=EVENTS_PER_CHECK) if e.id > (self._last or 0)]
        if not events:
            return
        self._last = max(e.id for e in events)
        with self._lock:
            subs = list(self._subs.values())
        changed = {e.memory_id: e.kind for e in events if e.memory_id}
        seen: dict[tuple[str, str], Memory | None] = {}
        for sub in subs:
            if self._touches(sub, changed, seen):
                self._send(sub)

    def _visible(self, memory_id: str, caller: str, seen: dict[tuple[str, str], Memory | None]) -> Memory | None:
        key = (memory_id, caller)
        if key not in seen:
            try:
                seen[key] = self.engine.get(memory_id, client=caller)
            except HindsightError:  # another client's private memory, or purged
                seen[key] = None
        return seen[key]

    def _touches(self, sub: Subscription, changed: dict[str, str], seen: dict[tuple[str, str], Memory | None]) -> bool:
        if sub.uri.startswith(ONE_PREFIX):
            memory_id = sub.uri[len(ONE_PREFIX) :]
            return memory_id in changed and self._visible(memory_id, sub.caller, seen) is not None
        for memory_id, kind in changed.items():
            memory = self._visible(memory_id, sub.caller, seen)
            if memory is None:
                continue
            if sub.uri == RECENT or memory.pinned or kind == "pin":
                return True
        return False

    def _send(self, sub: Subscription) -> None:
        try:
            future = asyncio.run_coroutine_threadsafe(sub.session.send_resource_updated(sub.uri), sub.loop)
            future.result(timeout=10)
        except Exception:  # the session or its loop has gone: forget the subscription
            self.remove(sub.session, sub.uri)
