"""The doctor's check of the system libraries Qt's X11 plugin needs: real `ldd` on real shared objects."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight_desktop.cli.doctor_checks import run_doctor
from hindsight_desktop.cli.doctor_qt import PACKAGES, _ldd, check_qt_libraries, distro_family, not_found, xcb_plugin

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check runs on Linux only")

DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'
UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n'
FEDORA = 'NAME="Fedora Linux"\nID=fedora\n'
ROCKY = 'ID="rocky"\nID_LIKE="rhel centos fedora"\n'
ARCH = 'NAME="Arch Linux"\nID=arch\n'
MANJARO = "ID=manjaro\nID_LIKE=arch\n"


@pytest.fixture(scope="module")
def plugin_missing_icccm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared object linked against libxcb-icccm.so.4, whose copy is then deleted: `ldd` reports it
    "not found", exactly as on a minimal install."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to build the test's shared object")
    folder = tmp_path_factory.mktemp("qtlibs")
    (folder / "stub.c").write_text("int icccm_stub(void) { return 1; }\n")
    (folder / "plugin.c").write_text("int icccm_stub(void);\nint plugin(void) { return icccm_stub(); }\n")
    lib = folder / "libxcb-icccm.so.4"
    gcc = ["gcc", "-shared", "-fPIC"]
    subprocess.run([*gcc, "-Wl,-soname,libxcb-icccm.so.4", "-o", str(lib), str(folder / "stub.c")], check=True)
    plugin = folder / "libqxcb.so"
    subprocess.run([*gcc, "-o", str(plugin), str(folder / "plugin.c"), str(lib)], check=True)
    lib.unlink()
    return plugin


def test_distribution_families_from_os_release():
    assert [distro_family(t) for t in (DEBIAN, UBUNTU, FEDORA, ROCKY, ARCH, MANJARO)] == [
        "debian",
        "debian",
        "fedora",
        "fedora",
        "arch",
        "arch",
    ]
    assert distro_family('ID="void"\n') is None and distro_family("") is None


def test_a_missing_library_is_named_with_the_package_for_each_family(plugin_missing_icccm: Path):
    assert not_found(_ldd(plugin_missing_icccm)) == ["libxcb-icccm.so.4"]
    fixes = {text: check_qt_libraries(plugin_missing_icccm, text, graphical=True) for text in (UBUNTU, FEDORA, ARCH)}
    assert [f.ok for f in fixes.values()] == [False, False, False]
    assert "libxcb-icccm.so.4" in fixes[UBUNTU].detail and "cannot open its window" in fixes[UBUNTU].detail
    assert fixes[UBUNTU].fix == "sudo apt install libxcb-icccm4"
    assert fixes[FEDORA].fix == "sudo dnf install xcb-util-wm"
    assert fixes[ARCH].fix == "sudo pacman -S xcb-util-wm"
    unknown = check_qt_libraries(plugin_missing_icccm, 'ID="void"\n', graphical=True)
    assert not unknown.ok and "libxcb-icccm.so.4" in unknown.fix and "README" in unknown.fix


def test_without_a_graphical_session_it_is_a_skipped_warning_not_a_failure(plugin_missing_icccm: Path):
    finding = check_qt_libraries(plugin_missing_icccm, DEBIAN, graphical=False)
    assert finding.ok and finding.skipped and "no graphical session" in finding.detail
    assert finding.fix == "sudo apt install libxcb-icccm4"


def test_the_package_tables_cover_every_system_library_the_real_plugin_links():
    plugin = xcb_plugin()
    assert plugin is not None, "PySide6's libqxcb.so is part of the install"
    linked = [line.split("=>")[0].strip() for line in _ldd(plugin).splitlines() if "=>" in line]
    system = ("libxcb", "libxkb", "libX11", "libglib", "libgthread", "libEGL", "libGL.", "libfontconfig")
    system += ("libfreetype", "libdbus")
    wanted = [lib for lib in linked if lib.startswith(system)]
    assert "libxcb-icccm.so.4" in wanted and "libxkbcommon-x11.so.0" in wanted
    for family, table in PACKAGES.items():
        assert [lib for lib in wanted if lib not in table] == [], family


def test_doctor_reports_the_check(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    checks = {c["name"]: c for c in run_doctor(tmp_path / "data")["checks"]}
    qt = checks["qt libraries"]
    assert qt["ok"]  # no graphical session: never a failure of the commands' doctor
    missing = not_found(_ldd(xcb_plugin()))  # type: ignore[arg-type]
    assert qt["data"].get("missing", []) == missing


def test_the_readme_lists_the_same_packages_per_family():
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {"debian": "| Debian, Ubuntu |", "fedora": "| Fedora |", "arch": "| Arch |"}
    for family, start in rows.items():
        line = next(row for row in readme.splitlines() if row.startswith(start))
        listed = set(line.split("`")[1].split()[3:])  # after "sudo apt install"
        needed = set(PACKAGES[family].values()) - {"libglib2.0-0", "libfreetype6", "glib2", "freetype", "freetype2"}
        needed -= {"libxcb1", "libxcb-render0", "libxcb-shm0", "libx11-6", "libX11"}  # every desktop has these
        assert needed <= listed, (family, needed - listed)


def test_doctor_says_where_the_log_files_are(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HINDSIGHT_LOG_DIR", str(tmp_path / "logs"))
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "serve.log").write_text("")
    found = {c["name"]: c for c in run_doctor(tmp_path / "data")["checks"]}["log folder"]
    assert found["ok"] and found["detail"] == f"{tmp_path / 'logs'} (serve.log)"


def test_the_app_names_every_missing_package_before_qt_loads(plugin_missing_icccm: Path, monkeypatch, capsys):
    from hindsight_desktop.cli import doctor_qt
    from hindsight_desktop.cli.registry import main

    monkeypatch.setattr(doctor_qt, "xcb_plugin", lambda: plugin_missing_icccm)
    monkeypatch.setattr(doctor_qt, "OS_RELEASE", plugin_missing_icccm.with_name("os-release"))
    plugin_missing_icccm.with_name("os-release").write_text(UBUNTU)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":99")
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "cannot open its window" in err and "libxcb-icccm.so.4" in err
    assert "sudo apt install libxcb-icccm4" in err and "--" not in err  # the install command, no CLI flags


def test_which_platform_qt_will_use(monkeypatch):
    from hindsight_desktop.cli.doctor_qt import uses_xcb

    for env, expected in (
        ({"DISPLAY": ":0"}, True),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({}, False),
    ):
        for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert uses_xcb() is expected, env
