"""How long the person has been away. The system's idle time where the platform tells it, else the
time since the last key or click in the app; MCP activity (an assistant at work) counts as activity too.

Sources: Windows GetLastInputInfo, macOS CGEventSourceSecondsSinceLastEventType (both via ctypes), Linux
org.freedesktop.ScreenSaver or GNOME's Mutter IdleMonitor over D-Bus, else the X11 XScreenSaver extension.
Tests inject their own source and clock.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import time
from collections.abc import Callable
from typing import Protocol


class IdleSource(Protocol):
    name: str

    def idle_seconds(self) -> float | None:
        """Seconds since the last input anywhere on the system, or None when it cannot tell now."""
        ...


class WindowsIdle:
    name = "Windows GetLastInputInfo"

    def idle_seconds(self) -> float | None:
        class LastInput(ctypes.Structure):
            _fields_ = [("cbSize", ctypes.c_uint), ("dwTime", ctypes.c_uint)]

        info = LastInput()
        info.cbSize = ctypes.sizeof(info)
        windll = ctypes.windll  # type: ignore[attr-defined]
        if not windll.user32.GetLastInputInfo(ctypes.byref(info)):
            return None
        return ((windll.kernel32.GetTickCount() - info.dwTime) & 0xFFFFFFFF) / 1000.0


class MacIdle:
    name = "macOS CGEventSource"
    _ANY_INPUT = 0xFFFFFFFF  # kCGAnyInputEventType
    _HID_STATE = 1  # kCGEventSourceStateHIDSystemState

    def __init__(self) -> None:
        lib = ctypes.cdll.LoadLibrary("/System/Library/Frameworks/ApplicationServices.framework/ApplicationServices")
        self._seconds = lib.CGEventSourceSecondsSinceLastEventType
        self._seconds.restype = ctypes.c_double
        self._seconds.argtypes = [ctypes.c_int32, ctypes.c_uint32]

    def idle_seconds(self) -> float | None:
        return float(self._seconds(self._HID_STATE, self._ANY_INPUT))


class DBusIdle:
    """KDE and others: org.freedesktop.ScreenSaver.GetSessionIdleTime; GNOME: Mutter's IdleMonitor."""

    CALLS = (
        (
            "org.gnome.Mutter.IdleMonitor",
            "/org/gnome/Mutter/IdleMonitor/Core",
            "org.gnome.Mutter.IdleMonitor",
            "GetIdletime",
            1000.0,
        ),
        (
            "org.freedesktop.ScreenSaver",
            "/org/freedesktop/ScreenSaver",
            "org.freedesktop.ScreenSaver",
            "GetSessionIdleTime",
            1.0,
        ),
    )

    def __init__(self) -> None:
        from PySide6.QtDBus import QDBusConnection, QDBusInterface

        bus = QDBusConnection.sessionBus()
        if not bus.isConnected():
            raise OSError("no D-Bus session bus")
        self._iface = None
        for service, path, interface, method, per_second in self.CALLS:
            iface = QDBusInterface(service, path, interface, bus)
            iface.setTimeout(150)  # a stuck bus must never hold the UI
            if iface.isValid():
                self._iface, self._method, self._per_second = iface, method, per_second
                self.name = f"D-Bus {interface}"
                if self.idle_seconds() is not None:
                    return
        raise OSError("no D-Bus idle service answers")

    def idle_seconds(self) -> float | None:
        if self._iface is None:
            return None
        reply = self._iface.call(self._method)
        values = reply.arguments()
        if reply.errorName() or not values:
            return None
        return float(values[0]) / self._per_second


class XScreenSaverIdle:
    name = "X11 XScreenSaver"

    def __init__(self) -> None:
        class Info(ctypes.Structure):
            _fields_ = [
                ("window", ctypes.c_ulong),
                ("state", ctypes.c_int),
                ("kind", ctypes.c_int),
                ("til_or_since", ctypes.c_ulong),
                ("idle", ctypes.c_ulong),
                ("eventMask", ctypes.c_ulong),
            ]

        x11_name, xss_name = ctypes.util.find_library("X11"), ctypes.util.find_library("Xss")
        if not (x11_name and xss_name and os.environ.get("DISPLAY")):
            raise OSError("no X11 display or libXss")
        self._x11, self._xss = ctypes.cdll.LoadLibrary(x11_name), ctypes.cdll.LoadLibrary(xss_name)
        self._x11.XOpenDisplay.restype = ctypes.c_void_p
        self._x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        self._x11.XDefaultRootWindow.restype = ctypes.c_ulong
        self._xss.XScreenSaverAllocInfo.restype = ctypes.POINTER(Info)
        self._xss.XScreenSaverQueryInfo.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(Info)]
        self._display = self._x11.XOpenDisplay(None)
        if not self._display:
            raise OSError("cannot open the X display")
        self._info = self._xss.XScreenSaverAllocInfo()

    def idle_seconds(self) -> float | None:
        root = self._x11.XDefaultRootWindow(self._display)
        if not self._xss.XScreenSaverQueryInfo(self._display, root, self._info):
            return None
        return self._info.contents.idle / 1000.0


def system_idle_source(platform: str = sys.platform) -> IdleSource | None:
    """The first source that works here, or None (then only activity inside the app counts)."""
    if platform == "win32":
        candidates: list[Callable[[], IdleSource]] = [WindowsIdle]
    elif platform == "darwin":
        candidates = [MacIdle]
    else:
        candidates = [DBusIdle, XScreenSaverIdle]
    for make in candidates:
        try:
            source = make()
            if source.idle_seconds() is not None:
                return source
        except (OSError, AttributeError, ImportError):
            continue
    return None


class IdleMonitor:
    """Idle time for the scheduler: the person's (system or in-app) and the assistants' (MCP), whichever
    is shorter."""

    def __init__(self, system: IdleSource | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.system = system
        self._clock = clock
        self._last_ui = self._last_mcp = clock()

    @property
    def source_name(self) -> str:
        return self.system.name if self.system else "activity in the app and over MCP"

    def note_ui(self) -> None:
        self._last_ui = self._clock()

    def note_mcp(self) -> None:
        self._last_mcp = self._clock()

    def idle_seconds(self) -> float:
        now = self._clock()
        system = self.system.idle_seconds() if self.system else None
        person = system if system is not None else now - self._last_ui
        return max(0.0, min(person, now - self._last_mcp))
