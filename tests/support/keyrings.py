"""Keyring backends for the encryption tests (no tests here): a real file keyring under a home of the
test's own, and a keyring that is there but locked, as Secret Service is before the desktop login."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked

SUPPORT_DIR = Path(__file__).resolve().parent.parent  # on PYTHONPATH, a subprocess finds this module


def file_keyring_env(home: Path) -> dict[str, str]:
    """The environment under which a process keeps its keys in keyrings.alt's PlaintextKeyring in `home`."""
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring",
    }


def locked_keyring_env() -> dict[str, str]:
    """The environment under which a process finds the OS keyring locked."""
    return {"PYTHON_KEYRING_BACKEND": "support.keyrings.LockedKeyring", "PYTHONPATH": str(SUPPORT_DIR)}


class LockedKeyring(KeyringBackend):
    """A working backend (priority above zero) that refuses every read and write as locked."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("the collection is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("the collection is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("the collection is locked")


@pytest.fixture
def file_keyring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KeyringBackend]:
    """keyrings.alt's PlaintextKeyring, a real keyring backend, under a home of the test's own; the keyring
    the process had is put back afterwards."""
    import keyring
    from keyrings.alt.file import PlaintextKeyring

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    before = keyring.get_keyring()
    backend = PlaintextKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)
