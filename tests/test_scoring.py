"""Offline scoring (`python -m rewards score`): formats, bad rows, resume, interrupt.

Every test writes its own 50-row dataset (10 integrands x 5 kinds of
completion); nothing is read from ../shared/data.
"""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rewards import cli
from rewards.offline import backends as backends_module
from rewards.offline.batch import RESULT_COLUMNS
from rewards.offline.scoring import ScoreOptions, ScoringError, meta_path, run_score

REPO = Path(__file__).resolve().parents[1]

# integrand, correct (LaTeX), wrong (LaTeX), correct (SymPy syntax)
PROBLEMS = [
    ("x**2", r"\frac{x^{3}}{3}", r"\frac{x^{3}}{2}", "x**3/3"),
    ("sin(x)", r"-\cos x", r"\cos x", "-cos(x)"),
    ("exp(2*x)", r"\frac{e^{2x}}{2}", r"2e^{2x}", "exp(2*x)/2"),
    ("1/x", r"\ln|x|", r"-\frac{1}{x^{2}}", "log(x)"),
    ("cos(3*x)", r"\frac{\sin(3x)}{3}", r"3\sin(3x)", "sin(3*x)/3"),
    ("x*exp(x)", r"(x-1)e^{x}", r"x e^{x}", "(x - 1)*exp(x)"),
    ("1/(1 + x**2)", r"\arctan x", r"\ln(1+x^{2})", "atan(x)"),
    ("3*x**5 + 2", r"\frac{x^{6}}{2} + 2x", r"15x^{4}", "x**6/2 + 2*x"),
    ("sqrt(x)", r"\frac{2}{3}x^{3/2}", r"\frac{1}{2\sqrt{x}}", "2*x**(3/2)/3"),
    ("sinh(x)", r"\cosh x", r"\sinh x", "cosh(x)"),
]
KINDS = ("boxed_correct", "boxed_wrong", "tag_correct", "no_answer", "math_block_only")
EXPECTED = {"boxed_correct": ("CORRECT", None), "boxed_wrong": ("WRONG", None),
            "tag_correct": ("CORRECT", None), "no_answer": ("UNPARSEABLE", "no_answer"),
            "math_block_only": ("UNPARSEABLE", "no_answer")}
# Special rows (overriding the last group): bad rows must become verdicts.
MISSING_INTEGRAND, BAD_INTEGRAND, OTHER_VARIABLE = 47, 48, 49


def completion(kind: str, problem: tuple[str, str, str, str]) -> str:
    _, right, wrong, sympy_right = problem
    return {
        "boxed_correct": f"Integrate term by term, with a comma, and \"quotes\".\n\n"
                         f"The answer is $\\boxed{{{right} + C}}$.",
        "boxed_wrong": f"By substitution we get \\boxed{{{wrong}}}",
        "tag_correct": f"Reasoning...\n<answer>{sympy_right} + C</answer>",
        "no_answer": "I am not sure how to do this one.",
        "math_block_only": f"So the antiderivative is ${right}$.",
    }[kind]


def make_rows() -> list[dict]:
    rows = []
    for p, problem in enumerate(PROBLEMS):
        for kind in KINDS:
            rows.append({"id": f"r{len(rows):02d}", "prompt_id": f"p{p:02d}", "kind": kind,
                         "integrand": problem[0], "variable": "x",
                         "completion": completion(kind, problem)})
    rows[MISSING_INTEGRAND].update(integrand=None, kind="missing_integrand",
                                   completion=r"\boxed{x}")
    rows[BAD_INTEGRAND].update(integrand="x**(", kind="bad_integrand", completion=r"\boxed{x}")
    rows[OTHER_VARIABLE].update(integrand="cos(t)", variable="t", kind="other_variable",
                                completion=r"so \boxed{\sin t}")
    assert len(rows) == 50
    return rows


