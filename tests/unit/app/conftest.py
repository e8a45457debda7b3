"""The app's own fixtures for its unit tests: a started shell over a fresh data folder."""

from support.app import app_paths, shell, token_store  # noqa: F401  (registered as fixtures here)
