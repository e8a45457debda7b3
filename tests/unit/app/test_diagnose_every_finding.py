"""Every finding the doctor can make, read from its source, is shown in the Diagnose dialog without one
of our commands to type: a button that does it, or plain words (a system package's command excepted,
with a button that copies it). A new finding with command-line advice fails here until it is mapped."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator

import pytest

from hindsight_desktop.app import diagnose_actions as actions
from hindsight_desktop.app.client_setup import client_kinds
from hindsight_desktop.app.diagnose_actions import fixes_for
from hindsight_desktop.app.diagnose_dialog import CheckRow, shown_lines
from hindsight_desktop.app.in_app_words import has_command

MODULES = (
    "hindsight_desktop.core.diagnose.checks",
    "hindsight_desktop.cli.doctor_checks",
    "hindsight_desktop.cli.doctor_sync",
    "hindsight_desktop.cli.doctor_qt",
)
KINDS = {label: key for key, label in client_kinds()}
SOME_LABEL, SOME_KEY = "Cursor", "cursor"


class _Render:
    """A string expression as the texts it can be: an f-string's values stand in as plain words (a
    client's label or key as a real one), a name is the module's constant or the function's own
    assignment, `a if c else b` is both."""

    def __init__(self, module: object, function: ast.FunctionDef | None) -> None:
        self.module, self.function = module, function

    def texts(self, node: ast.expr | None) -> list[str]:
        if node is None:
            return [""]
        if isinstance(node, ast.Constant):
            return [node.value] if isinstance(node.value, str) else [""]
        if isinstance(node, ast.JoinedStr):
            out = [""]
            for part in node.values:
                pieces = self.texts(part.value) if isinstance(part, ast.FormattedValue) else self.texts(part)
                if isinstance(part, ast.FormattedValue) and not isinstance(part.value, ast.Name):
                    source = ast.unparse(part.value)
                    pieces = [SOME_LABEL if "label" in source else SOME_KEY if ".key" in source else "/some/path"]
                out = [a + b for a in out for b in pieces]
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return [a + b for a in self.texts(node.left) for b in self.texts(node.right)]
        if isinstance(node, ast.IfExp):
            return self.texts(node.body) + self.texts(node.orelse)
        if isinstance(node, ast.Attribute):  # opener.RESTORE_HINT and the like
            owner = getattr(self.module, ast.unparse(node.value), None)
            value = getattr(owner, node.attr, None)
            return [value] if isinstance(value, str) else ["/some/path"]
        if isinstance(node, ast.Name):
            value = getattr(self.module, node.id, None)
            if isinstance(value, str):
                return [value]
            return self._local(node.id)
        return ["/some/path"]

    def _local(self, name: str) -> list[str]:
        found: list[str] = []
        for node in ast.walk(self.function) if self.function else ():
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found += self.texts(node.value)
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts, strict=False):
                        if isinstance(t, ast.Name) and t.id == name:
                            found += self.texts(v)
        return found or ["/some/path"]


def doctor_findings() -> Iterator[dict]:
    for name in MODULES:
        module = importlib.import_module(name)
        tree = ast.parse(inspect.getsource(module))
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Finding"):
                continue
            function = next((f for f in functions if call in ast.walk(f)), None)
            render = _Render(module, function)
            args = dict(zip(("name", "ok", "detail", "fix"), call.args, strict=False))
            args |= {k.arg: k.value for k in call.keywords if k.arg}
            ok = isinstance(args.get("ok"), ast.Constant) and args["ok"].value is True
            skipped = isinstance(args.get("skipped"), ast.Constant) and args["skipped"].value is True
            for label in render.texts(args.get("name")):
                for fix in render.texts(args.get("fix")):
                    for detail in render.texts(args.get("detail")):
                        yield {"name": label, "ok": ok, "skipped": skipped, "detail": detail, "fix": fix}


FINDINGS = list(doctor_findings())


def test_the_source_reading_finds_the_doctor_s_findings():
    names = {f["name"] for f in FINDINGS}
    for wanted in ("database", "indexes", "sqlite-vec", "http port", "keyring", "sync devices", "qt libraries"):
        assert wanted in names, sorted(names)
    assert f"client {SOME_LABEL}" in names and f"tools/list {SOME_LABEL}" in names
    assert len(FINDINGS) > 30
    # A local's every value is read: the note of a model switch in progress names `model reembed`.
    assert any(f["name"] == "indexes" and "model reembed" in f["detail"] for f in FINDINGS)


@pytest.mark.parametrize("check", FINDINGS, ids=lambda c: f"{c['name']}: {c['fix'][:40]}")
def test_no_finding_tells_the_person_to_type_our_command(check, qapp):
    fixes = fixes_for(check, KINDS)
    shown = "\n".join(shown_lines(check, fixes))
    assert not has_command(shown), shown
    assert "pip install" not in shown, shown
    row = CheckRow(check, fixes)
    assert len(row.buttons) == len([f for f in fixes if f.action != actions.SAY])
    for fix in fixes:
        assert fix.action in {
            actions.SETTING,
            actions.TAB,
            actions.RESTART_SERVER,
            actions.RESTORE_KEY,
            actions.OPEN_LOG_FOLDER,
            actions.OPEN_DATA_FOLDER,
            actions.COPY,
            actions.INSTALL_CLIENT,
            actions.MAINTAIN,
            actions.SAY,
        }


def test_an_index_gap_is_fixed_by_maintenance_and_a_missing_vector_table_by_choosing_the_model():
    gap = next(f for f in FINDINGS if f["name"] == "indexes" and "maintenance" in f["fix"])
    table = next(f for f in FINDINGS if f["name"] == "indexes" and "model use" in f["fix"])
    assert [(f.action, f.arg) for f in fixes_for(gap)] == [(actions.MAINTAIN, "")]
    assert [(f.action, f.arg) for f in fixes_for(table)] == [(actions.SETTING, "embedding_model")]


def test_a_path_the_app_could_not_narrow_gets_its_chmod_to_copy():
    modes = next(f for f in FINDINGS if f["name"] == "file modes" and "chmod" in f["fix"])
    [fix] = fixes_for(modes)
    assert fix.action == actions.COPY and fix.arg == "chmod -R go-rwx /some/path"