def expected_verdict(row: dict, *, fallback: bool = False) -> tuple[str, str | None]:
    kind = row["kind"]
    if kind == "missing_integrand":
        return "CHECKER_ERROR", "integrand_missing"
    if kind == "bad_integrand":
        return "CHECKER_ERROR", "integrand_unparseable"
    if kind == "other_variable":
        # With no variable column the variable is the integrand's own (t).
        return "CORRECT", None
    if kind == "math_block_only" and fallback:
        return "CORRECT", None
    return EXPECTED[kind]


# -- writers for every input format -------------------------------------------
def write_jsonl(rows: list[dict], path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    return path


def write_input(rows: list[dict], fmt: str, tmp_path: Path) -> Path:
    if fmt == "jsonl":
        return write_jsonl(rows, tmp_path / "in.jsonl")
    if fmt == "csv":
        path = tmp_path / "in.csv"
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return path
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = tmp_path / "in.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
        return path
    if fmt == "disk":
        datasets = pytest.importorskip("datasets")
        path = tmp_path / "saved"
        datasets.Dataset.from_list(rows).save_to_disk(str(path))
        return path
    if fmt == "folder":
        # A folder of data files goes through datasets.load_dataset, the same
        # call that loads a hub dataset by name.
        pytest.importorskip("datasets")
        folder = tmp_path / "folder"
        folder.mkdir()
        write_jsonl(rows, folder / "train.jsonl")
        return folder
    raise AssertionError(fmt)


def read_output(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def options(src: Path, out: Path, **extra) -> ScoreOptions:
    base = dict(input=str(src), output=str(out), symbol_column="variable",
                group_column="prompt_id", workers=1, batch_size=16, progress=False)
    base.update(extra)
    return ScoreOptions(**base)


def assert_verdicts(out_rows: list[dict], *, fallback: bool = False) -> None:
    rows = make_rows()
    assert [r["source_row"] for r in out_rows] == list(range(len(rows)))
    for got, row in zip(out_rows, rows, strict=True):
        verdict, reason = expected_verdict(row, fallback=fallback)
        assert got["verdict"] == verdict, (row, got)
        if reason is not None:
            assert got["reason"] == reason, (row, got)


@pytest.fixture()
def jsonl_input(tmp_path: Path) -> Path:
    return write_input(make_rows(), "jsonl", tmp_path)


# -- formats -------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet", "disk", "folder"])
def test_every_input_format_scores_all_rows(fmt, tmp_path, capsys):
    src = write_input(make_rows(), fmt, tmp_path)
    out = tmp_path / "scored.jsonl"
    summary = run_score(options(src, out))

    got = read_output(out)
    assert summary.rows == 50 and len(got) == 50
    assert_verdicts(got)
    # Every input column kept, every result column added.
    for column in ("id", "prompt_id", "kind", "integrand", "variable", "completion",
                   *RESULT_COLUMNS):
        assert all(column in r for r in got), column
    by_kind: dict[str, dict] = {}
    for r in got:
        by_kind.setdefault(r["kind"], r)
    assert by_kind["boxed_correct"]["reward"] == 1.0
    assert by_kind["boxed_correct"]["extracted_answer"] == r"\frac{x^{3}}{3} + C"
    assert by_kind["boxed_correct"]["confidence"] == "symbolic"
    assert by_kind["boxed_correct"]["check_ms"] > 0
    assert by_kind["no_answer"]["reward"] == -0.2  # default preset
    assert by_kind["missing_integrand"]["reward"] is None  # checker_error: no gradient
    assert "CORRECT" in capsys.readouterr().out  # the summary table


@pytest.mark.slow
def test_parquet_output_has_same_rows(jsonl_input, tmp_path):
    out = tmp_path / "scored.parquet"
    run_score(options(jsonl_input, out))
    got = read_output(out)
    assert len(got) == 50
    assert_verdicts(got)
    assert not (tmp_path / "scored.parquet.parts").exists()  # merged on close


@pytest.mark.slow
def test_completion_column_falls_back_to_response_and_chat_messages(tmp_path):
    rows = [{"integrand": "x**2", "response": r"\boxed{x^3/3}"},
            {"integrand": "x**2", "response": [
                {"role": "user", "content": "integrate x**2"},
                {"role": "assistant", "content": r"It is \boxed{\frac{x^3}{3}}"}]}]
    src = write_jsonl(rows, tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    run_score(ScoreOptions(input=str(src), output=str(out), workers=1, progress=False))
    assert [r["verdict"] for r in read_output(out)] == ["CORRECT", "CORRECT"]


# -- bad rows ------------------------------------------------------------------
@pytest.mark.slow
def test_bad_rows_become_verdicts_not_crashes(tmp_path):
    src = tmp_path / "in.jsonl"
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"integrand": "x", "completion": r"\boxed{x^2/2}"}) + "\n")
        fh.write('{"integrand": "x", "completion": \n')  # broken JSON
        fh.write("[1, 2]\n")  # not an object
        fh.write(json.dumps({"integrand": "", "completion": r"\boxed{x}"}) + "\n")
        fh.write(json.dumps({"integrand": "sin(", "completion": r"\boxed{x}"}) + "\n")
        fh.write(json.dumps({"integrand": "x", "completion": None}) + "\n")
        fh.write(json.dumps({"completion": r"\boxed{x}"}) + "\n")  # no integrand key
    out = tmp_path / "out.jsonl"
    summary = run_score(ScoreOptions(input=str(src), output=str(out), workers=1,
                                     progress=False))
    got = read_output(out)
    assert summary.rows == 7 == len(got)
    assert got[0]["verdict"] == "CORRECT"
    assert [(r["verdict"], r["reason"]) for r in got[1:]] == [
        ("CHECKER_ERROR", "invalid_row"), ("CHECKER_ERROR", "invalid_row"),
        ("CHECKER_ERROR", "integrand_missing"), ("CHECKER_ERROR", "integrand_unparseable"),
        (None, "completion_missing"), ("CHECKER_ERROR", "integrand_missing")]
    assert "line 2" in got[1]["row_error"]
    assert all(r["reward"] is None for r in got if r["verdict"] == "CHECKER_ERROR")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_null_completion_is_missing_data_not_an_empty_answer(fmt, tmp_path):
    # A dump whose generation failed has null, not "": the model did not
    # answer nothing, there is nothing to judge. An empty string still is an
    # answer (UNPARSEABLE, penalised as in training).
    rows = [{"integrand": "x", "completion": None}, {"integrand": "x", "completion": ""},
            {"integrand": "x", "completion": r"\boxed{x^2/2}"},
            {"integrand": "x", "completion": None}]
    src = write_input(rows, fmt, tmp_path)
    out = tmp_path / "out.jsonl"
    summary = run_score(ScoreOptions(input=str(src), output=str(out), workers=1,
                                     progress=False))
    got = read_output(out)
    assert [(r["verdict"], r["reason"], r["reward"]) for r in got] == [
        (None, "completion_missing", None), ("UNPARSEABLE", "no_answer", -0.2),
        ("CORRECT", "structural", 1.0), (None, "completion_missing", None)]
    assert summary.missing_completions == 2
    assert summary.verdicts == {"UNPARSEABLE": 1, "CORRECT": 1}
    assert summary.no_gradient == 0 and sorted(summary.rewards) == [-0.2, 1.0]
    assert "2 rows have a null completion" in summary.render()
    assert summary.to_dict()["missing_completions"] == 2


