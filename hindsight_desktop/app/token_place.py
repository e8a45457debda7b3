"""Where the clients' tokens really are, in the Clients tab's words (the keyring, or the 0600 file)."""

from __future__ import annotations


def token_place_words(where: str) -> str:
    """From TokenVault.backend_name(): 'OS keyring (Name)' or 'file PATH'."""
    if where.startswith("OS keyring"):
        return f"Tokens are kept in the {where}."
    path = where.removeprefix("file ")
    return (
        f"Tokens are kept in the file {path}, readable only by you: no OS keyring was found on this computer. "
        "Anyone who can read your files can read them."
    )
