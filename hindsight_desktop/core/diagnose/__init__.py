"""Diagnosis: `checks` (the memory file, sqlite-vec, the indexes: the doctor's checks inside core) and
`why` (why a memory was or was not recalled). Both only read and return findings; the CLI and the app print."""
