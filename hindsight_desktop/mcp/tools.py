"""The five memory tools: translate arguments, call the engine, return structured data plus sentences.

Each tool is a plain synchronous method; the SDK runs it on a worker thread, and the engine's store
serialises database access with its own lock. Engine errors become tool errors carrying the engine's
message (the model can read and fix its input); the server keeps serving.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, BeforeValidator, Field

from hindsight_desktop.core import render
from hindsight_desktop.core.engine import HIT_CONFIDENCE, MAX_ID_CHARS, MemoryEngine
from hindsight_desktop.core.errors import HindsightError
from hindsight_desktop.core.records import SearchHit
from hindsight_desktop.mcp import coerce
from hindsight_desktop.mcp.identity import Identity, NoIdentity
from hindsight_desktop.mcp.schemas import (
    ForgetOutput,
    LinkOutput,
    MaintenanceOutput,
    SearchOutput,
    WriteOutput,
)

MAX_LIMIT = 50
# Recalled text per answer, in characters (~8k tokens): well under the ~25k-token cap some clients apply,
# counting the structured copy and the sentences.
RESULT_BUDGET_CHARS = 30_000

Scope = Annotated[Literal["private", "shared"], BeforeValidator(coerce.lower_word)]
MaintenanceScope = Annotated[Literal["all"], BeforeValidator(coerce.lower_word)]
# The optional `used` argument of search and write: the health metric's second half (how much of what was
# recalled helped) and a stronger use of each memory than being returned.
Used = Annotated[
    list[Annotated[str, Field(max_length=MAX_ID_CHARS)]] | None,
    BeforeValidator(coerce.text_list),
    Field(
        description="Ids of memories from your earlier memory_search results that your reply relied on "
        "(not the ones you merely saw). Helps the memory learn what is useful; optional."
    ),
]


@contextlib.contextmanager
def engine_errors() -> Iterator[None]:
    """The engine's own errors (bad input, unknown id, paused, model) as tool errors with their message."""
    try:
        yield
    except (HindsightError, NoIdentity) as exc:
        raise ToolError(str(exc)) from exc


def _result(model: type[BaseModel], data: dict[str, Any], text: str) -> CallToolResult:
    model.model_validate(data)  # fail here, named, rather than in the SDK's output check
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