@pytest.mark.slow
def test_clashing_input_columns_are_kept_under_input_prefix(tmp_path):
    rows = [{"integrand": "x", "completion": r"\boxed{x^2/2}", "verdict": "theirs",
             "extracted_answer": "x**2/2", "source_row": 99}]
    src = write_jsonl(rows, tmp_path / "in.jsonl")
    out = tmp_path / "out.jsonl"
    run_score(ScoreOptions(input=str(src), output=str(out), workers=1, progress=False))
    (got,) = read_output(out)
    assert got["verdict"] == "CORRECT" and got["input_verdict"] == "theirs"
    assert got["input_extracted_answer"] == "x**2/2" and got["extracted_answer"] == "x^2/2"
    assert got["source_row"] == 0 and got["input_source_row"] == 99


# -- flags ---------------------------------------------------------------------
@pytest.mark.slow
def test_answer_fallback_symbol_column_and_preset_config(jsonl_input, tmp_path):
    out = tmp_path / "fallback.jsonl"
    run_score(options(jsonl_input, out, answer_fallback=True, symbol_column=None,
                      config="binary"))
    got = read_output(out)
    assert_verdicts(got, fallback=True)
    assert {r["reward"] for r in got} <= {0.0, 1.0, None}  # the binary preset


@pytest.mark.slow
def test_full_reward_config_yaml(jsonl_input, tmp_path):
    config = tmp_path / "reward.yaml"
    config.write_text("shaping: format_aware\nintegrand_column: integrand\n"
                      "symbol_column: variable\ntimeout_s: 4\n")
    out = tmp_path / "out.jsonl"
    run_score(options(jsonl_input, out, config=str(config), symbol_column=None))
    got = read_output(out)
    assert_verdicts(got)
    assert {r["reward"] for r in got if r["reason"] == "no_answer"} == {-1.0}
    meta = json.loads((tmp_path / "out.jsonl.meta.json").read_text())
    assert meta["shaping"]["name"] == "format_aware"
    assert meta["columns"]["group"] == "prompt_id"


