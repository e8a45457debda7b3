"""The reference pages in docs/ are what the code declares: the command parsers, the settings and the MCP
tools. A changed help text, setting or tool without `python -m hindsight_desktop.cli.reference --write`
fails here."""

from __future__ import annotations

import argparse

import pytest

from hindsight_desktop.cli import reference
from hindsight_desktop.cli.command import Command, add_commands


@pytest.mark.parametrize("name", sorted(reference.PAGES))
def test_each_generated_page_matches_the_code(name):
    page = reference.DOCS / name
    assert page.is_file(), f"docs/{name} is missing: run `python -m hindsight_desktop.cli.reference --write`"
    assert page.read_text(encoding="utf-8") == reference.PAGES[name](), (
        f"docs/{name} is stale: run `python -m hindsight_desktop.cli.reference --write`"
    )


def test_the_pages_name_every_command_setting_and_tool():
    from hindsight_desktop.config import OPTIONS
    from hindsight_desktop.mcp.server import TOOLS

    cli, settings, tools = reference.cli_page(), reference.settings_page(), reference.mcp_page()
    assert all(f"`hindsight-desktop {path}`" in cli for path in ("edit", "clients config", "model reembed"))
    assert all(f"`{name}`" in settings for name in OPTIONS)
    assert all(f"## `{spec.name}`" in tools for spec in TOOLS)


def test_a_command_without_help_text_is_refused():
    parser = argparse.ArgumentParser(prog="hindsight-desktop")
    add_commands(parser.add_subparsers(dest="command"), [Command("mute", "", lambda args: None)])
    with pytest.raises(ValueError, match="`hindsight-desktop mute` has no help text"):
        list(reference._walk(parser))


def test_the_check_names_a_stale_page(tmp_path):
    for name, page in reference.PAGES.items():
        (tmp_path / name).write_text(page(), encoding="utf-8")
    assert reference.stale(tmp_path) == []
    (tmp_path / "cli.md").write_text(reference.cli_page().replace("Hybrid recall", "Recall"), encoding="utf-8")
    (tmp_path / "settings.md").unlink()
    assert reference.stale(tmp_path) == ["cli.md", "settings.md"]
