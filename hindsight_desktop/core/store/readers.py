"""Read connections: a reading thread takes one of a few extra connections to the memory file.

With one connection shared by every thread, a search waited for every other thread's search and for
any write transaction in progress. In WAL mode readers go on beside the one writer, so each read
gets a connection of its own from this pool; only writes share the Store's write connection.

A connection holds a snapshot only between the BEGIN and COMMIT of one read: an idle one keeps no
checkpoint from emptying the WAL (Store.checkpoint after a purge).
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator

import apsw

from hindsight_desktop.core.errors import HindsightError

MAX_READERS = 8  # more would not run faster on a desktop's cores; a ninth reader waits for one to come back


class _Waiter:
    """A thread waiting for a connection: handed one (or the right to open one) in turn."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.db: apsw.Connection | None = None
        self.may_open = False


class ReaderPool:
    """Up to `size` read-only connections, opened when first needed and reused; safe across threads.

    Threads that find every connection in use wait in line: a connection coming back goes to the one
    that has waited longest. (Without the line, threads that read in a tight loop took the connections
    back at once and a thread that reads now and then, such as a writer checking the pause, starved.)
    """

    def __init__(self, connect: Callable[[], apsw.Connection], size: int = MAX_READERS) -> None:
        if size < 1:
            raise ValueError("a reader pool needs at least one connection")
        self._connect = connect
        self._size = size
        self._idle: list[apsw.Connection] = []
        self._opened = 0  # connections open now, idle or in use
        self._line: deque[_Waiter] = deque()
        self._lock = threading.Lock()
        self._closed = False
        self._mine = threading.local()  # the connection this thread is reading through, if any

    @property
    def opened(self) -> int:
        return self._opened

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def waiting(self) -> int:
        """Threads waiting in line for a connection."""
        with self._lock:
            return len(self._line)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[apsw.Connection]:
        """One read transaction; a read nested in it on the same thread shares its snapshot."""
        held = getattr(self._mine, "db", None)
        if held is not None:
            yield held
            return
        db = self._take()
        self._mine.db = db
        try:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")
        finally:
            self._mine.db = None
            self._give_back(db)

    def _take(self) -> apsw.Connection:
        with self._lock:
            if self._closed:
                raise HindsightError("the memory database is closed")
            waiter = None
            if self._line or not (self._idle or self._opened < self._size):
                waiter = _Waiter()
                self._line.append(waiter)
            elif self._idle:
                return self._idle.pop()  # the most recently used: its page cache is warmest
            else:
                self._opened += 1
        if waiter is not None:
            waiter.ready.wait()
            if waiter.db is not None:
                return waiter.db
            if not waiter.may_open:
                raise HindsightError("the memory database is closed")
        try:
            return self._connect()
        except BaseException:
            self._release_slot()
            raise

    def _give_back(self, db: apsw.Connection) -> None:
        if db.in_transaction:  # COMMIT failed: never pool a connection that still holds a snapshot
            with contextlib.suppress(apsw.Error):
                db.execute("ROLLBACK")
        with self._lock:
            if not self._closed and not db.in_transaction:
                if self._line:
                    waiter = self._line.popleft()
                    waiter.db = db
                    waiter.ready.set()
                else:
                    self._idle.append(db)
                return
        db.close()
        self._release_slot()

    def _release_slot(self) -> None:
        """One connection fewer: the next in line may open one."""
        with self._lock:
            if self._line and not self._closed:
                waiter = self._line.popleft()
                waiter.may_open = True
                waiter.ready.set()
            else:
                self._opened -= 1

    def close(self) -> None:
        """Close the idle connections now; one still in use is closed when its read ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
            self._opened -= len(idle)
            line, self._line = list(self._line), deque()
        for waiter in line:
            waiter.ready.set()  # neither a connection nor leave to open one: the pool is closed
        for db in idle:
            db.close()
