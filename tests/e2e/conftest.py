"""Fixtures every end-to-end test may use: an app's folders, its token store, a started shell."""

from support.app import app_paths, shell, token_store  # noqa: F401  (registered as fixtures here)
