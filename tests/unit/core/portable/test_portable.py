"""Export and import of the app's own formats: a lossless round trip, readable Markdown and CSV, filters,
and own files that are broken or only partly valid change nothing."""

from __future__ import annotations

import csv
import io
import json

import pytest

from hindsight_desktop.core.engine import MemoryEngine
from hindsight_desktop.core.errors import InvalidInput
from hindsight_desktop.core.records import MemoryFilter


@pytest.fixture
def filled(engine, clock):
    """A store with every kind of state: links, archived, superseded, pinned, private, working, accessed."""
    ids = {
        "sister": engine.write("My sister Priya lives in Toronto.", session_id="s1").id,
        "berlin": engine.write("I live in Berlin.", metadata={"source": "chat"}).id,
        "passport": engine.write("Remember: my passport expires in March 2027.", importance=0.9).id,
        "private": engine.write("Remember: my therapist is Dr. Amsel.", client="claude", scope="private").id,
        "working": engine.write("ok cool").id,
    }
    clock.advance(days=2)
    ids["paris"] = engine.write("I live in Paris.", session_id="s1").id  # supersedes Berlin
    engine.edit(ids["passport"], pinned=True)
    engine.link(ids["sister"], ids["passport"], "mentions", strength=0.4)
    engine.forget(ids=ids["sister"])
    engine.search("where do I live?")
    return ids


def _dump(engine, fmt="json", **kw):
    out = io.StringIO()
    engine.export(fmt, out, **kw)
    return out.getvalue()


def _without_export_time(text):
    data = json.loads(text)
    data.pop("exported_at")
    data.pop("seal")  # made with each data folder's own key
    return data


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_round_trip_into_an_empty_store_is_lossless(filled, engine, embedder, clock, tmp_path, fmt):
    path = tmp_path / f"export.{fmt}"
    summary = engine.export(fmt, path)
    assert summary["memories"] == 6 and summary["links"] >= 2 and summary["path"] == str(path)
    fresh = MemoryEngine(tmp_path / "empty", embedder=embedder, clock=clock)
    # Another data folder's seal: only the person's say-so keeps who wrote what (test_import_claims.py).
    report = fresh.import_file(path, keep_writers=True)
    assert report.format == fmt and report.created == 6 and report.skipped_existing == 0
    assert _without_export_time(_dump(fresh)) == _without_export_time(_dump(engine))
    assert fresh.get(filled["berlin"]).superseded_by == filled["paris"]
    assert fresh.search("when does my passport expire?").hits[0].memory.id == filled["passport"]
    assert fresh.search("Priya Toronto", deep=True).hits[0].memory.id == filled["sister"]
    assert fresh.stats()["vectors"] == engine.stats()["vectors"]
    again = fresh.import_file(path, keep_writers=True)  # importing twice adds nothing
    assert again.created == 0 and again.skipped_existing == 6 and again.links == 0
    fresh.close()


def test_embeddings_travel_with_the_bundle_when_asked(filled, engine, embedder, clock, tmp_path):
    path = tmp_path / "with-vectors.json"
    engine.export("json", path, embeddings=True)
    records = json.loads(path.read_text())["memories"]
    stored = [r for r in records if r["layer"] != "working"]
    assert all(r["embedding"]["model"] == engine.parts.model_id and r["embedding"]["dim"] == 384 for r in stored)
    fresh = MemoryEngine(tmp_path / "empty", embedder=embedder, clock=clock)
    calls = []
    original = fresh.parts.embed._embed
    fresh.parts.embed._embed = lambda texts, kind: calls.append(texts) or original(texts, kind)
    fresh.import_file(path)
    assert calls == []  # the stored vectors were used, nothing was embedded again
    assert fresh.search("passport expiry").hits[0].memory.id == filled["passport"]
    fresh.close()


def test_markdown_is_grouped_by_layer_and_day(filled, engine):
    text = _dump(engine, "md")
    assert text.startswith("# Hindsight Desktop memories")
    layers = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(layers) == len(set(layers)) >= 2
    days = [line for line in text.splitlines() if line.startswith("### ")]
    assert days and all(len(d) == len("### 2026-11-25") for d in days)
    assert "I live in Paris." in text and "archived" in text and "pinned" in text


