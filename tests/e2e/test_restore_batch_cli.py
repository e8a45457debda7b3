"""`hindsight-desktop restore --batch BATCH_ID`: undo one whole forget from the command line (an
assistant's bulk forget over MCP, typically), in a real process on a real memory file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import anyio
from mcp import Client
from support.mcp import call, cli, prepare_data_dir

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server

OLD_NOTES = (
    "Amara lent me the blue kayak.",
    "The tax return is due on 31 January.",
    "My violin lesson moved to Thursdays.",
    "Greta is planning a trip to Lisbon.",
)


def test_restore_batch_undoes_one_forget_and_nothing_else(tmp_path, model_dir, embedder):
    data = prepare_data_dir(tmp_path / "data", model_dir)
    long_ago = datetime.now(UTC) - timedelta(days=10)
    with MemoryEngine(data, embedder=embedder) as engine:
        old = [engine.write(text, explicit=True, occurred_at=long_ago).id for text in OLD_NOTES]
        recent = engine.write("I keep my passport in the top drawer.", explicit=True).id

        async def assistant_forgets():
            async with Client(build_server(engine, Identity(local="cursor"))) as client:
                return await call(client, "memory_forget", older_than_days=5)

        swept = anyio.run(assistant_forgets)
        own = engine.forget(ids=[recent])  # the person's own forget: another batch
    assert sorted(swept["forgotten"]) == sorted(old) and swept["batch"] != own.batch

    shown = json.loads(cli(data, "--json", "show", old[0]).stdout)
    assert shown["status"] == "archived" and shown["history"][0]["detail"]["batch"] == swept["batch"]

    undone = json.loads(cli(data, "restore", "--batch", swept["batch"], "--json").stdout)
    assert undone == {"batch": swept["batch"], "restored": old, "count": len(old)}
    with MemoryEngine(data, embedder=embedder) as engine:
        assert [engine.get(i).status for i in old] == ["active"] * len(old)
        assert engine.get(recent).status == "archived"  # another forget: untouched
        restored = engine.events(old[0], limit=1)[0]
        assert (restored.kind, restored.client, restored.detail["batch"]) == ("restore", "desktop", swept["batch"])

    again = cli(data, "--json", "restore", "--batch", swept["batch"], check=False)
    assert again.returncode == 3 and "has no archived memories" in json.loads(again.stderr)["error"]
    plain = cli(data, "restore", "--batch", own.batch)
    assert plain.stdout.startswith(f"Restored 1 memory archived by forget {own.batch}: {recent}")
    assert json.loads(cli(data, "--json", "show", recent).stdout)["status"] == "active"


def test_restore_needs_an_id_or_a_batch_not_both(tmp_path, model_dir):
    data = prepare_data_dir(tmp_path / "data", model_dir)
    neither = cli(data, "restore", check=False)
    assert neither.returncode == 2 and "a memory id or --batch BATCH_ID" in neither.stderr
    both = cli(data, "--json", "restore", "mem_x", "--batch", "fb_x", check=False)
    assert both.returncode == 2 and "not both" in json.loads(both.stderr)["error"]
    blank = cli(data, "restore", "--batch", "  ", check=False)
    assert blank.returncode == 2 and "batch must be the batch id" in blank.stderr
