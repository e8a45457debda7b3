"""The write path: the gate that decides what is worth keeping, the writer and edits (extraction is text/'s)."""
