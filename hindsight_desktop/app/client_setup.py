"""Setting up an assistant from the app: its token, the snippet to paste, installing into its config.

The snippets and installers are the MCP layer's (`mcp.client_config`); this only gathers their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Setup:
    payload: str  # exactly what to paste (JSON or a command)
    note: str  # where it goes
    warning: str | None = None  # e.g. the token went to the fallback file


def token_for(registry: Any, name: str) -> tuple[str, str | None]:
    """The client's token, creating the client when it has none yet; plus a warning to show, if any."""
    token, saved = registry.ensure_token(name)
    return token, saved.warning if saved is not None else None


def target(
    registry: Any,
    data_dir: Path,
    port: int,
    kind_key: str,
    name: str | None = None,
    *,
    config_dir: Path | None = None,
) -> tuple[Any, Any, str | None]:
    """(client kind, snippet target, warning) for one kind of client."""
    from hindsight_desktop.mcp import client_config
    from hindsight_desktop.mcp.http_server import LOOPBACK, MCP_PATH

    kind = client_config.kind(kind_key)
    client = name or kind.key
    token, warning = (None, None) if kind.stdio else token_for(registry, client)
    where = client_config.Target(
        url=f"http://{LOOPBACK}:{port}{MCP_PATH}",
        token=token,
        client=client,
        data_dir=Path(data_dir).resolve(),
        command=client_config.launch_command(),
        config_dir=Path(config_dir).resolve() if config_dir is not None else None,
    )
    return kind, where, warning


def setup_snippet(registry: Any, data_dir: Path, port: int, kind_key: str, *, config_dir: Path | None = None) -> Setup:
    from hindsight_desktop.mcp.client_config import snippet

    kind, where, warning = target(registry, data_dir, port, kind_key, config_dir=config_dir)
    payload, note = snippet(kind, where)
    return Setup(payload, note, warning)


def install_client(
    registry: Any, data_dir: Path, port: int, kind_key: str, *, config_dir: Path | None = None
) -> list[Path]:
    from hindsight_desktop.mcp.client_config import install

    kind, where, _warning = target(registry, data_dir, port, kind_key, config_dir=config_dir)
    return install(kind, where)


def client_kinds() -> list[tuple[str, str]]:
    """(key, label) of every client the MCP layer knows how to set up."""
    from hindsight_desktop.mcp.client_config import KINDS

    return [(k.key, k.label) for k in KINDS.values()]
