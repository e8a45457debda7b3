"""Sync between a person's devices through a folder their own sync service (Syncthing, a cloud drive)
moves: each device writes only its own encrypted, append-only files there and applies the others'.

crypto.py seals and opens the files; pairing.py turns the sync key into the code a new device types;
folder.py names, lists and writes the files; wire.py is the change format (SQLite session changesets);
outgoing.py turns what the capture triggers logged into changes; merge.py applies another device's
changes; devices.py is the registry of devices; snapshots.py writes snapshots and prunes; service.py
puts them together for the engine. The merge rules are in docs/ARCHITECTURE.md ("Sync").
"""