class MemoryTools:
    """The tools over one engine. `identity` names the caller of every call."""

    def __init__(self, engine: MemoryEngine, identity: Identity) -> None:
        self.engine = engine
        self.identity = identity

    def caller(self, ctx: Context) -> str:
        return self.identity.of(ctx.request_context.request)

    def _note_used(self, used: list[str] | None, ctx: Context) -> None:
        """Queue the caller's report of used memories, once its call succeeded (an error means nothing
        happened, so a retry does not count twice). Its shape is checked by the signature before the call;
        visibility later, off the caller's answer: the same reply whether an id is another client's private
        memory or names nothing."""
        if used:
            self.engine.record_used(used, client=self.caller(ctx))

    def memory_write(
        self,
        content: Annotated[str, Field(description="What to remember, as a self-contained sentence.")],
        ctx: Context,
        type: Annotated[
            coerce.Text | None,
            Field(description="fact, preference, event, plan, instruction, skill or note; guessed when omitted."),
        ] = None,
        importance: Annotated[coerce.Float | None, Field(description="0-1; guessed when omitted.")] = None,
        metadata: Annotated[coerce.JsonObject | None, Field(description="Small JSON object kept with it.")] = None,
        timestamp: Annotated[
            coerce.Text | None, Field(description="When it happened (ISO 8601), for importing history; default now.")
        ] = None,
        session_id: Annotated[coerce.Text | None, Field(description="Groups working memory by session.")] = None,
        scope: Annotated[
            Scope, Field(description="shared (every assistant may recall it) or private (only you).")
        ] = "shared",
        used: Used = None,
    ) -> Annotated[CallToolResult, WriteOutput]:
        with engine_errors():
            result = self.engine.write(
                content,
                client=self.caller(ctx),
                type=type,
                importance=importance,
                metadata=metadata,
                occurred_at=timestamp,
                session_id=session_id,
                scope=scope,
            )
            self._note_used(used, ctx)
        return _result(WriteOutput, result.to_dict(), render.write_text(result))

    def memory_search(
        self,
        query: Annotated[str, Field(description="What you want to recall, in natural words.")],
        ctx: Context,
        limit: Annotated[coerce.Int, Field(description=f"How many results, 1-{MAX_LIMIT}.")] = 5,
        memory_type: Annotated[coerce.TextOrList | None, Field(description="Only these types (one or a list).")] = None,
        time_range_days: Annotated[
            coerce.Float | None, Field(description="Only memories from the last N days.")
        ] = None,
        deep: Annotated[coerce.Bool, Field(description="Also search archived (cold) memories.")] = False,
        explain: Annotated[coerce.Bool, Field(description="Include each signal's score.")] = False,
        used: Used = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        with engine_errors():
            if isinstance(limit, int) and not 1 <= limit <= MAX_LIMIT:
                raise ToolError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
            found = self.engine.search(
                query,
                limit=limit,
                type=memory_type,
                time_range_days=time_range_days,
                deep=deep,
                client=self.caller(ctx),
            )
            self._note_used(used, ctx)
        hits, truncated = _within_budget(found.hits)
        data = {
            "query": found.query,
            "results": [h.to_dict(explain) for h in hits],
            "truncated": truncated,
            "nothing_relevant": not any(h.confidence >= HIT_CONFIDENCE for h in hits),
        }
        text = render.search_text(found.query, hits, explain=explain, truncated=truncated)
        return _result(SearchOutput, data, text)

    def memory_forget(
        self,
        ctx: Context,
        memory_id: Annotated[coerce.TextOrList | None, Field(description="One id or a list of ids.")] = None,
        older_than_days: Annotated[
            coerce.Float | None, Field(description="Memories that happened more than N days ago.")
        ] = None,
        memory_type: Annotated[coerce.Text | None, Field(description="Memories of this type.")] = None,
        below_importance: Annotated[
            coerce.Float | None, Field(description="Memories less important than this (0-1).")
        ] = None,
        query: Annotated[
            coerce.Text | None,
            Field(description="Memories containing every one of these words, or saying the same thing."),
        ] = None,
        purge: Annotated[
            coerce.Bool,
            Field(
                description="Delete for good instead of archiving: only by memory_id, only memories you wrote, and "
                "only when the person asks for it."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, ForgetOutput]:
        with engine_errors():
            receipt = self.engine.forget(
                ids=memory_id,
                older_than_days=older_than_days,
                type=memory_type,
                below_importance=below_importance,
                query=query,
                purge=purge,
                client=self.caller(ctx),
                sees_all=False,
            )
        return _result(ForgetOutput, receipt.to_dict(), render.forget_text(receipt))

    def memory_link(
        self,
        source_id: Annotated[str, Field(description="The memory the link starts from.")],
        target_id: Annotated[str, Field(description="The memory it points to.")],
        relation_type: Annotated[
            str, Field(description="A short label such as related, causes, part_of, contradicts, follows.")
        ],
        ctx: Context,
    ) -> Annotated[CallToolResult, LinkOutput]:
        with engine_errors():
            link = self.engine.link(source_id, target_id, relation_type, client=self.caller(ctx))
        return _result(LinkOutput, link.to_dict(), render.link_text(link))

    def memory_reflect(
        self,
        ctx: Context,
        scope: Annotated[
            MaintenanceScope,
            Field(
                description="What to maintain: all (the whole memory, as done when the computer is idle). "
                "Maintenance never merges across privacy boundaries."
            ),
        ] = "all",
    ) -> Annotated[CallToolResult, MaintenanceOutput]:
        """Runs maintenance; the tool keeps its published name, `memory_reflect`."""
        with engine_errors():
            caller = self.caller(ctx)  # recorded in the event log as who asked for maintenance
            counts = maintenance_counts(self.engine.run_maintenance(client=caller))
        return _result(MaintenanceOutput, counts, render.maintenance_text(counts))


_MAINTENANCE_COUNTS = tuple(name for name in MaintenanceOutput.model_fields if name != "status")


def maintenance_counts(report: dict[str, Any]) -> dict[str, Any]:
    """The maintenance report cut down to its numbers: its lists name memories (ids, text) of every
    client, and its run details may carry error text."""
    counts: dict[str, Any] = {}
    for name in _MAINTENANCE_COUNTS:
        value = report.get(name, 0)
        counts[name] = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
    found = report.get("run")
    run: dict[str, Any] = found if isinstance(found, dict) else {}
    status = "skipped" if "skipped" in run else run.get("status")
    counts["status"] = status if status in ("done", "stopped", "skipped", "failed") else "done"
    return counts


def _within_budget(hits: list[SearchHit]) -> tuple[list[SearchHit], bool]:
    """Keep results (most relevant first) until their text fills the budget; always keep the first."""
    kept: list[SearchHit] = []
    used = 0
    for hit in hits:
        used += len(hit.memory.content)
        if kept and used > RESULT_BUDGET_CHARS:
            return kept, True
        kept.append(hit)
    return kept, False
