"""The `used` argument of memory_search and memory_write through the real SDK client: published in the
tools' schemas, counted for its client, refused by name when malformed, and silent about ids the
caller may not see."""

from __future__ import annotations

import re
from typing import Any

import anyio
from mcp import Client
from support.mcp import call, fails

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server


def _client(engine: MemoryEngine, name: str) -> Client:
    return Client(build_server(engine, Identity(local=name)))


def _uses(engine: MemoryEngine) -> list[tuple]:
    engine._access.flush()
    with engine.store.read() as db:
        return list(db.execute("SELECT client, used FROM uses ORDER BY id"))


def test_both_tools_publish_the_argument(engine: MemoryEngine):
    async def scenario():
        async with _client(engine, "alpha") as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    schemas = anyio.run(scenario)
    for tool in ("memory_search", "memory_write"):
        used = schemas[tool]["properties"]["used"]
        assert "used" not in schemas[tool].get("required", [])
        assert {"type": "array", "items": {"type": "string", "maxLength": 100}} in used["anyOf"]
        assert "relied on" in used["description"]


def test_a_reported_use_is_counted_for_its_client(engine: MemoryEngine):
    async def scenario():
        async with _client(engine, "alpha") as alpha, _client(engine, "beta") as beta:
            wrote = await call(alpha, "memory_write", content="Remember: my bike lock code is 2931.")
            found = await call(alpha, "memory_search", query="what is my bike lock code?", limit=1)
            await call(beta, "memory_search", query="what is my bike lock code?", limit=1)
            await call(alpha, "memory_search", query="anything about bikes", used=[found["results"][0]["id"]])
            await call(alpha, "memory_write", content="Remember: the bike is a blue Brompton.", used=wrote["id"])
            return wrote["id"]

    mid = anyio.run(scenario)
    stats = engine.stats()
    assert _uses(engine) == [("alpha", 1), ("alpha", 1)]
    assert stats["used_by_client"]["beta"] == 0.0
    assert 0 < stats["used_by_client"]["alpha"] <= 1
    assert engine.get(mid).access_count >= 1 + 2 * 3  # two reports, each weighing three returns


def test_an_invisible_id_changes_nothing_and_reveals_nothing(engine: MemoryEngine):
    secret = engine.write("Beta's private note: the safe code is 9182.", client="beta", scope="private", gate=False)
    engine.write("The safe is in the hall cupboard.", client="beta", gate=False)

    def reply(used: Any) -> tuple:
        async def scenario():
            async with _client(engine, "alpha") as alpha:
                result = await alpha.call_tool("memory_search", {"query": "where is the safe?", "used": used})
                return result.is_error, result.structured_content, [c.text for c in result.content]

        is_error, data, texts = anyio.run(scenario)
        engine._access.flush()
        # Each search is itself a recall of what it returns, so the next one ranks it a little higher:
        # the scores move between calls whatever `used` holds, and are left out of the comparison.
        for item in data["results"]:
            item.pop("relevance"), item.pop("confidence")
        return is_error, data, [re.sub(r"\d+\.\d+", "#", t) for t in texts]

    before = engine.get(secret.id).access_count
    private, unknown = reply([secret.id]), reply(["mem_0000000000000000000"])
    assert private == unknown and not private[0]
    assert secret.id not in str(private) and "9182" not in str(private)
    assert engine.get(secret.id).access_count == before
    assert _uses(engine) == []
    assert engine.stats()["used_by_client"].get("alpha", 0.0) == 0.0


def test_a_malformed_report_is_a_tool_error_naming_it_and_nothing_happens(engine: MemoryEngine):
    async def scenario():
        async with _client(engine, "alpha") as alpha:
            errors = [
                await fails(alpha, "memory_search", query="bike", used=42),
                await fails(alpha, "memory_search", query="bike", used=["m" * 101]),
                await fails(alpha, "memory_search", query="bike", used=[f"mem_{n}" for n in range(101)]),
                await fails(alpha, "memory_write", content="Remember: the bike is blue.", used=[{"id": "x"}]),
            ]
            found = await call(alpha, "memory_search", query="bike")
            return errors, found

    errors, found = anyio.run(scenario)
    for text in errors:
        assert "used" in text, text
    assert "101 items; the limit is 100" in errors[2]
    assert found["results"] == []  # the refused write stored nothing
    assert engine.stats()["searches"] == 1 and _uses(engine) == []