def test_csv_has_one_row_per_memory_with_every_field(filled, engine):
    rows = list(csv.DictReader(io.StringIO(_dump(engine, "csv"))))
    assert len(rows) == 6
    row = next(r for r in rows if r["id"] == filled["berlin"])
    assert row["status"] == "superseded" and json.loads(row["metadata"]) == {"source": "chat"}
    assert row["superseded_by"] == filled["paris"]


def test_a_filtered_export_carries_only_links_between_exported_memories(filled, engine):
    data = json.loads(_dump(engine, filters=MemoryFilter(statuses=("active",))))
    ids = {m["id"] for m in data["memories"]}
    assert filled["sister"] not in ids and filled["paris"] in ids
    assert all(link["source_id"] in ids and link["target_id"] in ids for link in data["links"])
    assert all(event["memory_id"] in ids for event in data["events"])
    assert data["filters"]["statuses"] == ["active"]


def test_an_export_of_the_selection_holds_only_those_memories(filled, engine):
    chosen = [filled["sister"], filled["passport"]]
    data = json.loads(_dump(engine, ids=chosen))
    assert sorted(m["id"] for m in data["memories"]) == sorted(chosen)
    assert [(link["source_id"], link["target_id"]) for link in data["links"]] == [tuple(chosen)]


def test_export_to_a_file_is_atomic_and_progress_is_reported(filled, engine, tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("the previous export\n")
    seen = []
    engine.export("jsonl", path, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (6, 6)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["record"] == "header" and len(lines) > 6
    assert not list(tmp_path.glob(".*partial"))
    with pytest.raises(InvalidInput, match="unknown export format"):
        engine.export("xml", tmp_path / "x.xml")


def _bundle(memories, **extra):
    return {"format": "hindsight-desktop", "version": 1, "memories": memories, "links": [], "events": [], **extra}


def _record(i, **changes):
    base = {
        "id": f"mem_t{i}",
        "content": f"Imported note number {i} about the garden.",
        "layer": "episodic",
        "type": "note",
        "importance": 0.5,
        "pinned": False,
        "client": "desktop",
        "scope": "shared",
        "status": "active",
        "created_at": "2026-01-01T00:00:00.000Z",
        "occurred_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        "entities": [],
        "metadata": {},
    }
    return {**base, **changes}


def test_bad_own_files_name_the_field_or_line_and_change_nothing(engine, tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text(json.dumps(_bundle([_record(1), _record(2, importance=2)])))
    with pytest.raises(InvalidInput, match=r"memories\[1\]: importance must be between 0 and 1"):
        engine.import_file(bad_json)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "hindsight-desktop",\n "version": 1,\n "memories": [\n {oops}\n]}')
    with pytest.raises(InvalidInput, match=r"broken.json, line 4: not valid JSON"):
        engine.import_file(broken)
    lines = [
        json.dumps({"record": "header", "format": "hindsight-desktop", "version": 1}),
        json.dumps({"record": "memory", **_record(1)}),
        json.dumps({"record": "memory", **_record(2, occurred_at="last tuesday")}),
    ]
    bad_jsonl = tmp_path / "bad.jsonl"
    bad_jsonl.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidInput, match=r"bad.jsonl, line 3: occurred_at 'last tuesday' is not an ISO 8601"):
        engine.import_file(bad_jsonl)
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(_bundle([], version=99)))
    with pytest.raises(InvalidInput, match="please upgrade"):
        engine.import_file(newer)
    assert engine.count() == 0


def test_a_failure_in_the_middle_leaves_nothing_half_imported(engine, tmp_path):
    # Both records pass the checks, but the second has the first's id: the database refuses it while
    # the first is already written inside the transaction.
    path = tmp_path / "dupe.json"
    path.write_text(json.dumps(_bundle([_record(1), _record(1, content="A different text.")])))
    with pytest.raises(Exception, match="UNIQUE"):
        engine.import_file(path)
    assert engine.count() == 0
    assert engine.search("garden note", mode="vector").hits == []  # no vector left behind in the cache


def test_dry_run_reports_and_changes_nothing(engine, tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(_bundle([_record(1), _record(2)])))
    report = engine.import_file(path, dry_run=True)
    assert report.dry_run and report.created == 2 and [i["action"] for i in report.items] == ["restore"] * 2
    assert engine.count() == 0 and engine.search("garden", mode="keyword").hits == []
    assert engine.import_file(path).created == 2 and engine.count() == 2
