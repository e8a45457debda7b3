"""Search indexes beside the memories table: keyword (FTS5, words from text/segment.py) and the
in-process vector cache."""
