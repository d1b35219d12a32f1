"""Reading datasets of completions and writing scored rows, batch by batch.

Inputs (:func:`open_input`): ``.jsonl`` / ``.json`` (one object per line),
``.parquet``, ``.csv``, a ``datasets`` ``save_to_disk`` folder, any other
folder or name that ``datasets.load_dataset`` understands (a Hub dataset, a
folder of data files). Rows come out as plain dicts in input order, in
batches, so a million-row file never sits in memory twice.

Outputs (:func:`open_output`): ``.jsonl`` (appended and flushed per batch) or
``.parquet`` (one part file per batch, merged into the final file on close).
Either way an interrupted run leaves a valid file holding every batch that
finished, and ``--resume`` reads back which source rows are done.

pandas, pyarrow and datasets are imported inside the functions that need
them: ``python -m rewards explain`` must not pay for them.

Example::

    source = open_input("rollouts.parquet")
    with open_output("scored.jsonl", resume=False) as out:
        for rows in source.iter_batches(256):
            out.write(rows)
"""
from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..extras import require
from ..reward.values import is_missing  # noqa: F401 - the one rule, also offline's

# Marker key on a row that could not be read (a broken JSONL line): scoring
# turns it into a verdict with a reason instead of stopping the run.
ROW_ERROR_KEY = "__row_error__"

JSONL_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
CSV_SUFFIXES = (".csv", ".csv.gz")


class InputError(ValueError):
    """The input as a whole cannot be read (as opposed to one bad row)."""


# -- input -------------------------------------------------------------------
@dataclass
class InputSource:
    """A dataset to score: its kind, size (when cheap to know) and rows.

    ``iter_batches`` yields lists of row dicts in input order; missing
    values (CSV blanks, NaN, Arrow nulls) are ``None``.
    """

    kind: str  # jsonl | parquet | csv | disk | hub
    location: str
    num_rows: int | None
    columns: list[str] = field(default_factory=list)
    _dataset: Any = None  # a datasets.Dataset for disk/hub inputs

    def iter_batches(self, batch_size: int = 256) -> Iterator[list[dict[str, Any]]]:
        """The rows in batches of ``batch_size``, in input order."""
        batch_size = max(1, int(batch_size))
        if self.kind == "jsonl":
            yield from _chunks(_iter_jsonl(Path(self.location)), batch_size)
        elif self.kind == "csv":
            yield from _iter_csv(Path(self.location), batch_size)
        elif self.kind == "parquet":
            pq = require("pyarrow.parquet", "data", "parquet files")

            with pq.ParquetFile(self.location) as handle:
                for record_batch in handle.iter_batches(batch_size=batch_size):
                    yield [clean_row(r) for r in record_batch.to_pylist()]
        else:
            dataset = self._dataset
            for start in range(0, len(dataset), batch_size):
                part = dataset[start:start + batch_size]  # dict of columns
                names = list(part)
                size = len(part[names[0]]) if names else 0
                yield [clean_row({k: part[k][i] for k in names}) for i in range(size)]