@pytest.mark.slow
def test_trace_has_rejected_rows_with_stages(jsonl_input, tmp_path):
    out, trace = tmp_path / "out.jsonl", tmp_path / "trace.jsonl"
    run_score(options(jsonl_input, out, trace_path=str(trace)))
    records = read_output(trace)
    scored = read_output(out)
    # As in training traces: judged rows that were not a clean symbolic accept
    # (a row without an integrand was never judged).
    rejected = [r for r in scored if r["verdict"] != "CORRECT"
                and r["reason"] != "integrand_missing"]
    assert {r["row"] for r in records} == {r["source_row"] for r in rejected}
    assert all(r["stages"] and r["stages"][0]["stage"] == "candidate_extract"
               for r in records)


@pytest.mark.slow
def test_summary_reports_counts_rewards_timing_and_reasons(jsonl_input, tmp_path):
    summary = run_score(options(jsonl_input, tmp_path / "out.jsonl"))
    text = summary.render()
    data = summary.to_dict()
    assert data["verdicts"] == {"CORRECT": 20, "WRONG": 10, "UNPARSEABLE": 18,
                                "CHECKER_ERROR": 2}
    assert data["failures"]["UNPARSEABLE/no_answer"] == 18
    assert data["groups"] == 10 and data["zero_variance_group_frac"] == 0.0
    assert data["reward_mean"] is not None and data["reward_std"] > 0
    assert data["no_gradient"] == 2
    assert "candidate_parse" in data["stage_ms"]
    for needle in ("CORRECT", "reward mean", "p50", "p99", "top failure reasons",
                   "UNPARSEABLE/no_answer", "zero reward variance"):
        assert needle in text


@pytest.mark.slow
def test_limit_scores_a_prefix(jsonl_input, tmp_path):
    out = tmp_path / "out.jsonl"
    summary = run_score(options(jsonl_input, out, limit=7, batch_size=3))
    assert summary.rows == 7
    assert [r["source_row"] for r in read_output(out)] == list(range(7))


# -- resume and interrupt --------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_resume_skips_rows_already_in_output(jsonl_input, tmp_path, suffix):
    out = tmp_path / f"out{suffix}"
    first = run_score(options(jsonl_input, out, limit=20))
    assert first.rows == 20
    second = run_score(options(jsonl_input, out, resume=True))
    assert second.skipped == 20 and second.rows == 30
    got = read_output(out)
    assert_verdicts(sorted(got, key=lambda r: r["source_row"]))


