"""``python -m benchmarks latex-parse``: where the time of parsing long LaTeX goes.

A fixed sample of elementary Rubi antiderivatives (``rubi_pairs.jsonl``,
seeded), rendered the way a model that learned from SymPy writes them,
``sympy.latex(sympify(antiderivative)) + " + C"``, is parsed one string at a
time in this process (after the parser's warm-up) by

* bare ``latex2sympy2_extended.latex2sympy`` (its default normalization), the
  reference the checker builds on;
* the checker's parse stage (:func:`rewards.check.parse.parse_answer` as the
  pipeline calls it), once with the plain-expression path turned off (the
  grammar reads everything) and once as shipped, with its time split into
  canonicalization, calls of the grammar, and the rest.

It prints the total and the median/p90 per string, for all strings and for
the long ones (over 200 characters), in CPU seconds of this process (the
machine is shared: wall time would measure the neighbours). The data set is trusted (``sympify`` is
what its README prescribes); nothing here reads model output.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import DEFAULT_DATA_DIR
from .corpora import RUBI_FILE, _timed, is_elementary_text
from .table import markdown_table

LONG = 200


def sample_strings(path: Path, n: int, seed: int) -> list[str]:
    import sympy as sp

    with open(path) as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    rows = [r for r in rows if is_elementary_text(r["antiderivative"])
            and is_elementary_text(r["integrand"])]
    random.Random(seed).shuffle(rows)
    x = sp.Symbol("x")
    out: list[str] = []
    for row in rows:
        if len(out) >= n:
            break
        expr = _timed(5, sp.sympify, row["antiderivative"], {"x": x})
        if expr is None or expr.free_symbols - {x}:
            continue
        text = sp.latex(expr) + " + C"
        if len(text) <= 4000:
            out.append(text)
    return out


@contextmanager
def _timing(module: Any, name: str, bucket: list[float]):
    """Add the time spent in ``module.name`` to ``bucket[0]``."""
    original = getattr(module, name)

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            bucket[0] += time.process_time() - start

    setattr(module, name, timed)
    try:
        yield
    finally:
        setattr(module, name, original)


def _run(strings: list[str], parse: Callable[[str], Any]) -> tuple[list[float], int]:
    times, failures = [], 0
    for text in strings:
        start = time.process_time()
        try:
            parse(text)
        except Exception:  # noqa: BLE001 - a failure is counted, not fatal
            failures += 1
        times.append(time.process_time() - start)
    return times, failures


def _stats(label: str, times: list[float], strings: list[str], failures: int) -> list[Any]:
    long_times = [t for t, s in zip(times, strings, strict=True) if len(s) > LONG]
    ms = [t * 1000 for t in times]
    return [label, round(sum(times), 2), round(statistics.median(ms), 1),
            round(sorted(ms)[int(0.9 * (len(ms) - 1))], 1),
            round(sum(long_times), 2), failures]


def measure(strings: list[str]) -> str:
    from latex2sympy2_extended import latex2sympy

    from rewards.check.parse import read as read_module
    from rewards.check.parse.latex import grammar as latex_module
    from rewards.check.parse.read import parse_answer

    def stage(text: str) -> Any:
        return parse_answer(text, "latex", "x", [])

    latex_module.warm_up()
    rows = []
    times, failures = _run(strings, latex2sympy)
    rows.append(_stats("bare latex2sympy2_extended", times, strings, failures))
    if hasattr(latex_module, "to_python"):
        original = latex_module.to_python
        latex_module.to_python = lambda *_: None
        try:
            times, failures = _run(strings, stage)
        finally:
            latex_module.to_python = original
        rows.append(_stats("checker parse stage, grammar only", times, strings, failures))
        plain = sum(original(latex_module.canonicalize_latex(s, []), "x") is not None
                    for s in strings)
    canon, grammar = [0.0], [0.0]
    with _timing(read_module, "canonicalize_latex", canon), \
            _timing(latex_module, "_call_parser", grammar):
        times, failures = _run(strings, stage)
    rows.append(_stats("checker parse stage", times, strings, failures))
    total = sum(times)
    rest = total - canon[0] - grammar[0]
    split = markdown_table(
        ["part of the parse stage", "s", "share"],
        [["canonicalization rules", round(canon[0], 2), f"{canon[0] / total:.0%}"],
         ["grammar (latex2sympy2_extended)", round(grammar[0], 2), f"{grammar[0] / total:.0%}"],
         ["plain path, guards, rebuild, special calls", round(rest, 2), f"{rest / total:.0%}"]])
    n_long = sum(len(s) > LONG for s in strings)
    note = (f"\n\nRead by the plain-expression path: {plain}/{len(strings)}."
            if hasattr(latex_module, "to_python") else "")
    return (markdown_table(["parser", "total CPU s", "median ms", "p90 ms",
                            f"total s, {n_long} strings > {LONG} chars", "failures"], rows)
            + "\n\n" + split + note)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", default=str(DEFAULT_DATA_DIR / RUBI_FILE),
                        help="rubi_pairs.jsonl (or the data directory holding it)")
    parser.add_argument("--n", type=int, default=384, help="strings to sample")
    parser.add_argument("--seed", type=int, default=0)


def main(args: argparse.Namespace) -> int:
    path = Path(args.corpus)
    if path.is_dir():
        path = path / RUBI_FILE
    if not path.exists():
        print(f"no Rubi data at {path}", file=sys.stderr)
        return 1
    strings = sample_strings(path, args.n, args.seed)
    print(f"{len(strings)} strings, median {statistics.median(map(len, strings))} characters, "
          f"max {max(map(len, strings))}\n")
    print(measure(strings))
    return 0


if __name__ == "__main__":
    cli = argparse.ArgumentParser(prog="python -m benchmarks.latex_parse",
                                  description=__doc__.splitlines()[0])
    add_arguments(cli)
    sys.exit(main(cli.parse_args()))
