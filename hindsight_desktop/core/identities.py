"""Who writes: the names memories are written under, in one place.

A memory's client name is its writer's identity: it owns what it wrote privately, and the renderer
shows the person's own words differently from an assistant's. So the names the product writes under
itself are fixed here, and every layer that checks one (the engine's defaults, the renderer, the MCP
server's client registry, the importer, the app) reads them from this module.
"""

from __future__ import annotations

import re

from hindsight_desktop.core.errors import InvalidInput

PERSON = "desktop"  # what the person does by hand, in the app or the CLI
CLI_WRITER = "cli"  # an older name for the person's own writes from the command line
# Only these read as the person's words; no assistant may take them.
PERSON_WRITERS = frozenset({PERSON, CLI_WRITER})
SYSTEM = "system"  # what the product records on its own (a model renamed, a run's bookkeeping)
# What an import brought in is written as "import:<source>"; no client can take such a name (client
# names have no ':'), and the renderer shows it as imported from that source.
IMPORT_PREFIX = "import:"
STDIO_DEFAULT = "stdio"  # a stdio MCP process started without a name
NO_AUTH_CLIENT = "no-auth"  # HTTP calls without a token, in `serve --no-auth` only

# Names an HTTP client may never be registered under: the person's, the stdio default, the no-token
# mode, and names the product may write under in future (imports, maintenance): a client named like any
# of these could read what they wrote privately. (mcp/identity.py adds the stdio-launched clients' names.)
RESERVED_WRITERS = frozenset(
    {*PERSON_WRITERS, STDIO_DEFAULT, NO_AUTH_CLIENT, "import", "maintenance", SYSTEM, "hindsight"}
)

# Names end up in config keys, keyring entries and the memories' client column: keep them plain.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def client_name(value: object) -> str:
    """A client name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit."""
    if not isinstance(value, str) or not NAME_PATTERN.match(value.strip()):
        raise InvalidInput(f"client name {value!r} must be 1-64 letters, digits, '.', '_' or '-' (for example: cursor)")
    return value.strip()


def is_person(client: str) -> bool:
    """True when `client` is the person's own name (what they wrote reads as their words)."""
    return client in PERSON_WRITERS


def imported_source(client: str) -> str | None:
    """The source an imported memory came from ("chatgpt" for "import:chatgpt"), else None."""
    return client[len(IMPORT_PREFIX) :] if client.startswith(IMPORT_PREFIX) else None
