"""Hindsight Desktop: a private long-term memory for the assistants on one computer."""

__version__ = "0.1.0"
