"""ClientBook.writers: every assistant the memory has seen, from its writes, changes and searches, with the
time it last did any; the person, the product and imports are not assistants."""

from __future__ import annotations

from datetime import timedelta

from hindsight_desktop.core.clients import ClientBook


def test_writers_are_the_assistants_seen_with_their_last_activity(engine, clock, tmp_path):
    first = clock()
    engine.write("My sister Ana lives in Lisbon and teaches chemistry.", client="claude-desktop")
    clock.advance(hours=2)
    engine.search("chemistry", client="claude-code")
    clock.advance(hours=1)
    engine.search("Lisbon", client="claude-desktop")  # a later search moves its last activity on
    engine.write("I prefer tea to coffee in the morning.")  # the person, by hand
    source = tmp_path / "notes.md"
    source.write_text("- I keep my spare keys with my neighbour Rosa.\n")
    engine.import_file(source)  # written as import:<source>

    seen = ClientBook.of(engine).writers()
    assert list(seen) == ["claude-code", "claude-desktop"]
    writers = set(engine.stats()["by_client"])
    assert "desktop" in writers and any(w.startswith("import:") for w in writers)  # there, and left out
    assert seen["claude-code"] == first + timedelta(hours=2)
    assert seen["claude-desktop"] == clock()


def test_a_later_change_or_forget_moves_the_last_activity_on(engine, clock):
    written = engine.write("My neighbour Rosa keeps a spare key to the flat.", client="cursor")
    engine.write("The dentist appointment is on Friday at nine.", client="zed")
    clock.advance(days=3)
    engine.forget(ids=[written.id], client="cursor")  # an event only: no memory written, no search
    seen = ClientBook.of(engine).writers()
    assert seen["cursor"] == clock() and seen["zed"] == clock() - timedelta(days=3)
    assert ClientBook.of(engine).writers() == seen  # read again: the same
