"""The memory engine: storage, model, write pipeline, recall, forgetting. No Qt, no MCP, no printing."""

from hindsight_desktop.core.errors import (
    HindsightError,
    InvalidInput,
    ModelError,
    NotFound,
    PausedError,
)

__all__ = ["HindsightError", "InvalidInput", "ModelError", "NotFound", "PausedError"]