def open_input(spec: str | os.PathLike, *, split: str | None = None) -> InputSource:
    """Open a dataset of completions for batch reading.

    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.jsonl"
    >>> _ = path.write_text(json.dumps({"integrand": "x", "completion": "1"}) + "\\n")
    >>> source = open_input(path)
    >>> source.kind, source.num_rows, source.columns
    ('jsonl', 1, ['integrand', 'completion'])
    """
    text = str(spec)
    path = Path(text).expanduser()
    name = path.name.lower()
    if path.is_file():
        if name.endswith(JSONL_SUFFIXES):
            return InputSource("jsonl", str(path), _count_lines(path), _jsonl_columns(path))
        if name.endswith(PARQUET_SUFFIXES):
            pq = require("pyarrow.parquet", "data", "parquet files")

            meta = pq.ParquetFile(path)
            columns = list(meta.schema_arrow.names)
            rows = meta.metadata.num_rows
            meta.close()
            return InputSource("parquet", str(path), rows, columns)
        if name.endswith(CSV_SUFFIXES):
            return InputSource("csv", str(path), _count_csv_rows(path), _csv_columns(path))
        raise InputError(f"unsupported input file {path.name!r}: expected .jsonl, .json, "
                         f".parquet or .csv (or a datasets folder / hub name)")
    if path.is_dir() and _is_saved_dataset(path):
        datasets = require("datasets", "data", "a datasets folder")
        dataset = _pick_split(datasets.load_from_disk(str(path)), split, text)
        return InputSource("disk", str(path), len(dataset), list(dataset.column_names),
                           dataset)
    if path.suffix.lower() in (".jsonl", ".json", ".parquet", ".pq", ".csv"):
        raise InputError(f"input file not found: {text}")
    # A hub name ("owner/name") or a plain folder of data files: both go
    # through datasets.load_dataset, which is the same code path.
    load_dataset = require("datasets", "data", f"{text!r} (not a local file: a dataset "
                                               f"folder or hub name)").load_dataset
    try:
        target = str(path) if path.is_dir() else text
        loaded = load_dataset(target, split=split) if split else load_dataset(target)
    except Exception as exc:  # noqa: BLE001 - many failure types; all mean "can't read"
        raise InputError(f"could not load dataset {text!r}: {type(exc).__name__}: "
                         f"{exc}") from exc
    dataset = _pick_split(loaded, split, text)
    return InputSource("hub", text, len(dataset), list(dataset.column_names), dataset)


def _is_saved_dataset(path: Path) -> bool:
    return (path / "state.json").is_file() or (path / "dataset_dict.json").is_file()


def _pick_split(loaded: Any, split: str | None, label: str) -> Any:
    # A DatasetDict: the split asked for, else "train", else the only one.
    if hasattr(loaded, "column_names") and not isinstance(loaded.column_names, dict):
        return loaded
    splits = list(loaded.keys())
    if split:
        if split not in loaded:
            raise InputError(f"{label}: no split {split!r}; available: {splits}")
        return loaded[split]
    if "train" in loaded:
        return loaded["train"]
    if len(splits) == 1:
        return loaded[splits[0]]
    raise InputError(f"{label} has splits {splits}; choose one with --split")


def _open_bytes(path: Path):
    if path.name.lower().endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    return open(path, "rb")


class _StrictText:
    """A text file that must be UTF-8: a bad byte is an :class:`InputError`
    naming the file, not a U+FFFD in a completion (the server answers such a
    body with 400 too)."""

    def __init__(self, path: Path) -> None:
        import io

        self.path = path
        self._handle = io.TextIOWrapper(_open_bytes(path), encoding="utf-8", newline="")

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self._handle.close()

    def __iter__(self) -> Iterator[str]:
        try:
            yield from self._handle
        except UnicodeDecodeError as exc:
            raise InputError(_not_utf8(self.path, exc)) from None


def _not_utf8(path: Path, exc: UnicodeDecodeError, line: int | None = None) -> str:
    where = f"line {line}" if line is not None else "the file"
    return (f"{path.name}: {where} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
            f"offset {exc.start}); re-encode it (e.g. iconv -f latin1 -t utf-8)")


def _open_text(path: Path) -> _StrictText:
    return _StrictText(path)


def _count_lines(path: Path) -> int:
    count = 0
    with _open_bytes(path) as handle:
        for line in handle:
            if line.strip():
                count += 1
    return count


def _jsonl_columns(path: Path) -> list[str]:
    # Columns seen in the first rows: enough to check the flags early.
    names: dict[str, None] = {}
    with _open_bytes(path) as handle:
        for i, line in enumerate(handle):
            if i == 0 and line.lstrip().startswith(b"["):
                raise InputError(
                    f"{path.name} is a JSON array, not JSON Lines (one object per line): "
                    f"convert it, e.g. jq -c '.[]' {path.name} > rows.jsonl")
            if i >= 100:
                break
            with contextlib.suppress(ValueError):
                row = json.loads(line)
                if isinstance(row, dict):
                    names.update(dict.fromkeys(row))
    return list(names)


