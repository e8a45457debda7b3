"""memory_search's `confidence` and `nothing_relevant` over the real MCP SDK client and the stdio server, in
a new user's small store (issue 23 §3): off topic, about another person, or matched only by an archived
memory, a search says nothing relevant; a real answer is claimed."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from support.mcp import call, prepare_data_dir, stdio_client

MEMORIES = [
    "My car's number plate is KX19 ABC.",
    "I am allergic to penicillin.",
    "I live in Beijing.",
    "I have a dentist appointment on Thursday at 3pm with Dr. Lee.",
    "My son Leo plays the violin every Saturday.",
    "I prefer green tea over coffee.",
    "My sister Anna lives in Berlin.",
    "我每周三晚上去健身房。",
]


@pytest.fixture
def data_dir(tmp_path: Path, embedder, model_dir: Path) -> Path:
    return prepare_data_dir(tmp_path / "data", model_dir)


def test_nothing_relevant_and_confidence_in_a_small_store(data_dir: Path):
    async def scenario():
        async with stdio_client(data_dir, HINDSIGHT_CLIENT="claude-desktop") as client:
            ids = {}
            for text in MEMORIES:
                ids[text] = (await call(client, "memory_write", content=text, type="fact"))["id"]

            async def search(query: str, **kw) -> dict:
                return await call(client, "memory_search", query=query, **kw)

            football = await search("what is my favourite football team?")
            assert football["results"] and football["nothing_relevant"], football
            daughter = await search("我女儿对什么过敏？")
            allergy = {r["content"]: r["confidence"] for r in daughter["results"]}
            assert allergy.get("I am allergic to penicillin.", 0.0) < 0.5 and daughter["nothing_relevant"], daughter
            priya = await search("where does Priya live?")
            assert all(r["confidence"] < 0.5 for r in priya["results"]) and priya["nothing_relevant"], priya

            mine = await search("我对什么过敏？")
            assert not mine["nothing_relevant"]
            assert mine["results"][0]["content"] == "I am allergic to penicillin."
            assert mine["results"][0]["confidence"] >= 0.5

            dentist = ids["I have a dentist appointment on Thursday at 3pm with Dr. Lee."]
            assert not (await search("dentist"))["nothing_relevant"]
            await call(client, "memory_forget", memory_id=dentist)  # archived, not deleted
            archived = await search("dentist")
            assert archived["results"] and archived["nothing_relevant"], archived
            deep = await search("dentist", deep=True)
            assert deep["results"][0]["id"] == dentist and not deep["nothing_relevant"]

    anyio.run(scenario)
