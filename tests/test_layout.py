"""The package's layout is its data flow: no import cycles, no upward imports.

Layers, lowest first: ``rewards.check`` (pure, worker-side) <
``rewards.reward`` < ``rewards.offline`` < ``rewards.integrations`` (verl,
OpenRLHF) < ``rewards.serve`` (HTTP) < ``rewards.cli``. A module may import
from its own layer and the ones below, never from above; ``check`` imports
nothing of the package outside itself (and the leaf ``rewards.extras``).
Imports inside functions count too: they hide cycles, they do not break them.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "rewards"
LAYERS = ("rewards.check", "rewards.reward", "rewards.offline", "rewards.integrations",
          "rewards.serve", "rewards.cli")
# Leaves anyone may import; they import nothing of the package themselves.
LEAVES = ("rewards.extras", "rewards.prompts")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Package modules imported anywhere in the file (function level included)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("rewards"):
                found.add(target)
                # "from . import x" imports the submodule x
                found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("rewards"))
    return found


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {d for d in _imports(path) if d in files and d != name}
            for name, path in files.items()}


def _layer(module: str) -> int | None:
    for index, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return index
    return None


def test_no_import_cycles():
    graph = _graph()
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_layer_imports_from_a_layer_above_it():
    upward = []
    for module, deps in _graph().items():
        own = _layer(module)
        for dep in deps:
            theirs = _layer(dep)
            if own is not None and theirs is not None and theirs > own:
                upward.append(f"{module} -> {dep}")
    assert not upward, upward


def test_the_checker_imports_nothing_outside_itself():
    outside = [f"{m} -> {d}" for m, deps in _graph().items() if _layer(m) == 0
               for d in deps if _layer(d) != 0 and d not in LEAVES]
    assert not outside, outside


@pytest.mark.parametrize("leaf", LEAVES)
def test_leaves_import_nothing_of_the_package(leaf):
    assert not _graph()[leaf]


def test_benchmarks_and_test_helpers_are_not_in_the_package():
    names = {p.name for p in PACKAGE.rglob("*.py")}
    assert not {"soak.py", "tiny_model.py", "seed_design.py", "peers.py"} & names
    assert not (PACKAGE / "bench").exists()


def test_no_installed_command_needs_a_source_checkout():
    # The benchmarks run as `python -m benchmarks` from the checkout; nothing in
    # the package imports them (an installed wheel has no benchmarks/).
    importers = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if re.search(r"^\s*(from|import) benchmarks\b|import_module\([\"']benchmarks",
                              p.read_text(), re.MULTILINE)]
    assert not importers, importers


# Inside the checker, its stages in data-flow order: a module imports from its
# own step and the ones before it. The leaves (results, errors, clocks, the
# function table, the memory cap, the size limits, the tree walk) come first; the pipeline
# that runs the stages, and the package's own __init__, last.
CHECK_STEPS = (
    ("rewards.check.errors", "rewards.check.result", "rewards.check.timebox",
     "rewards.check.function_facts", "rewards.check.memory", "rewards.check.limits",
     "rewards.check.walk"),
    ("rewards.check.parse",),
    ("rewards.check.extract",),
    ("rewards.check.proof", "rewards.check.evidence"),
    ("rewards.check.request",),
    ("rewards.check.job",),
    ("rewards.check.context",),
    ("rewards.check.prepare",),
    ("rewards.check.memo",),
    ("rewards.check.pipeline",),
)


def _check_step(module: str) -> int | None:
    for index, step in enumerate(CHECK_STEPS):
        if any(module == s or module.startswith(s + ".") for s in step):
            return index
    return None


def test_every_checker_module_belongs_to_a_step():
    modules = [m for m in _graph() if _layer(m) == 0 and m != "rewards.check"]
    assert [m for m in modules if _check_step(m) is None] == []


def test_no_checker_step_imports_from_a_later_one():
    upward = []
    for module, deps in _graph().items():
        own = _check_step(module)
        for dep in deps:
            theirs = _check_step(dep)
            if own is not None and theirs is not None and theirs > own:
                upward.append(f"{module} -> {dep}")
    assert not upward, upward


# The same file name twice in the package only for the same role in the two
# parallel parsers (parse/latex/ and parse/sympy_text/).
PARALLEL = {"rewards/check/parse/latex", "rewards/check/parse/sympy_text"}


def test_module_names_say_one_thing():
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(path.parent.relative_to(PACKAGE.parent)
                                                  .as_posix())
    twice = {name: sorted(dirs) for name, dirs in seen.items()
             if len(dirs) > 1 and not set(dirs) <= PARALLEL}
    assert twice == {}
