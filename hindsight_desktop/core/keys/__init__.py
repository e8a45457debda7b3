"""The memory file's encryption key: made per file, kept in the OS keyring (or a 0600 file where none
works), found again by the file's own id, and written down as a recovery key.

The file is encrypted whole by SQLite3 Multiple Ciphers (the `apsw-sqlite3mc` build of apsw) with
AEGIS-256 (files of earlier versions: ChaCha20-Poly1305, moved to AEGIS-256 by convert.recipher), so FTS5,
sqlite-vec and WAL work as on a plain file. The file id is the cipher's
16-byte salt, the file's first 16 bytes: chosen here when the file is made, it travels with every copy
and backup of the file and survives moving or renaming the folder, so the keyring entry is found
wherever the file goes.
"""
