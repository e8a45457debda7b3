"""The house's boundaries, read from the import graph (every import statement under hindsight_desktop/,
function-level and TYPE_CHECKING ones included), so the next back door fails here by name.

- app/, cli/ and mcp/ reach the core only through its face (FACE below): the engine and the few public
  modules it hands out; settings come from config.py, outside core/.
- core/ imports nothing from app/, cli/ or mcp/, and neither Qt nor the MCP SDK.
- core/store/ (the SQL) imports nothing from core/write, core/recall or core/maintenance.
- mcp/ never imports app/ (the server runs without Qt).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import hindsight_desktop

ROOT = Path(hindsight_desktop.__file__).parent
PKG = "hindsight_desktop"

# The core's face: all that app/, cli/ and mcp/ may import from core/.
FACE = frozenset(
    {
        f"{PKG}.core",  # the package itself: its __init__ re-exports the errors only
        f"{PKG}.core.engine",  # MemoryEngine and the limits and records of its operations (its __all__)
        f"{PKG}.core.records",  # the data records the engine returns, and the vocabularies (layers, formats)
        f"{PKG}.core.errors",  # the exception family
        f"{PKG}.core.identities",  # who writes: the person's name, the reserved names, the client-name rule
        f"{PKG}.core.clients",  # the MCP clients' registry table, opened without the embedding model
        f"{PKG}.core.render",  # results as sentences for an assistant (the MCP tools and the CLI)
        f"{PKG}.core.keys.manage",  # the memory file's key (show, init, restore, rekey), without the model
    }
)
EDGES = ("app", "cli", "mcp")
# Imports the rules forbid but that stay for now, each named with its reason: (importer, imported). Empty
# (the `key` commands reach the key store through core/keys/manage.py, in FACE).
EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()


class Edge(NamedTuple):
    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        path = self.importer.replace(".", "/")
        return f"{path}.py:{self.line} imports {self.imported}"


def module_files(root: Path = ROOT, package: str = PKG) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph(files: dict[str, Path]) -> list[Edge]:
    """Every import of a hindsight_desktop module, resolved to the module it names: `from a import b`
    counts as importing a.b when b is a module, else a; relative imports are resolved."""
    edges = []
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            edges += [
                Edge(name, t, node.lineno)
                for t in dict.fromkeys(targets)
                if t == PKG or t.startswith(PKG + ".") or not t.startswith(PKG)
            ]
    return edges


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(edges: list[Edge]) -> list[str]:
    """Each import that breaks a rule, as 'path:line imports module (the rule)'."""
    core, store = f"{PKG}.core", f"{PKG}.core.store"
    found = []
    for edge in edges:
        src, dst = edge.importer, edge.imported
        if (src, dst) in EXCEPTIONS:
            continue
        rule = None
        if any(_inside(src, f"{PKG}.{e}") for e in EDGES) and _inside(dst, core) and dst not in FACE:
            rule = "the edges reach the core only through its face (FACE)"
        elif _inside(src, core) and any(_inside(dst, f"{PKG}.{e}") for e in EDGES):
            rule = "core/ imports nothing from app/, cli/ or mcp/"
        elif _inside(src, core) and (_inside(dst, "PySide6") or _inside(dst, "mcp") or _inside(dst, "mcp_types")):
            rule = "core/ runs without Qt and without the MCP SDK"
        elif _inside(src, store) and any(_inside(dst, f"{core}.{p}") for p in ("write", "recall", "maintenance")):
            rule = "core/store/ imports nothing from write/, recall/ or maintenance/"
        elif _inside(src, f"{PKG}.mcp") and _inside(dst, f"{PKG}.app"):
            rule = "mcp/ never imports app/"
        if rule:
            found.append(f"{edge} ({rule})")
    return found


def test_the_import_graph_keeps_the_boundaries():
    edges = import_graph(module_files())
    assert len(edges) > 500  # the whole package was read (about 1,500 imports today)
    assert violations(edges) == []


def test_every_listed_exception_still_happens():
    # An exception that no longer occurs is removed, so the list never hides a new import.
    edges = {(e.importer, e.imported) for e in import_graph(module_files())}
    assert sorted(EXCEPTIONS - edges) == []


def test_every_face_module_exists():
    files = module_files()
    assert sorted(FACE - files.keys()) == []


def test_a_back_door_is_named(tmp_path):
    # The checker on a small package of its own: a function-level import from mcp/ into core/store/,
    # a relative one from core/ into cli/, and one through the face that is fine.
    root = tmp_path / PKG
    for folder in ("core/store", "core/write", "mcp", "cli"):
        (root / folder).mkdir(parents=True)
    for init in ("", "core/", "core/store/", "core/write/", "mcp/", "cli/"):
        (root / f"{init}__init__.py").write_text("")
    (root / "core/engine.py").write_text("from ..cli import output\n")
    (root / "core/store/database.py").write_text("from hindsight_desktop.core.write import writer\n")
    (root / "core/write/writer.py").write_text("")
    (root / "cli/output.py").write_text("")
    (root / "mcp/tools.py").write_text(
        "from hindsight_desktop.core.engine import MemoryEngine\n\n"
        "def tool():\n    from hindsight_desktop.core.store import database\n"
    )
    found = violations(import_graph(module_files(root, PKG)))
    assert found == [
        "hindsight_desktop/core/engine.py:1 imports hindsight_desktop.cli.output "
        "(core/ imports nothing from app/, cli/ or mcp/)",
        "hindsight_desktop/core/store/database.py:1 imports hindsight_desktop.core.write.writer "
        "(core/store/ imports nothing from write/, recall/ or maintenance/)",
        "hindsight_desktop/mcp/tools.py:4 imports hindsight_desktop.core.store.database "
        "(the edges reach the core only through its face (FACE))",
    ]
