"""The command line's rough edges: help, program name, empty and broken input,
closed pipes, resumed summaries, ablation without matplotlib."""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rewards import cli
from rewards.reward.config import RewardConfig

REPO = Path(__file__).resolve().parents[1]


def flat(text: str) -> str:
    # argparse wraps help to the terminal width; compare with one space.
    return " ".join(text.split())


def help_of(*command: str, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*command, "--help"])
    assert exit_info.value.code == 0
    return flat(capsys.readouterr().out)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


# -- help ------------------------------------------------------------------------
def test_explain_help_explains_each_option_and_its_default(capsys):
    text = help_of("explain", capsys=capsys)
    for fragment in (
            "--integrand INTEGRAND the integrand f (SymPy syntax, or LaTeX",
            "--kind {response,latex,sympy,auto} what --candidate is:",
            "(default: response)",
            "--symbol SYMBOL the integration variable (default: as the reward infers it",
            f"--timeout TIMEOUT seconds for the whole check (default: the reward's, "
            f"{RewardConfig().timeout_s:g})"):
        assert fragment in text


def test_explain_defaults_are_the_rewards(capsys):
    # A pasted completion is a response (its prose is not LaTeX), checked
    # under the deadline the reward uses.
    args = cli.build_parser().parse_args(["explain", "--candidate", "c", "--integrand", "x"])
    config = RewardConfig()
    assert args.kind == "response"
    assert (args.timeout, args.symbol, args.answer_syntax, args.integrand_kind) == (
        config.timeout_s, config.symbol, config.answer_syntax, config.integrand_kind)
    code = cli.main(["explain", "--candidate", r"Integrating term by term: \boxed{x^2/2 + C}",
                     "--integrand", "x"])
    assert code == 0 and "CORRECT" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["explain", "score", "ablate", "serve"])
def test_help_names_only_paths_that_exist(name, capsys):
    text = help_of(name, capsys=capsys)
    named = re.findall(r"[\w.-]+(?:/[\w.*-]+)+\.ya?ml", text)
    for pattern in named:
        assert list(REPO.glob(pattern)), f"{name} --help names {pattern}, which does not exist"


def test_score_help_shows_defaults(capsys):
    text = help_of("score", capsys=capsys)
    for fragment in (
            "--batch-size BATCH_SIZE rows checked together and written at once (default: 256)",
            "--backend {local,ray} where checks run: worker processes here, or Ray actors "
            "(default: local)",
            f"--timeout TIMEOUT seconds per check (default: the config's, "
            f"{RewardConfig().timeout_s:g})",
            "--completion-column COMPLETION_COLUMN model output (default: completion, else "
            "response)"):
        assert fragment in text


@pytest.mark.parametrize("name", ["explain", "score", "ablate"])
def test_every_option_has_help_and_shows_its_default(name, capsys):
    # argparse prints nothing for an option without help text, not even its
    # default: each option must say what it does, and a real default must show.
    parser = subcommands()[name]
    text = help_of(name, capsys=capsys)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, action.dest
        if action.option_strings and action.default not in (None, False):
            assert f"(default: {action.default})" in text or "default:" in action.help, \
                action.dest


@pytest.mark.parametrize(("command", "prog"), [
    ([sys.executable, "-m", "rewards"], "python -m rewards"),
    ([str(Path(sys.executable).parent / "integral-rewards")], "integral-rewards"),
], ids=["module", "console_script"])
def test_usage_names_the_way_it_was_run(command, prog):
    if not Path(command[0]).exists():
        pytest.skip("console script not installed in this environment")
    result = subprocess.run([*command, "--help"], capture_output=True, text=True, cwd=REPO,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: {prog} ")


# -- closed output pipe ------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["explain", "--candidate", "x^2/2", "--integrand", "x", "--json"],
    ["score", "--help"],
], ids=["explain_json", "score_help"])
@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_closed_stdout_ends_quietly(args, buffered):
    # `... | head` / `... | true`: the reader is gone before anything is
    # written (the pipe's read end is closed before the child starts work).
    # Buffered output (the default for a pipe) used to fail only at
    # interpreter exit: "Exception ignored ... BrokenPipeError", status 120.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "rewards", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err == ""
    if args[0] == "explain" or buffered:
        assert code == cli.EXIT_BROKEN_PIPE
    else:
        assert code == 0  # argparse itself ignores a failed write of --help


# -- score: empty input, broken lines, resume ---------------------------------------
def run_cli(*args: str) -> int:
    return cli.main([*args, "--no-progress"])


def test_score_of_an_empty_file_writes_an_empty_output(tmp_path, capsys):
    src, out = tmp_path / "empty.jsonl", tmp_path / "out.jsonl"
    src.write_text("")
    assert run_cli("score", str(src), "-o", str(out)) == 0
    assert "has 0 rows" in capsys.readouterr().err
    assert out.exists() and out.read_text() == ""


