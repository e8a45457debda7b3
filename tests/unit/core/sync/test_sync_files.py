"""The sync folder's pieces on their own: the pairing code, the sealed files, the change format, the layout."""

from __future__ import annotations

import pytest

from hindsight_desktop.core.errors import PairingCodeInvalid
from hindsight_desktop.core.sync import crypto, pairing, wire
from hindsight_desktop.core.sync.folder import Folder, write_atomically

KEY = bytes(range(32))
WHAT = crypto.Sealed("changes", "0123456789abcdef", 7)


def test_pairing_code_round_trips_and_forgives_case_spaces_and_dashes():
    code = pairing.encode(KEY)
    assert code.startswith("HS1-") and all(len(g) <= 4 for g in code.split("-")[1:])
    assert pairing.decode(code) == KEY
    assert pairing.decode(" " + code.lower().replace("-", " ") + "\n") == KEY


@pytest.mark.parametrize(
    ("mangle", "says"),
    [
        (lambda c: c[:-3], "too short"),
        (lambda c: c[:10] + ("B" if c[10] != "B" else "C") + c[11:], "checksum"),
        (lambda c: c.replace("HS1-", "XX1-"), "starts with HS1"),
        (lambda c: c[:-1] + "1", "cannot be in one"),
        (lambda c: "", "empty"),
    ],
)
def test_a_mistyped_code_is_refused_with_the_reason(mangle, says):
    with pytest.raises(PairingCodeInvalid, match=says):
        pairing.decode(mangle(pairing.encode(KEY)))


def test_sealed_files_open_only_with_their_key_device_sequence_and_kind():
    sealed = crypto.seal(KEY, WHAT, b"plain words", 1)
    assert b"plain words" not in sealed
    assert crypto.open_sealed(KEY, WHAT, sealed, 1) == b"plain words"
    for key, what in (
        (bytes(32), WHAT),  # another folder's key
        (KEY, crypto.Sealed("changes", "fedcba9876543210", 7)),  # moved to another device's folder
        (KEY, crypto.Sealed("changes", WHAT.device, 8)),  # renamed
        (KEY, crypto.Sealed("snapshot", WHAT.device, 7)),  # another kind
    ):
        with pytest.raises(crypto.Unreadable):
            crypto.open_sealed(key, what, sealed, 1)
    tampered = bytearray(sealed)
    tampered[-5] ^= 1
    with pytest.raises(crypto.Unreadable, match="failed authentication"):
        crypto.open_sealed(KEY, WHAT, bytes(tampered), 1)
    with pytest.raises(crypto.Unreadable, match="truncated"):
        crypto.open_sealed(KEY, WHAT, sealed[:20], 1)


def test_a_file_from_a_newer_format_is_refused_before_decrypting_and_a_forged_version_fails():
    newer = crypto.seal(KEY, WHAT, b"x", 2)
    with pytest.raises(crypto.TooNew, match="update Hindsight Desktop on this device"):
        crypto.open_sealed(KEY, WHAT, newer, 1)
    forged = bytearray(newer)
    forged[7] = 1  # the version byte rewritten down to one this program reads
    with pytest.raises(crypto.Unreadable, match="failed authentication"):
        crypto.open_sealed(KEY, WHAT, bytes(forged), 1)


def test_changes_round_trip_through_a_session_changeset_and_a_cut_one_is_refused():
    changes = [
        wire.Change(
            "memory", "mem_1", {"content": (5, "aa")}, {"content": "我住在北京", "pinned": 1}, b"\0" * 8, "m:1"
        ),
        wire.Change("purge", "mem_2", {"purge": (6, "bb")}),
        wire.Change("link", "mem_1", {"link": (7, "aa")}, {"target_id": "mem_3", "type": "related", "present": True}),
    ]
    data = wire.encode(changes)
    assert wire.decode(data) == changes
    with pytest.raises(wire.BadChanges):
        wire.decode(data[:-4])
    assert wire.decode(wire.encode([])) == []


def test_the_folder_lists_only_its_own_names(tmp_path):
    folder = Folder(tmp_path)
    device = "0123456789abcdef"
    write_atomically(folder.file_path("changes", device, 3), b"x")
    write_atomically(folder.device_file(device), b"x")
    for stray in (
        folder.root / "changes" / device / ".syncthing.0000000004.hsc.tmp",
        folder.root / "changes" / device / "0000000005.sync-conflict-20261202-120000-ABCDEFG.hsc",
        folder.root / "changes" / device / ".hs-abc.tmp",
        folder.root / "changes" / "not-a-device" / "0000000001.hsc",
        folder.root / "changes" / device / "notes.txt",
    ):
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_bytes(b"y")
    assert [(f.device, f.seq, f.name) for f in folder.files("changes")] == [
        (device, 3, f"changes/{device}/0000000003.hsc")
    ]
    assert folder.device_ids() == [device]
    assert not list(folder.root.rglob(".hs-*.tmp")) or all(p.name == ".hs-abc.tmp" for p in folder.root.rglob(".hs-*"))
