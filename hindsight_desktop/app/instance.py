"""One app per user and memory file. A second launch finds the first over a local socket, asks it to
come forward, and exits; so the database is never opened twice by two tray apps."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

SHOW = b"show\n"


def ask_running_app(key: str, timeout_ms: int = 500) -> bool:
    """True when an app already listens on `key` (it has been asked to show its window)."""
    sock = QLocalSocket()
    sock.connectToServer(key)
    if not sock.waitForConnected(timeout_ms):
        return False
    sock.write(SHOW)
    sock.flush()
    sock.waitForBytesWritten(timeout_ms)
    sock.disconnectFromServer()
    return True


class SingleInstance(QObject):
    activated = Signal()  # another launch asked this one to come forward

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)  # this user only
        self.server.newConnection.connect(self._connected)
        self._conns: list[QLocalSocket] = []

    def claim(self) -> bool:
        """Become the one instance (True), or tell the running one to show itself (False)."""
        if ask_running_app(self.key):
            return False
        QLocalServer.removeServer(self.key)  # a socket file left by a crashed run
        return self.server.listen(self.key)

    def _connected(self) -> None:
        while self.server.hasPendingConnections():
            conn = self.server.nextPendingConnection()
            self._conns.append(conn)  # children of the server: they go when it does
            conn.readyRead.connect(self._drain)
        self._drain()

    def _drain(self) -> None:
        for conn in list(self._conns):
            if conn.bytesAvailable() and SHOW.strip() in bytes(conn.readAll().data()):
                self.activated.emit()
            if conn.state() == QLocalSocket.LocalSocketState.UnconnectedState:
                self._conns.remove(conn)

    def close(self) -> None:
        self.server.close()
