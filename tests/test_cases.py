"""The verdict tables in ``tests/cases/`` stay one set: every row's id is
unique across them and names the case in plain characters (it is the pytest
id), and every table module is run by some test file."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import tests.cases as cases
from tests.support import VerdictCase

TESTS = Path(__file__).resolve().parent
MODULES = sorted(m.name for m in pkgutil.iter_modules(cases.__path__))
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def _rows(name: str) -> list[VerdictCase]:
    module = importlib.import_module(f"tests.cases.{name}")
    return [row for value in vars(module).values() if isinstance(value, list)
            for row in value if isinstance(row, VerdictCase)]


def test_every_table_has_rows_with_unique_readable_ids():
    seen: dict[str, str] = {}
    for name in MODULES:
        rows = _rows(name)
        assert rows, name
        for row in rows:
            assert _ID.fullmatch(row.id), (name, row.id)
            assert row.id not in seen, (row.id, name, seen.get(row.id))
            seen[row.id] = name


def test_every_table_is_run_by_a_test_file():
    imports = re.compile(r"from tests\.cases import ([\w, ]+)")
    used = {name.strip() for path in TESTS.glob("test_*.py")
            for group in imports.findall(path.read_text()) for name in group.split(",")}
    assert set(MODULES) <= used, sorted(set(MODULES) - used)
