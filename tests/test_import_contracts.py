"""The dependency direction of DESIGN.md, for imports import-linter cannot see.

`lint-imports` (contracts in pyproject.toml) checks every `import` statement. A module
named in a string, `importlib.import_module("companion.games.yokir")` or
`__import__(...)`, is invisible to it, so this test reads those strings from the source
and holds them to the same rules. A call whose module is not a string literal is allowed
only at the few places listed in DYNAMIC, each with the reason its modules are safe.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.catalog import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "vision", "hardware", "kiosk", "runtime")

# What a package may not import, as prefixes (the contracts in pyproject.toml).
PURE = ("companion.games", "companion.catalog", "companion.words", "companion.cards",
        "companion.errors")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "vision": ("companion.games", "companion.adapters", "companion.session"),
    "kiosk": ("companion.games",),
    "hardware": ("companion.games",),
    "runtime": ("kiosk", "kivy"),
}

# Calls with a computed module name, and why what they import keeps the rules.
DYNAMIC = {
    "companion/cli.py": "the modules of the companion.commands package",
    "companion/games/__init__.py": "the engines the catalog names (checked below: companion.games.*)",
    "companion/adapters/__init__.py": "the adapters the catalog names (checked below: companion.adapters.*)",
    "companion/commands/doctor.py": "third-party libraries whose versions it reports (numpy, cv2, kivy)",
}


@dataclass(frozen=True)
class Hidden:
    """An import named in a string: the importing module, the line and the module named
    (an f-string gives its literal prefix and `partial`), or None when it is computed."""

    importer: str
    path: str
    line: int
    target: str | None
    partial: bool = False


def _is_import_call(node: ast.Call) -> bool:
    f = node.func
    return ((isinstance(f, ast.Attribute) and f.attr == "import_module")
            or (isinstance(f, ast.Name) and f.id in ("import_module", "__import__")))


def hidden_imports(source: str, importer: str, path: str = "") -> list[Hidden]:
    """Every import_module / __import__ call in `source` with the module it names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and _is_import_call(node) and node.args):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append(Hidden(importer, path, node.lineno, arg.value))
        elif isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            found.append(Hidden(importer, path, node.lineno, str(arg.values[0].value), partial=True))
        else:
            found.append(Hidden(importer, path, node.lineno, None))
    return found


def _is_stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def breaks(h: Hidden) -> str | None:
    """Why a hidden import breaks a contract, or None when it keeps them."""
    if h.target is None:
        return None if h.path in DYNAMIC else (
            f"{h.path}:{h.line}: import_module with a computed name; name the module in a string "
            "literal or add the place to DYNAMIC with the reason it is safe")
    target = h.target.rstrip(".")
    if _under(h.importer, PURE):
        if not (_is_stdlib(target) or _under(target, PURE)):
            return f"{h.path}:{h.line}: {h.importer} is pure but imports {h.target!r}"
        return None
    top = h.importer.split(".")[0]
    for prefix in FORBIDDEN.get(top, ()):
        if _under(target, (prefix,)) or (h.partial and prefix.startswith(target)):
            return f"{h.path}:{h.line}: {top} may not import {prefix} ({h.target!r})"
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_hidden_imports() -> list[Hidden]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += hidden_imports(path.read_text(encoding="utf-8"), _module_name(path),
                                    str(path.relative_to(ROOT)))
    return found


def test_no_import_hidden_in_a_string_breaks_a_contract():
    found = project_hidden_imports()
    # the scan sees the calls there are (the kiosk loads vision lazily by name)
    assert any(h.importer == "runtime.feed" and h.target == "vision.pipeline" for h in found)
    problems = [p for p in map(breaks, found) if p]
    assert not problems, "\n".join(problems)
    assert {h.path for h in found if h.target is None} <= set(DYNAMIC)


def test_the_modules_the_catalog_names_are_where_their_importers_may_load_them():
    for g in GAMES:
        assert g.engine.startswith("companion.games."), g.engine
        assert g.adapter is None or g.adapter.startswith("companion.adapters."), g.adapter
        assert g.commands is None or g.commands.startswith("companion.commands."), g.commands


@pytest.mark.parametrize(("importer", "source", "words"), [
    ("kiosk.play", 'importlib.import_module("companion.games.yokir")', "kiosk may not import"),
    ("hardware.panel", '__import__("companion.games")', "hardware may not import"),
    ("vision.learn", 'import_module(f"companion.games.{name}")', "vision may not import"),
    ("vision.learn", 'import_module(f"companion.{name}")', "vision may not import"),
    ("companion.games.yokir", 'importlib.import_module("cv2")', "is pure but imports 'cv2'"),
    ("companion.catalog", 'importlib.import_module("companion.session")', "is pure"),
    ("companion.table", 'importlib.import_module(name)', "computed name"),
])
def test_the_scan_catches_hidden_imports_that_break_a_rule(importer, source, words):
    (hidden,) = hidden_imports(source, importer, f"{importer.replace('.', '/')}.py")
    problem = breaks(hidden)
    assert problem is not None and words in problem


@pytest.mark.parametrize(("importer", "source"), [
    ("kiosk.camera", 'importlib.import_module("vision.pipeline")'),
    ("companion.games.yokir", 'importlib.import_module("json")'),
    ("companion.games.yokir", 'importlib.import_module("companion.cards")'),
    ("vision.sources.picamera", 'importlib.import_module("picamera2")'),
])
def test_the_scan_lets_allowed_hidden_imports_be(importer, source):
    (hidden,) = hidden_imports(source, importer, "x.py")
    assert breaks(hidden) is None


def test_lint_imports_keeps_every_contract():
    """The contracts in pyproject.toml (import-linter is a dev dependency)."""
    run = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                          "sys.exit(lint_imports(no_logo=True))"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout
