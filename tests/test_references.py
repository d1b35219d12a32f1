"""Every cross-reference the docs make resolves: the Sphinx roles in the
docstrings of ``rewards/`` and ``benchmarks/`` (``:mod:``, ``:func:``,
``:class:``, ``:meth:``, ``:attr:``, ...), and every module path or dotted
name README.md and docs/ point at. A renamed or deleted module otherwise
leaves its old name in prose that nothing reads until a user follows it."""
from __future__ import annotations

import builtins
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# :role:`target`, :role:`~target`, :role:`text <target>`; a trailing () is
# Sphinx's call notation, not part of the name.
ROLE = re.compile(r":(?:py:)?(mod|func|class|meth|attr|data|exc|obj):"
                  r"`(?:[^`<]*<)?~?(?P<target>[^`<>]+?)(?:\(\))?>?`")
# A backticked module path or dotted name in Markdown: `rewards/check/x.py`,
# `check/evidence/`, `evidence/points.py`, `rewards.check.evidence.domain.analyze`.
PATH = re.compile(r"`(?P<path>(?:rewards/|check/|reward/|parse/|evidence/|proof/|prepare/|"
                  r"extract/|offline/|serve/|integrations/|cli/)[A-Za-z0-9_/.]*)`")
DOTTED = re.compile(r"`(?P<name>rewards(?:\.[A-Za-z_]\w*)+)`")
# Where a Markdown path relative to the package is looked up.
PATH_BASES = ("", "rewards/", "rewards/check/")


def _lookup(name: str) -> bool:
    """Whether ``name`` (a.b.c) is an importable module or an attribute path
    below one; a dataclass field or an annotated attribute counts."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = _get(obj, attr)
            if obj is None:
                return False
        return True
    return False


def _get(obj, attr: str):
    """``obj.attr``, or the name itself for a dataclass field or annotation
    that has no class-level value; None when there is no such member."""
    if hasattr(obj, attr):
        return getattr(obj, attr)
    fields = getattr(obj, "__dataclass_fields__", {})
    annotations = obj.__dict__.get("__annotations__", {}) if inspect.isclass(obj) else {}
    return attr if attr in fields or attr in annotations else None


def _resolves(target: str, module: str) -> bool:
    """Sphinx's lookup, as far as these docstrings use it: a leading dot is
    relative to the current module and its packages; a bare or partial name
    is tried in the current module, in the classes it defines (``:meth:`run```
    inside a class), in its packages, then as an absolute name or builtin."""
    scopes = [".".join(module.split(".")[:k]) for k in range(module.count(".") + 1, 0, -1)]
    if target.startswith("."):
        return any(_lookup(f"{scope}.{target.lstrip('.')}") for scope in scopes)
    if _lookup(target) or any(_lookup(f"{scope}.{target}") for scope in scopes):
        return True
    mod = importlib.import_module(module)
    for _, cls in inspect.getmembers(mod, inspect.isclass):
        if cls.__module__ == module and _get(cls, target.split(".")[0]) is not None:
            return True
    return hasattr(builtins, target.split(".")[0])


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def docstring_roles() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted([*ROOT.glob("rewards/**/*.py"), *ROOT.glob("benchmarks/**/*.py")]):
        text = path.read_text(encoding="utf-8")
        for match in ROLE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", _module_name(path),
                          match.group("target")))
    return found


def markdown_refs() -> list[tuple[str, str]]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for pattern, group in ((PATH, "path"), (DOTTED, "name")):
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{path.relative_to(ROOT)}:{line}", match.group(group)))
    return found


def _path_resolves(ref: str) -> bool:
    if "/" not in ref:
        return _lookup(ref)
    for base in PATH_BASES:
        if (ROOT / base / ref).exists():
            return True
        # module/path.attribute: `prepare/derivative.differentiate`
        head, _, attr = (base + ref).rpartition(".")
        if attr and (ROOT / f"{head}.py").exists():
            return _lookup(f"{head.replace('/', '.')}.{attr}")
    return False


@pytest.mark.parametrize(("where", "module", "target"), [
    pytest.param(*ref, id=f"{ref[0]} {ref[2]}") for ref in docstring_roles()])
def test_docstring_role_resolves(where, module, target):
    assert _resolves(target, module), f"{where}: {target!r} names nothing in {module}"


@pytest.mark.parametrize(("where", "ref"), [
    pytest.param(*ref, id=f"{ref[0]} {ref[1]}") for ref in markdown_refs()])
def test_markdown_reference_resolves(where, ref):
    assert _path_resolves(ref), f"{where}: {ref!r} names no file or module"


@pytest.mark.parametrize(("module", "target", "ok"), [
    ("rewards.check.pipeline", ".context", True),
    ("rewards.check.pipeline", ".no_such_module", False),
    ("rewards.check.result", "CheckResult.to_dict", True),
    ("rewards.check.result", "to_dict", True),
    ("rewards.check.result", "CheckResult.no_such_method", False),
    ("rewards.check.pipeline", "rewards.check.normalize.piecewise_gaps", False),
])
def test_the_resolver_finds_what_exists_and_only_that(module, target, ok):
    assert _resolves(target, module) is ok


@pytest.mark.parametrize(("ref", "ok"), [
    ("rewards/check/pipeline.py", True), ("check/evidence/", True),
    ("evidence/points.py", True), ("parse/latex_fast.py", False),
    ("rewards.check.evidence.domain.analyze", True), ("rewards.check.normalize", False),
])
def test_the_path_check_finds_what_exists_and_only_that(ref, ok):
    assert _path_resolves(ref) is ok