@pytest.mark.slow
def test_resume_cuts_a_torn_last_line(jsonl_input, tmp_path):
    out = tmp_path / "out.jsonl"
    run_score(options(jsonl_input, out, limit=10))
    with open(out, "a", encoding="utf-8") as fh:
        fh.write('{"source_row": 10, "verdict": "COR')  # a hard kill mid-write
    summary = run_score(options(jsonl_input, out, resume=True))
    assert summary.skipped == 10 and summary.rows == 40
    assert_verdicts(read_output(out))


@pytest.mark.slow
def test_existing_output_needs_resume_or_overwrite(jsonl_input, tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("")
    with pytest.raises(ScoringError, match="--resume"):
        run_score(options(jsonl_input, out))
    run_score(options(jsonl_input, out, overwrite=True, limit=3))
    assert len(read_output(out)) == 3


@pytest.mark.parametrize(("change", "key"), [
    ({"config": "binary"}, "shaping (default -> binary)"),
    ({"completion_column": "kind"}, "completion_column ('completion' -> 'kind')"),
    # Another symbol column is refused; none given reads the recorded one
    # back (test_resume_without_column_flags_reads_them_from_the_sidecar).
    ({"symbol_column": "kind"}, "symbol_column ('variable' -> 'kind')"),
    ({"answer_syntax": "latex"}, "answer_syntax ('auto' -> 'latex')"),
    ({"answer_fallback": True}, "math_fallback (False -> True)"),
])
@pytest.mark.slow
def test_resume_under_other_settings_is_refused_and_touches_nothing(jsonl_input, tmp_path,
                                                                    change, key):
    # Rows scored under two shapings (or two completion columns) in one file
    # would be one run's numbers on half the rows and another's on the rest.
    out = tmp_path / "out.jsonl"
    run_score(options(jsonl_input, out, limit=4))
    out.write_bytes(out.read_bytes() + b'{"source_row": 4, "verd')  # a torn line stays too
    before = out.read_bytes(), meta_path(out).read_bytes()
    with pytest.raises(ScoringError) as error:
        run_score(options(jsonl_input, out, resume=True, **change))
    message = str(error.value)
    assert "\n" not in message and key in message and "--overwrite" in message
    assert (out.read_bytes(), meta_path(out).read_bytes()) == before


@pytest.mark.slow
def test_resume_without_column_flags_reads_them_from_the_sidecar(jsonl_input, tmp_path):
    out = tmp_path / "out.jsonl"
    first = options(jsonl_input, out, limit=10)
    run_score(first)
    assert first.symbol_column == "variable"
    summary = run_score(options(jsonl_input, out, resume=True, completion_column=None,
                                symbol_column=None))
    assert summary.skipped == 10 and summary.rows == 40
    assert_verdicts(read_output(out))


@pytest.mark.slow
def test_resume_may_change_how_the_run_goes(jsonl_input, tmp_path):
    # Workers, batch size, the group column and the trace decide no reward.
    out = tmp_path / "out.jsonl"
    run_score(options(jsonl_input, out, limit=10))
    summary = run_score(options(jsonl_input, out, resume=True, workers=2, batch_size=7,
                                group_column=None, trace_path=str(tmp_path / "t.jsonl"),
                                input=os.path.relpath(jsonl_input)))
    assert summary.skipped == 10 and summary.rows == 40
    assert_verdicts(read_output(out))


@pytest.mark.slow
def test_resume_without_the_settings_file_is_refused(jsonl_input, tmp_path):
    out = tmp_path / "out.jsonl"
    run_score(options(jsonl_input, out, limit=4))
    meta_path(out).unlink()
    with pytest.raises(ScoringError, match="missing.*--overwrite"):
        run_score(options(jsonl_input, out, resume=True))


@pytest.mark.slow
def test_cli_resume_mismatch_exits_2_with_one_line(jsonl_input, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    base = ["score", str(jsonl_input), "-o", str(out), "--workers", "1", "--no-progress",
            "--symbol-column", "variable", "--limit", "3"]
    assert cli.main(base) == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert cli.main([*base, "--resume", "--config", "binary", "--timeout", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("score: --resume:")
    assert "shaping (default -> binary)" in err[0] and "timeout_s (5.0 -> 9.0)" in err[0]
    assert out.read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_interrupt_keeps_finished_batches_then_resume_completes(jsonl_input, tmp_path,
                                                                  monkeypatch, suffix):
    real = backends_module.score_batch
    calls = {"n": 0}

    def interrupted_on_third_batch(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(backends_module, "score_batch", interrupted_on_third_batch)
    out = tmp_path / f"out{suffix}"
    summary = run_score(options(jsonl_input, out, batch_size=10))
    assert summary.interrupted and summary.rows == 20
    partial = read_output(out)  # a valid file: every line / the whole table parses
    assert [r["source_row"] for r in partial] == list(range(20))

    monkeypatch.setattr(backends_module, "score_batch", real)
    resumed = run_score(options(jsonl_input, out, batch_size=10, resume=True))
    assert not resumed.interrupted and resumed.skipped == 20 and resumed.rows == 30
    assert_verdicts(sorted(read_output(out), key=lambda r: r["source_row"]))


@pytest.mark.slow
def test_ctrl_c_on_the_cli_leaves_valid_partial_output(jsonl_input, tmp_path, terminal_sigint):
    out = tmp_path / "out.jsonl"
    # The real CLI in a child process, slowed down per batch so SIGINT
    # surely lands mid-run.
    script = textwrap.dedent(f"""
        import sys, time
        import rewards.offline.backends as s
        real = s.score_batch
        def slow(*a, **k):
            time.sleep(0.5)
            return real(*a, **k)
        s.score_batch = slow
        from rewards.cli import main
        sys.exit(main(["score", {str(jsonl_input)!r}, "-o", {str(out)!r}, "--workers", "1",
                       "--batch-size", "5", "--no-progress"]))
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 50
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 5:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=50)
    assert proc.returncode == 130, stderr
    assert "INTERRUPTED" in stdout
    partial = read_output(out)
    assert 5 <= len(partial) < 50 and len(partial) % 5 == 0
    assert [r["source_row"] for r in partial] == list(range(len(partial)))

    assert cli.main(["score", str(jsonl_input), "-o", str(out), "--workers", "1",
                     "--resume", "--no-progress"]) == 0
    got = read_output(out)
    assert sorted(r["source_row"] for r in got) == list(range(50))


# -- command line ------------------------------------------------------------------
@pytest.mark.slow
def test_cli_exit_codes_and_column_errors(jsonl_input, tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert cli.main(["score", str(jsonl_input), "-o", str(out), "--workers", "1",
                     "--limit", "5", "--no-progress"]) == 0
    assert cli.main(["score", str(jsonl_input), "-o", str(out), "--no-progress"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert cli.main(["score", str(jsonl_input), "-o", str(tmp_path / "b.jsonl"),
                     "--integrand-column", "f", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "'f'" in err and "integrand" in err
    assert cli.main(["score", str(tmp_path / "missing.jsonl"), "-o",
                     str(tmp_path / "c.jsonl")]) == 2
    assert cli.main(["score", str(jsonl_input), "-o", str(tmp_path / "d.txt")]) == 2


def test_cli_import_stays_cheap():
    # `python -m rewards explain` imports this module to build its parser;
    # pandas, Ray and friends must wait until `score`/`ablate` actually run.
    code = ("import argparse, sys, rewards.cli.score as s; "
            "s.add_parsers(argparse.ArgumentParser().add_subparsers()); "
            "heavy = {'pandas', 'pyarrow', 'ray', 'matplotlib', 'datasets', 'tqdm'}; "
            "print(sorted(heavy & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=REPO, env={**os.environ})
    assert result.stdout.strip() == "[]"
