"""The Qt desktop app: tray icon, timeline window, settings, stats and idle maintenance.

Everything here talks to the memory through `MemoryEngine`'s methods, run on worker threads so the
Qt main thread never waits on the disk or the model. `main.run()` is the entry point.
"""
