"""The small pure parts of the MCP layer: argument quirks, sentences, token matching, caller identity."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import TypeAdapter, create_model

from hindsight_desktop.core import render
from hindsight_desktop.core.records import ForgetReceipt, WriteResult
from hindsight_desktop.mcp import coerce
from hindsight_desktop.mcp.auth import match_token, new_token, token_hash
from hindsight_desktop.mcp.identity import CLIENT_KEY, Identity, NoIdentity


@pytest.mark.parametrize(
    ("kind", "raw", "expected"),
    [
        (coerce.Int, "5", 5),
        (coerce.Int, 7.0, 7),
        (coerce.Int, " 3 ", 3),
        (coerce.Float, "0.25", 0.25),
        (coerce.Float, 1, 1.0),
        (coerce.Bool, "true", True),
        (coerce.Bool, "No", False),
        (coerce.Bool, 1, True),
        (coerce.Bool, "0", False),
        (coerce.TextList, '["a", "b"]', ["a", "b"]),
        (coerce.TextList, "a, b", ["a", "b"]),
        (coerce.TextOrList, "mem_1", "mem_1"),
        (coerce.TextOrList, '["mem_1"]', "mem_1"),
        (coerce.TextOrList, "mem_1,mem_2", ["mem_1", "mem_2"]),
        (coerce.JsonObject, '{"k": 1}', {"k": 1}),
    ],
)
def test_odd_encodings_are_accepted(kind, raw, expected):
    assert TypeAdapter(kind).validate_python(raw) == expected


def test_blank_means_not_given_and_nonsense_is_still_refused():
    args = create_model("Args", limit=(coerce.Int, 5), days=(coerce.Float | None, None), deep=(coerce.Bool, False))
    assert args.model_validate({"limit": "", "days": "null", "deep": "undefined"}).model_dump() == {
        "limit": 5,
        "days": None,
        "deep": False,
    }
    for kind, raw in (
        (coerce.Int, "2.5"),
        (coerce.Int, "many"),
        (coerce.Bool, "maybe"),
        (coerce.JsonObject, "[1]"),
        (coerce.Float, "abc"),
    ):
        with pytest.raises(ValueError):
            TypeAdapter(kind).validate_python(raw)


# How recalled memories read (writer, date, language, forgery) is tested in test_render.py.


def test_other_renderings():
    kept = WriteResult(
        id="mem_2",
        stored=True,
        layer="semantic",
        score=0.8,
        signals={},
        redactions=1,
        supersedes=["mem_0"],
        reason="Kept: a preference.",
    )
    assert render.write_text(kept) == (
        "Remembered as semantic memory mem_2 (score 0.80). Kept: a preference. "
        "It replaces mem_0, which stay as history. 1 secret redacted before storing."
    )
    assert "working memory only" in render.write_text(WriteResult("mem_3", False, "working", 0.2, {}))
    assert render.forget_text(ForgetReceipt([], "archive")) == "Nothing matched, so nothing was forgotten."
    assert "for good" in render.forget_text(ForgetReceipt(["mem_1"], "purge"))
    counts = {"expired_working": 2, "archived": 0, "merged": 1, "new_count": 3, "seconds": 0.42}
    assert render.maintenance_text(counts) == (
        "Maintenance finished in 0.4 s: 2 expired working-memory items dropped, 1 duplicates merged, 3 new count."
    )


def test_tokens_match_only_their_own_hash():
    tokens = [new_token() for _ in range(3)]
    known = [(f"client{i}", token_hash(t)) for i, t in enumerate(tokens)]
    assert [match_token(t, known) for t in tokens] == ["client0", "client1", "client2"]
    assert match_token(tokens[0] + "x", known) is None and match_token("", known) is None
    assert len(set(tokens)) == 3 and all(t.startswith("hsd_") for t in tokens)


def test_identity_fails_closed():
    http = Identity()
    assert http.of(SimpleNamespace(scope={CLIENT_KEY: "cursor"})) == "cursor"
    with pytest.raises(NoIdentity):
        http.of(SimpleNamespace(scope={}))  # an HTTP request nobody authenticated
    with pytest.raises(NoIdentity):
        http.of(None)  # a local call on a server that has no local name
    assert Identity(local="stdio").of(None) == "stdio"
    assert Identity(anonymous="no-auth").of(SimpleNamespace(scope={})) == "no-auth"


def test_launch_command_of_an_appimage_is_the_image_not_its_mount(monkeypatch, tmp_path):
    import sys

    from hindsight_desktop.mcp import client_config

    image = tmp_path / "Hindsight_Desktop-x86_64.AppImage"
    monkeypatch.setenv("APPIMAGE", str(image))
    assert client_config.launch_command() != [str(image)]  # a pip install ignores a stray variable
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert client_config.launch_command() == [str(image)]
