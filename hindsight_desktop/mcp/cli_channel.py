"""The person's own commands that need the embedding model (`add`, `search`, `why`), and the two most run
ones that do not (`show`, `stats`), as calls on an engine.

The command line runs them in its own process when no server runs for the data folder; when the app,
`serve` or the shared background server runs, it sends them to that server over the bridge listener
(bridge_server.py, a hello with `"cli": 1` and the runtime file's secret), which runs them here on
its engine. Either way the same function makes the same result from the same arguments, so the
output and the exit code are the same; and either way the call acts as the person, as a command
typed by the person always has (an assistant's rules, its gate or its inbox, never apply).

Nothing heavy is imported at module level: the command line imports this table without the engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hindsight_desktop.core.errors import HindsightError, InvalidInput

MAX_REQUEST = 4 * 1024 * 1024  # one call's arguments, as a bridge's JSON-RPC line


def add(engine: Any, p: dict[str, Any]) -> dict[str, Any]:
    return engine.write(
        p["content"],
        type=p.get("type"),
        importance=p.get("importance"),
        occurred_at=p.get("when"),
        scope="private" if p.get("private") else "shared",
        explicit=True,
    ).to_dict()


def search(engine: Any, p: dict[str, Any]) -> dict[str, Any]:
    result = engine.search(
        p["query"],
        limit=p.get("limit", 5),
        type=p.get("type"),
        layer=p.get("layer"),
        time_range_days=p.get("days"),
        deep=bool(p.get("deep")),
        mode=p.get("mode", "hybrid"),
    )
    engine.flush_access_stats()  # a `stats` right after counts this search, as when it ran in-process
    return result.to_dict(explain=bool(p.get("explain")))


def why(engine: Any, p: dict[str, Any]) -> dict[str, Any]:
    return engine.why(p["query"], p["memory_id"]).to_dict()


def show(engine: Any, p: dict[str, Any]) -> dict[str, Any]:
    return {
        **engine.get(p["id"]).to_dict(),
        "links": [link.to_dict() for link in engine.links(p["id"])],
        "history": [e.to_dict() for e in engine.events(p["id"])],
    }


def stats(engine: Any, p: dict[str, Any]) -> dict[str, Any]:
    return dict(engine.stats())


# `show` and `stats` need no model, but a running server answers them without the command importing
# the engine at all, which is most of what they cost in a process of their own.
CALLS: dict[str, Callable[[Any, dict[str, Any]], dict[str, Any]]] = {
    "add": add,
    "search": search,
    "why": why,
    "show": show,
    "stats": stats,
}
# Calls that change nothing: one whose answer was lost may simply be made again.
READ_ONLY = frozenset({"search", "why", "show", "stats"})


def run(engine: Any, request: Any) -> dict[str, Any]:
    """One request `{"call": NAME, "params": {...}}` as its answer: `{"ok": true, "result": ...}` or
    `{"ok": false, "error": message, "kind": the error's class, "code": its exit code}`."""
    try:
        if (
            not isinstance(request, dict)
            or request.get("call") not in CALLS
            or not isinstance(request.get("params"), dict)
        ):
            raise InvalidInput(f"not a command call: {str(request)[:200]}")
        return {"ok": True, "result": CALLS[request["call"]](engine, request["params"])}
    except HindsightError as exc:
        return {"ok": False, "error": str(exc), "kind": type(exc).__name__, "code": exc.exit_code}
    except (KeyError, TypeError, ValueError) as exc:  # arguments no command line of this version sends
        return {"ok": False, "error": f"malformed command call: {exc}", "kind": "InvalidInput", "code": 2}


async def serve(engine: Any, receive_line: Callable[[], Any], send: Callable[[bytes], Any]) -> None:
    """Answer the one call a command-line connection makes; the engine works on a worker thread, so the
    listener keeps serving the assistants meanwhile."""
    import anyio

    try:
        line = await receive_line()
    except Exception:  # closed before a whole line came: nothing to run, no one to answer
        return
    try:
        request = json.loads(line)
    except ValueError:
        request = None
    answer = await anyio.to_thread.run_sync(run, engine, request)
    await send((json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8"))