def test_malformed_jsonl_line_is_kept_and_named(tmp_path, capsys):
    # The readable row has no integrand, so nothing needs a worker process.
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps({"integrand": "", "completion": r"\boxed{x}"}) + "\n"
                   + '{"integrand": "x", "completion": \n')
    assert run_cli("score", str(src), "-o", str(out)) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["source_row"], r["verdict"], r["reason"]) for r in rows] == [
        (0, "CHECKER_ERROR", "integrand_missing"), (1, "CHECKER_ERROR", "invalid_row")]
    assert "line 2" in rows[1]["row_error"]
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "line 2" in warnings[0] and "kept as CHECKER_ERROR" in warnings[0]


def test_resumed_score_summary_covers_every_row(tmp_path, capsys):
    # Rows decided without a worker (no answer, an unbalanced box, no
    # integrand), so the test is about the summary's arithmetic only.
    rows = [{"integrand": "x", "completion": "no idea"},
            {"integrand": "", "completion": r"\boxed{x}"},
            {"integrand": "x", "completion": r"\boxed{x"},
            {"integrand": "x", "completion": "pass"}]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert run_cli("score", str(src), "-o", str(out), "--limit", "2",
                   "--summary-json", str(first)) == 0
    assert run_cli("score", str(src), "-o", str(out), "--resume",
                   "--summary-json", str(second)) == 0
    summary = json.loads(second.read_text())
    assert (summary["rows"], summary["skipped"], summary["total_rows"]) == (2, 2, 4)
    assert summary["verdicts"] == {"UNPARSEABLE": 3, "CHECKER_ERROR": 1}
    assert sum(summary["verdicts"].values()) == summary["total_rows"] == len(rows)
    assert "the totals below cover all 4" in capsys.readouterr().out


# -- ablate without matplotlib ------------------------------------------------------
def test_ablate_without_matplotlib_writes_the_report_and_says_which_extra(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    scored = tmp_path / "scored.jsonl"
    scored.write_text("".join(json.dumps(r) + "\n" for r in [
        {"verdict": "CORRECT", "confidence": "symbolic", "reason": "structural"},
        {"verdict": "WRONG", "confidence": "none", "reason": "numeric_mismatch"},
        {"verdict": "UNPARSEABLE", "confidence": "none", "reason": "no_answer"}]))
    out = tmp_path / "ablation"
    assert cli.main(["ablate", str(scored), "--presets", "default", "binary",
                     "--output-dir", str(out)]) == 0
    captured = capsys.readouterr()
    err_lines = captured.err.splitlines()
    assert len(err_lines) == 1
    assert "matplotlib" in err_lines[0] and "integral-rewards[data]" in err_lines[0]
    assert {p.name for p in out.iterdir()} == {"report.md", "ablation.csv",
                                               "rank_agreement.csv"}
    assert "plots skipped" in (out / "report.md").read_text()
    assert "3 rows, presets: default, binary" in captured.out


# -- arguments and inputs a new user gets wrong (issue 28) ---------------------------------
@pytest.mark.parametrize("args", [
    ("explain", "--candidate", "x", "--integrand", "1", "--timeout", "0"),
    ("explain", "--candidate", "x", "--integrand", "1", "--timeout", "-1"),
    ("score", "in.jsonl", "-o", "out.jsonl", "--limit", "-5"),
    ("score", "in.jsonl", "-o", "out.jsonl", "--batch-size", "0"),
    ("score", "in.jsonl", "-o", "out.jsonl", "--workers", "0"),
    ("score", "in.jsonl", "-o", "out.jsonl", "--timeout", "nan"),
])
def test_values_that_would_do_nothing_or_crash_are_usage_errors(args, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(args))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


def test_a_json_array_file_is_named_as_such(tmp_path, capsys):
    src = tmp_path / "rows.json"
    src.write_text(json.dumps([{"integrand": "x", "completion": r"\boxed{x^2/2}"}]))
    assert run_cli("score", str(src), "-o", str(tmp_path / "out.jsonl")) == 2
    assert "is a JSON array, not JSON Lines" in capsys.readouterr().err


def test_non_utf8_lines_are_row_errors_not_replacement_characters(tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(json.dumps({"integrand": "", "completion": "ok"}).encode() + b"\n"
                    + b'{"integrand": "", "completion": "caf\xe9"}\n')
    assert run_cli("score", str(src), "-o", str(out)) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["reason"] for r in rows] == ["integrand_missing", "invalid_row"]
    assert "line 2 is not UTF-8" in rows[1]["row_error"] and "\ufffd" not in out.read_text()


def test_non_utf8_csv_fails_with_the_file_named(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_bytes(b"integrand,completion\nx,caf\xe9\n")
    assert run_cli("score", str(src), "-o", str(tmp_path / "out.jsonl")) == 2
    assert "in.csv: the file is not UTF-8 text" in capsys.readouterr().err


def test_resume_reads_the_columns_from_the_meta_file(tmp_path, capsys):
    rows = [{"f": "", "answer": "no idea", "var": "t"}, {"f": "", "answer": "pass", "var": ""}]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    flags = ("--completion-column", "answer", "--integrand-column", "f",
             "--symbol-column", "var")
    assert run_cli("score", str(src), "-o", str(out), "--limit", "1", *flags) == 0
    assert run_cli("score", str(src), "-o", str(out), "--resume") == 0
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["source_row"] for r in got] == [0, 1]
    assert json.loads((tmp_path / "out.jsonl.meta.json").read_text())["columns"]["symbol"] == "var"
