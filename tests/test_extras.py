"""A missing optional package is one line naming the extra, the same way
everywhere: :class:`rewards.extras.MissingExtra`, and exit code 2 from the
command line (never a traceback)."""
from __future__ import annotations

import json
import sys

import pytest

from rewards.cli import main
from rewards.extras import MissingExtra


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"integrand": "x", "completion": r"\boxed{x^2/2}"}) + "\n")
    return path


def _without(monkeypatch, *modules: str) -> None:
    # A None entry in sys.modules makes "import name" raise ImportError.
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize("backend_args, missing, extra", [
    (["--backend", "ray"], ("ray",), "ray"),
])
def test_score_backend_without_its_package(monkeypatch, rows, tmp_path, capsys,
                                           backend_args, missing, extra):
    _without(monkeypatch, *missing)
    code = main(["score", str(rows), "--output", str(tmp_path / "out.jsonl"), *backend_args])
    err = capsys.readouterr().err
    assert code == 2
    assert f"integral-rewards[{extra}]" in err and "Traceback" not in err


def test_parquet_input_without_pyarrow(monkeypatch, tmp_path, capsys):
    source = tmp_path / "rows.parquet"
    source.write_bytes(b"PAR1")  # never opened: the import fails first
    _without(monkeypatch, "pyarrow", "pyarrow.parquet")
    code = main(["score", str(source), "--output", str(tmp_path / "out.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and "integral-rewards[data]" in err and "Traceback" not in err


def test_hub_name_without_datasets(monkeypatch):
    from rewards.offline.io import open_input

    _without(monkeypatch, "datasets")
    with pytest.raises(MissingExtra, match=r"integral-rewards\[data\]"):
        open_input("someone/some-dataset")