def _iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    # Line by line from bytes: a line that is not UTF-8 is that row's error
    # (counted as invalid_row, like broken JSON), never text with U+FFFD.
    with _open_bytes(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield {ROW_ERROR_KEY: _not_utf8(path, exc, number)}
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                yield {ROW_ERROR_KEY: f"invalid JSON on line {number}: {exc}"[:300]}
                continue
            if not isinstance(row, dict):
                yield {ROW_ERROR_KEY: f"line {number} is a JSON {type(row).__name__}, "
                                      f"not an object"}
                continue
            yield row


def _count_csv_rows(path: Path) -> int:
    # csv.reader, not a newline count: quoted completions span lines.
    with _open_text(path) as handle:
        return max(0, sum(1 for _ in csv.reader(handle)) - 1)


def _csv_columns(path: Path) -> list[str]:
    with _open_text(path) as handle:
        return next(csv.reader(handle), [])


def _iter_csv(path: Path, batch_size: int) -> Iterator[list[dict[str, Any]]]:
    pd = require("pandas", "data", "CSV files")

    # Only empty cells are missing: a completion that says "NA" is text.
    reader = pd.read_csv(path, chunksize=batch_size, keep_default_na=False, na_values=[""],
                         dtype=object)
    for frame in reader:
        yield [clean_row(r) for r in frame.to_dict("records")]


def _chunks(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def clean_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row with string keys and ``None`` for missing values (NaN, blank cells)."""
    return {str(k): (None if is_missing(v) else v) for k, v in row.items()}


# -- output ------------------------------------------------------------------
def to_jsonable(value: Any) -> Any:
    """Plain JSON types for a value read from any input format.

    >>> import datetime
    >>> to_jsonable({"t": datetime.date(2024, 1, 2), "v": [1, float("nan")]})
    {'t': '2024-01-02', 'v': [1, None]}
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return to_jsonable(value.tolist())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


class OutputWriter:
    """Base of the writers: ``done_keys`` (rows already in the output, for
    ``--resume``), ``write(rows)`` per batch, ``close()``."""

    path: Path
    key: str

    def __init__(self, path: str | os.PathLike, *, resume: bool, key: str) -> None:
        self.path = Path(path)
        self.key = key
        self.rows_written = 0
        self.done_keys: set[Any] = set()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._open(resume)

    def _open(self, resume: bool) -> None:
        raise NotImplementedError

    def existing_rows(self) -> Iterator[dict[str, Any]]:
        """Rows an earlier run left in the output (empty unless resuming)."""
        raise NotImplementedError

    def write(self, rows: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> OutputWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class JsonlWriter(OutputWriter):
    """Appends one line per row and flushes every batch, so whatever stops
    the run (Ctrl-C, a kill) leaves a file of complete lines, at worst plus
    one torn line that the next ``--resume`` cuts off."""

    def _open(self, resume: bool) -> None:
        if resume and self.path.exists():
            good_bytes = 0
            with open(self.path, "rb") as handle:
                for line in handle:
                    if not line.endswith(b"\n"):
                        break  # torn final line from a hard kill
                    try:
                        row = json.loads(line)
                    except ValueError:
                        break
                    good_bytes += len(line)
                    if isinstance(row, dict) and self.key in row:
                        self.done_keys.add(row[self.key])
            with open(self.path, "r+b") as handle:
                handle.truncate(good_bytes)
            self._kept_bytes = good_bytes
            self._handle = open(self.path, "a", encoding="utf-8")
        else:
            self._kept_bytes = 0
            self._handle = open(self.path, "w", encoding="utf-8")

    def existing_rows(self) -> Iterator[dict[str, Any]]:
        if not self._kept_bytes:
            return
        with open(self.path, "rb") as handle:
            for line in handle.read(self._kept_bytes).splitlines():
                row = json.loads(line)
                if isinstance(row, dict):
                    yield row

    def write(self, rows: list[dict[str, Any]]) -> None:
        text = "".join(json.dumps(to_jsonable(r), ensure_ascii=False) + "\n" for r in rows)
        with sigint_deferred():
            self._handle.write(text)
            self._handle.flush()
            os.fsync(self._handle.fileno())
        self.rows_written += len(rows)

    def close(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None and not handle.closed:
            handle.close()


class ParquetWriter(OutputWriter):
    """Writes ``OUTPUT.parts/part-NNNNN.parquet`` per batch and merges the
    existing output and the parts into ``OUTPUT`` on close (also after
    Ctrl-C). Parts left behind by a hard kill are merged by ``--resume``."""

    def _open(self, resume: bool) -> None:
        self.parts_dir = self.path.with_name(self.path.name + ".parts")
        self._existing = None
        if resume:
            pq = require("pyarrow.parquet", "data", "parquet files")

            if self.path.exists():
                self._existing = pq.read_table(self.path)
            for table in [self._existing, *(_read_parts(self.parts_dir))]:
                if table is not None and self.key in table.column_names:
                    self.done_keys.update(table.column(self.key).to_pylist())
        else:
            shutil.rmtree(self.parts_dir, ignore_errors=True)
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        self._next_part = len(list(self.parts_dir.glob("part-*.parquet")))
        self._earlier_parts = self._next_part
        self._closed = False

    def existing_rows(self) -> Iterator[dict[str, Any]]:
        parts = sorted(self.parts_dir.glob("part-*.parquet"))[: self._earlier_parts]
        pq = require("pyarrow.parquet", "data", "parquet files")

        for table in [self._existing, *(pq.read_table(p) for p in parts)]:
            if table is not None:
                yield from table.to_pylist()

    def write(self, rows: list[dict[str, Any]]) -> None:
        pq = require("pyarrow.parquet", "data", "parquet files")

        table = rows_to_table(rows)
        final = self.parts_dir / f"part-{self._next_part:06d}.parquet"
        tmp = final.with_suffix(".tmp")
        with sigint_deferred():
            pq.write_table(table, tmp)
            os.replace(tmp, final)  # a part is either whole or absent
        self._next_part += 1
        self.rows_written += len(rows)

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        pq = require("pyarrow.parquet", "data", "parquet files")

        with sigint_deferred():
            tables = [t for t in [self._existing, *_read_parts(self.parts_dir)]
                      if t is not None]
            merged = concat_tables(tables) if tables else rows_to_table([])
            tmp = self.path.with_name(self.path.name + ".tmp")
            pq.write_table(merged, tmp)
            os.replace(tmp, self.path)
            shutil.rmtree(self.parts_dir, ignore_errors=True)
            self._closed = True


def _read_parts(parts_dir: Path) -> list[Any]:
    pq = require("pyarrow.parquet", "data", "parquet files")

    if not parts_dir.is_dir():
        return []
    return [pq.read_table(p) for p in sorted(parts_dir.glob("part-*.parquet"))]


def rows_to_table(rows: list[dict[str, Any]]) -> Any:
    """An Arrow table from row dicts; a column whose values Arrow cannot put
    in one type (an id that is sometimes int, sometimes str) becomes JSON
    text rather than failing the batch."""
    pa = require("pyarrow", "data", "parquet files")

    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    arrays, fields = [], []
    for name in names:
        values = [row.get(name) for row in rows]
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            array = pa.array([None if v is None else (v if isinstance(v, str) else json.dumps(
                to_jsonable(v), ensure_ascii=False)) for v in values], type=pa.string())
        arrays.append(array)
        fields.append(name)
    return pa.Table.from_arrays(arrays, names=fields)


def concat_tables(tables: list[Any]) -> Any:
    """One Arrow table from several with the same columns."""
    pa = require("pyarrow", "data", "parquet files")

    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Parts disagree beyond promotion (int in one batch, str in another):
        # rebuild from rows, which falls back to text per column.
        rows = [r for t in tables for r in t.to_pylist()]
        return rows_to_table(rows)


def open_output(path: str | os.PathLike, *, resume: bool, key: str = "source_row"
                ) -> OutputWriter:
    """A writer chosen by extension (``.jsonl`` or ``.parquet``)."""
    name = Path(path).name.lower()
    if name.endswith((".jsonl", ".json")):
        return JsonlWriter(path, resume=resume, key=key)
    if name.endswith(PARQUET_SUFFIXES):
        return ParquetWriter(path, resume=resume, key=key)
    raise InputError(f"unsupported output {Path(path).name!r}: use .jsonl or .parquet")


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block ends, so a write is never cut in half.

    Only the main thread can install signal handlers; elsewhere this is a
    no-op (no SIGINT is delivered there anyway).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[Any] = []
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and callable(previous):
            previous(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt
