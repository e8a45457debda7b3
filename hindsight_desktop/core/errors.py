"""The one exception family of the engine.

The MCP layer maps these to tool errors, the app to messages, the CLI to exit codes.
Every message names the problem so a person (or an assistant) can fix the input.
"""


class HindsightError(Exception):
    """Base of every error the engine raises on purpose."""

    exit_code = 1


class InvalidInput(HindsightError, ValueError):
    """The caller sent something the engine cannot accept (empty text, bad date, wrong type)."""

    exit_code = 2


class NotFound(HindsightError, LookupError):
    """An id that does not exist, or that the caller may not see."""

    exit_code = 3


class PausedError(HindsightError):
    """Memory is paused by the person: writes are refused, reads still work."""

    exit_code = 4


class ModelError(HindsightError):
    """The embedding model could not be prepared, loaded or run."""

    exit_code = 5


class EncryptionError(HindsightError):
    """The memory file cannot be opened as it is encrypted: its key is missing, wrong or out of reach
    (a locked keyring), or the file is not in the form this data folder expects. Never answered with a
    new, empty memory: the message names the problem and what to do."""

    exit_code = 6


class NotAllowed(HindsightError):
    """The person has not allowed this client to do that (a read-only client's write)."""

    exit_code = 7


class SyncError(HindsightError):
    """Sync between devices could not do what was asked (core/sync/): the message says why and what to do.
    A file in the sync folder that cannot be used is not an error: it is refused by name in the report."""

    exit_code = 8


class SyncNotSetUp(SyncError):
    """Sync is not set up on this device (or it left)."""


class SyncFolderUnavailable(SyncError):
    """The sync folder is missing or unreadable (an unmounted drive, a renamed folder): nothing is lost."""


class PairingCodeInvalid(SyncError, InvalidInput):
    """A pairing code that is mistyped or belongs to another sync folder."""

    exit_code = 2
