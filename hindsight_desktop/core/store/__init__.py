"""The storage layer: the SQLite file, its schema, and one module per table with the operations on it."""
