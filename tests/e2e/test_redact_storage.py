"""Secrets never reach the file: writes, edits and own-format imports go through the real engine, then
the raw bytes of every file in the data folder (database and WAL) are searched for each secret."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from support.mcp import call
from support.secrets import SECRETS

from hindsight_desktop.mcp.identity import Identity
from hindsight_desktop.mcp.server import build_server

PHONE = "13800138000"


@pytest.fixture
def engine(tmp_path: Path, embedder, clock):
    """On a plain file: what is checked here is what reaches the file before encryption would hide it
    (on an encrypted file every search of the raw bytes would come back empty)."""
    from hindsight_desktop.config import Settings
    from hindsight_desktop.core.engine import MemoryEngine

    eng = MemoryEngine(tmp_path / "data", embedder=embedder, clock=clock, settings=Settings(encrypt_memory_file=False))
    yield eng
    eng.close()


def _data_bytes(engine) -> bytes:
    engine.store.checkpoint()
    folder = Path(engine.store.path).parent
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _assert_absent(blob: bytes, leaks: list[str]) -> None:
    found = [leak for leak in leaks if any(_leaked_at(blob, leak.encode("utf-8")))]
    assert not found, f"secrets in the data folder: {found}"


_HEX = frozenset(b"0123456789abcdef")
_SHORT = 8  # a secret this short (a PIN) can turn up by chance inside the file's random hex ids and hashes


def _leaked_at(blob: bytes, leak: bytes) -> list[int]:
    """Where `leak` is in the bytes, less where a short one is only part of a longer run of hex digits (a
    memory's id or a content hash, where a four-digit PIN turns up by chance now and then: a PIN that
    leaked is in text or an index term, with no run of hex digits around it)."""
    places, start = [], blob.find(leak)
    while start >= 0:
        left, right = start, start + len(leak)
        while left > 0 and blob[left - 1] in _HEX:
            left -= 1
        while right < len(blob) and blob[right] in _HEX:
            right += 1
        if len(leak) >= _SHORT or right - left < 2 * _SHORT or not set(leak) <= _HEX:
            places.append(start)
        start = blob.find(leak, start + 1)
    return places


def test_the_leak_check_finds_a_short_secret_anywhere_but_inside_an_id() -> None:
    assert _leaked_at(b"DB_PASS=x and PIN: 4821\x00", b"4821")
    assert _leaked_at(b"\x04" + b"4821" + b"\x01\x02", b"4821")  # as an index term
    assert not _leaked_at(b"id 3fa84821c0de4b7e9a1f2d3c4b5a6978", b"4821")
    assert _leaked_at(b"3fa84821c0de4b7e9a1f2d3c4b5a6978", b"3fa84821c0de4b7e")  # a long secret counts anywhere


def test_no_secret_from_content_or_metadata_reaches_the_file(engine) -> None:
    leaks = []
    for i, (text, parts, _label) in enumerate(SECRETS):
        result = engine.write(
            f"Note {i} for the ops runbook: {text}",
            explicit=True,
            metadata={"source": text, "api_key": parts[0], "n": i},
        )
        assert result.redactions >= 2
        leaks += parts
    _assert_absent(_data_bytes(engine), leaks)


def test_metadata_and_session_id_are_redacted_before_storage(engine) -> None:
    token = "ghp_AVHnyrvWdFrK9xiRGHOY32nfr5pyzPCB9t20"
    result = engine.write(
        "Deploy notes for the billing service, step three is the migration.",
        explicit=True,
        metadata={"DATABASE_PASSWORD": "Xk9#mq2!vLp", "links": [f"token {token}"]},
        session_id=f"{token}",
    )
    memory = engine.get(result.id)
    assert memory.metadata == {"DATABASE_PASSWORD": "[REDACTED:password]", "links": ["token [REDACTED:api_key]"]}
    assert memory.session_id == "[REDACTED:api_key]"
    assert result.redactions == 3
    _assert_absent(_data_bytes(engine), [token, "Xk9#mq2!vLp"])


def test_a_write_over_mcp_stores_no_secret(engine) -> None:
    token = "hf_jSI6bWHtP3fS2qHx6kwXoIIXGvOoNZYW2m"

    async def scenario() -> dict:
        async with Client(build_server(engine, Identity(local="in-process"))) as client:
            return await call(
                client,
                "memory_write",
                content=f"The lab machine downloads models with {token}.",
                metadata={"client_secret": "Zx81kq0Lm2Pz9", "source": f"chat about {token}"},
                session_id=f"debug {token}",
            )

    wrote = anyio.run(scenario)
    memory = engine.get(wrote["id"])
    assert memory.content == "The lab machine downloads models with [REDACTED:api_key]."
    assert memory.metadata == {"client_secret": "[REDACTED:api_key]", "source": "chat about [REDACTED:api_key]"}
    assert memory.session_id == "debug [REDACTED:api_key]"
    _assert_absent(_data_bytes(engine), [token, "Zx81kq0Lm2Pz9"])


def test_an_edit_is_redacted_too(engine) -> None:
    memory_id = engine.write("The staging database lives on host db-2 in Frankfurt.", explicit=True).id
    engine.edit(
        memory_id,
        content="The staging database password: purple monkey dishwasher",
        summary="staging key sk-proj-cqe28_ajY75FnCttn6kfaqDeMqG3omjMyXHCabM6JOF8EFd0",
    )
    edited = engine.get(memory_id)
    assert edited.content == "The staging database password: [REDACTED:password]"
    assert edited.summary == "staging key [REDACTED:api_key]"
    _assert_absent(_data_bytes(engine), ["dishwasher", "cqe28_ajY75FnCttn6kfaqDeMqG3omjMyXHCabM6JOF8EFd0"])


def test_personal_identifiers_follow_the_setting(engine) -> None:
    kept = engine.write(f"My mobile number is {PHONE}, call after six.", explicit=True)
    assert PHONE in engine.get(kept.id).content
    engine.settings.redact_personal_ids = True
    hidden = engine.write(
        "My passport number is E12345678 and my phone is 139 1234 5678.",
        explicit=True,
        metadata={"iban": "GB82 WEST 1234 5698 7654 32"},
    )
    memory = engine.get(hidden.id)
    assert memory.content == "My passport number is [REDACTED:passport] and my phone is [REDACTED:phone]."
    assert memory.metadata == {"iban": "[REDACTED:iban]"}
    _assert_absent(_data_bytes(engine), ["E12345678", "139 1234 5678", "GB82 WEST"])


def _record(memory_id: str, content: str, **extra: object) -> dict:
    record = {
        "id": memory_id,
        "content": content,
        "summary": None,
        "layer": "semantic",
        "type": "note",
        "importance": 0.6,
        "pinned": False,
        "client": "desktop",
        "scope": "shared",
        "session_id": None,
        "status": "active",
        "superseded_by": None,
        "created_at": "2026-11-20T10:00:00Z",
        "occurred_at": "2026-11-20T10:00:00Z",
        "updated_at": "2026-11-20T10:00:00Z",
        "last_accessed_at": None,
        "access_count": 0,
        "expires_at": None,
        "entities": [],
        "metadata": {},
        "fact_key": None,
        "fact_value": None,
        "stability": 1.0,
        "reviewed_at": None,
    }
    record.update(extra)
    return record


def test_an_imported_bundle_is_redacted(engine, tmp_path: Path) -> None:
    hf = "hf_jSI6bWHtP3fS2qHx6kwXoIIXGvOoNZYW2m"
    hsd = "hsd_1f3BJvc_tWYWRPL2WMM1SKP91TdotTUEZIPQpnVu8rA"
    bundle = {
        "format": "hindsight-desktop",
        "version": 1,
        "memories": [
            _record(
                "mem_import_1",
                f"The model download uses {hf} on the lab machine.",
                summary="password: correct horse battery staple",
                metadata={"client_secret": "Zx81kq0Lm2Pz9", "note": f"old token {hsd}"},
                entities=[{"kind": "code", "text": hf, "value": hf}],
                session_id=f"run {hsd}",
            ),
            _record("mem_import_2", "Lunch with Mia on Friday at the noodle place near the station."),
        ],
        "links": [],
        "events": [
            {
                "id": 1,
                "at": "2026-11-20T10:00:00Z",
                "kind": "edit",
                "memory_id": "mem_import_1",
                "client": "desktop",
                "detail": {"previous_content": f"key {hf}", "token": "Zx81kq0Lm2Pz9"},
            }
        ],
    }
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    report = engine.import_file(path)
    assert report.created == 2 and report.redactions >= 6
    memory = engine.get("mem_import_1")
    assert memory.content == "The model download uses [REDACTED:api_key] on the lab machine."
    assert memory.summary == "password: [REDACTED:password]"
    assert memory.metadata == {"client_secret": "[REDACTED:api_key]", "note": "old token [REDACTED:api_key]"}
    assert engine.get("mem_import_2").content.startswith("Lunch with Mia")
    _assert_absent(_data_bytes(engine), [hf, hsd, "Zx81kq0Lm2Pz9", "horse battery"])


def test_tricky_forms_metadata_numbers_and_labels_never_reach_the_file(engine) -> None:
    # Issue 17 §5: each of these was stored in clear; the texts outside the secrets must stay as written.
    token = "ghp_Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9b"
    texts = {
        "我的银行卡密码是：Lantern4417，别告诉别人": "Lantern4417",
        "the password I use everywhere is Copper8826!": "Copper8826",
        "pass\u200bword: Glacier5530 for the old NAS": "Glacier5530",
        "backup job runs mysql -u root -pWillow7712 nightly": "Willow7712",
        "clone from https://anna:Saf/fron9941@git.example.com/repo.git": "Saf/fron9941",
        "支付密码是８３９１０２７４": "８３９１０２７４",
    }
    first = None
    for text, secret in texts.items():
        result = engine.write(
            text,
            explicit=True,
            type=token if first is None else None,
            metadata={"cvv": 7391, "otp": 55443322, "token": 918273645501, "creds": "ops/Falcon3321"},
        )
        memory = engine.get(result.id)
        assert secret not in memory.content and "[REDACTED:" in memory.content
        assert (
            memory.content.replace("[REDACTED:password]", secret).replace("[REDACTED:connection_string]", secret)
            == text
        ), "only the secret changed"
        assert memory.metadata == {
            "cvv": "[REDACTED:cvv]",
            "otp": "[REDACTED:otp]",
            "token": "[REDACTED:api_key]",
            "creds": "[REDACTED:api_key]",
        }
        first = first or memory
    assert first is not None and token.lower() not in first.type and first.type.startswith("redacted")
    other = engine.write("Lunch with Mia on Friday at the noodle place.", explicit=True).id
    link = engine.link(first.id, other, relation_type=token)
    assert token.lower() not in link.type
    _assert_absent(
        _data_bytes(engine), [*texts.values(), token, token.lower(), "55443322", "918273645501", "Falcon3321"]
    )
