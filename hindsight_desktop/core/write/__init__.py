"""The write path: extraction, the gate that decides what is worth keeping, and the writer."""
