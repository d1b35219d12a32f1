"""Behaviour of the benchmark harness (``python -m benchmarks``, from a source checkout).

Everything here runs on a tiny corpus written by the test itself; the one
test that reads ../shared/data is skipped when it is absent. No assertion is
about timing.
"""
from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchmarks import DEFAULT_DATA_DIR, REPO_ROOT
from benchmarks.corpora import (
    MUTATIONS,
    Item,
    adjudicate,
    find_corpus,
    load_mitbee,
    load_rgym,
    load_rubi,
)
from benchmarks.peers import bench_check, payload
from benchmarks.table import write_section
from rewards import CheckRequest
from rewards.check.result import Verdict

# --- a tiny corpus, written here ---------------------------------------------

PAIRS = [
    ("x**2", "x**3/3"),
    ("cos(x)", "sin(x)"),
    ("2*x*exp(x**2)", "exp(x**2)"),
    ("1/(x**2 + 1)", "atan(x)"),
    ("x*cos(x)", "x*sin(x) + cos(x)"),
    ("3*x**2 + 2*x + 1", "x**3 + x**2 + x"),
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rgym_rows() -> list[dict]:
    def row(i, integrand, answer, label, var="x"):
        response = "Thinking...\n" + (f"<answer>{answer}</answer>" if answer else "no idea")
        return {"id": f"t/{i}", "task": "intermediate_integration", "integrand_sympy": integrand,
                "variable": var, "response": response, "extracted_answer": answer,
                "reference_answer_sympy": "x**3/3 + C" if integrand == "x**2" else None,
                "label": label, "model": "m", "setting": "s"}

    return [
        row(0, "x**2", "x**3/3 + C", "correct"),
        row(1, "x**2", "x**3/2 + C", "incorrect"),
        row(2, "x**2", None, "incorrect"),
        row(3, "x**2", "x^3/3 + C", "incorrect"),   # right, but not in Python syntax
        row(4, "cos(x)", "sin(x) + C", "correct"),
        row(5, "cos(x)", "-sin(x) + C", "incorrect"),
        row(6, "cos(x)", "sin(x) + C", "correct"),
        row(7, "x**2", "x**3/3 + C", "correct"),
    ]


def _mitbee_rows() -> list[dict]:
    def row(i, integrand, response, label):
        return {"id": f"b/{i}", "integrand_latex": integrand, "variable": "x",
                "indefinite": True, "response": response,
                "extracted_answer_latex": None, "reference_answer_latex": r"\frac{x^3}{3}",
                "extraction_method": "last_math_block", "label": label, "model": "m"}

    return [
        row(0, "x^2", r"The answer is \[\frac{x^3}{3} + C\]", "correct"),
        row(1, "x^2", r"The answer is $\frac{x^3}{2} + C$", "incorrect"),
        row(2, "x^2", "I cannot do this one.", "incorrect"),
        row(3, r"\cos x", r"So $\int \cos x \, dx$ stays as it is.", "incorrect"),
    ]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    _write_jsonl(tmp_path / "rubi_pairs.jsonl",
                 [{"id": f"p{i}", "integrand": f, "antiderivative": F}
                  for i, (f, F) in enumerate(PAIRS)])
    _write_jsonl(tmp_path / "rgym_outputs.jsonl", _rgym_rows())
    _write_jsonl(tmp_path / "mitbee_outputs.jsonl", _mitbee_rows())
    return tmp_path


# --- CLI wiring ----------------------------------------------------------------

def test_benchmarks_parser_registers_subcommands():
    from benchmarks.__main__ import build_parser

    parser = build_parser()
    args = parser.parse_args(["accuracy", "--corpus", "somewhere", "--sample", "5",
                              "--seed", "3"])
    assert (args.corpus, args.sample, args.seed) == ("somewhere", 5, 3)
    assert callable(args.func)
    args = parser.parse_args(["throughput", "--batches", "1"])
    assert args.batches == 1 and callable(args.func)
    args = parser.parse_args(["serve-faults", "--scenarios", "drops", "--drops", "3"])
    assert (args.scenarios, args.drops) == (["drops"], 3) and callable(args.func)
    with pytest.raises(SystemExit):
        parser.parse_args([])


def test_mitbee_parse_coverage_table(corpus, capsys):
    from benchmarks import mitbee_parse
    from benchmarks.__main__ import build_parser

    args = build_parser().parse_args(["mitbee", "--corpus", str(corpus), "--workers", "1"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    # 4 rows, 3 with an answer; the echoed integral is the one unparseable.
    assert "| 4 | 3 | 1 | 1 | 1 | 0 | 0 | 1 |" in out
    assert "integral sign left in the answer" in out
    assert mitbee_parse.report([]).startswith("| rows |")


def test_latex_parse_timing_table(corpus, capsys):
    from benchmarks import latex_parse

    strings = latex_parse.sample_strings(corpus / "rubi_pairs.jsonl", 3, 0)
    assert strings and all(s.endswith(" + C") for s in strings)
    table = latex_parse.measure(strings)
    assert "checker parse stage, grammar only" in table and "plain-expression path" in table


def test_benchmarks_run_from_the_checkout_not_from_the_installed_cli(capsys):
    # The installed package has no command that needs the source tree: the
    # benchmarks are `python -m benchmarks`, and `bench` is no subcommand.
    from benchmarks.__main__ import build_parser
    from rewards.cli import main

    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    assert "accuracy" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "accuracy"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'bench'" in capsys.readouterr().err


def test_every_generated_section_of_the_benchmarks_doc_names_its_command():
    # A section between bench markers is rewritten by its command; the line
    # right under its heading says which one, so nobody edits it by hand.
    doc = (REPO_ROOT / "docs" / "benchmarks.md").read_text()
    sections = re.findall(r"<!-- bench:([\w-]+):start -->\n(.*?)<!-- bench:\1:end -->", doc,
                          re.DOTALL)
    assert len(sections) >= 7
    for name, body in sections:
        lines = [line for line in body.splitlines() if line.strip()]
        assert lines[0].startswith("## "), name
        assert lines[1].startswith("Command: `python -m benchmarks "), name


def test_building_the_parser_imports_nothing_heavy():
    code = ("import sys; from benchmarks.__main__ import build_parser; build_parser(); "
            "print(sorted(m for m in ('trl', 'math_verify', 'scipy', 'loky', 'psutil') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO_ROOT)
    assert out.stdout.strip() == "[]"


# --- corpora -----------------------------------------------------------------------

def test_find_corpus_by_directory_and_by_file(corpus: Path):
    found = find_corpus(corpus)
    assert set(found) == {"rubi", "rgym", "mitbee"}
    renamed = corpus / "whatever.jsonl"
    renamed.write_text((corpus / "rgym_outputs.jsonl").read_text())
    assert set(find_corpus(renamed)) == {"rgym"}


def test_rubi_renderings_are_correct_and_mutants_verified_wrong(corpus: Path):
    import sympy as sp

    stats: Counter = Counter()
    correct, wrong = load_rubi(corpus / "rubi_pairs.jsonl", sample=None, seed=1,
                               rewrites_per_pair=2, mutants_per_pair=len(MUTATIONS),
                               stats=stats)
    assert stats["rubi_pairs_used"] == len(PAIRS)
    assert all(it.expected is True for it in correct)
    assert all(it.expected is False for it in wrong)
    groups = Counter(it.group for it in correct)
    assert groups["latex/base"] == groups["sympy/base"] == len(PAIRS)
    # sympy.latex output is what a model sees from SymPy: \operatorname{atan}
    atan = next(it for it in correct if it.group == "latex/base" and "atan" in it.answer)
    assert r"\operatorname{atan}" in atan.answer and atan.answer.endswith("+ C")
    # Every mutant really is wrong: its derivative is not the integrand.
    x = sp.Symbol("x")
    for it in wrong:
        if it.syntax != "sympy":
            continue
        G = sp.sympify(it.answer.replace("+ C", ""), locals={"x": x})
        f = sp.sympify(it.integrand, locals={"x": x})
        assert sp.simplify(sp.diff(G, x) - f) != 0, it.id
    ops = {it.group.split("/", 1)[1] for it in wrong}
    assert {"tiny_term", "scaled", "derivative_given"} <= ops
    tiny = next(it for it in wrong if it.group == "latex/tiny_term")
    assert "10^{-13} x" in tiny.answer


def test_rgym_and_mitbee_loading(corpus: Path):
    rgym = load_rgym(corpus / "rgym_outputs.jsonl")
    assert len(rgym) == 8 and rgym[2].answer is None
    assert [it.label for it in rgym[:2]] == [True, False]
    mitbee = load_mitbee(corpus / "mitbee_outputs.jsonl")
    assert len(mitbee) == 4
    assert mitbee[0].integrand == "x**2"          # LaTeX integrand converted for the peers
    assert mitbee[0].integrand_latex == "x^2"


def test_adjudicator_reads_what_the_label_missed():
    assert adjudicate("x^3/3 + C", "x**2") == "correct"
    assert adjudicate("x**3/2 + C", "x**2") == "incorrect"
    assert adjudicate(None, "x**2") == "no_answer"
    assert adjudicate("ln(x) + C", "1/x") == "correct"
    assert adjudicate("y*x + C", "x") == "incorrect"


# --- peers ---------------------------------------------------------------------------

def _peer(method: str, candidate: str, f: str, **kw) -> Verdict:
    data = payload(f, ref=kw.pop("ref", None), ref_latex=kw.pop("ref_latex", None),
                   syntax=kw.pop("syntax", "sympy"))
    result = bench_check(candidate, data, CheckRequest.build(**kw), method=method)
    assert result.total_ms >= 0
    return result.verdict


@pytest.mark.parametrize("method", ["reasoning_gym", "rlve_numeric", "ladder_numeric",
                                    "seed_design"])
def test_sympy_peers_on_plain_answers(method: str):
    assert _peer(method, "x**3/3 + C", "x**2", ref="x**3/3") is Verdict.CORRECT
    assert _peer(method, "x**3/2 + C", "x**2", ref="x**3/3") is Verdict.WRONG
    assert _peer(method, "sin(x) + C", "cos(x)", ref="sin(x)") is Verdict.CORRECT


def test_peer_extraction_from_a_response():
    response = "work...\n<answer>sin(x) + C</answer>"
    for method in ("reasoning_gym", "rlve_numeric", "ladder_numeric"):
        assert _peer(method, response, "cos(x)", syntax="response") is Verdict.CORRECT
        assert _peer(method, "no tags here", "cos(x)", syntax="response") is \
            Verdict.UNPARSEABLE


def test_peers_faithful_weaknesses():
    # RLVE's 1e-5 absolute tolerance and the seed's rtol 1e-12 both let a
    # tiny extra term through; reasoning-gym's simplify does not.
    # (When SymPy cancels the difference on its own, RLVE's is_zero decides.)
    tiny = "sin(x)**2 + 10**(-13)*x + C"
    assert _peer("rlve_numeric", tiny, "sin(2*x)", ref="sin(x)**2") is Verdict.CORRECT
    assert _peer("seed_design", tiny, "sin(2*x)") is Verdict.CORRECT
    assert _peer("reasoning_gym", tiny, "sin(2*x)") is Verdict.WRONG
    assert _peer("rlve_numeric", "exp(x) + 10**(-13)*x", "exp(x)", ref="exp(x)") is \
        Verdict.WRONG
    # RLVE: a free parameter is a format error (reported as WRONG).
    assert _peer("rlve_numeric", "x**3/3 + a", "x**2", ref="x**3/3") is Verdict.WRONG
    # reasoning-gym's parse_expr reads ^ as XOR: a correct x^3/3 fails.
    assert _peer("reasoning_gym", "x^3/3 + C", "x**2") is not Verdict.CORRECT


def test_trl_peer_compares_with_the_reference():
    pytest.importorskip("math_verify")
    pytest.importorskip("trl")
    assert _peer("trl_math_verify", r"\frac{x^{3}}{3} + C", "x**2",
                 ref_latex=r"\frac{x^{3}}{3} + C", syntax="latex") is Verdict.CORRECT
    assert _peer("trl_math_verify", "x**3/3 + C", "x**2", ref="x**3/3 + C") is Verdict.CORRECT
    # A correct answer in another form than the reference is not recognised:
    # math-verify compares values, not derivatives.
    assert _peer("trl_math_verify", r"\frac{x^{3}}{3} + 5 + C", "x**2",
                 ref_latex=r"\frac{x^{3}}{3} + C", syntax="latex") is not Verdict.CORRECT


def test_peer_past_its_deadline_is_a_timeout():
    heavy = " + ".join(f"sin({k}*x)**{k}*cos(x)**{k}" for k in range(2, 12))
    verdict = _peer("reasoning_gym", heavy + " + C", "x", timeout_s=0.05)
    assert verdict is Verdict.TIMEOUT


def test_peer_without_integrand_is_a_checker_error():
    result = bench_check("x", json.dumps({"f": None}), CheckRequest(), method="rlve_numeric")
    assert result.verdict is Verdict.CHECKER_ERROR


# --- the accuracy command end to end (a real worker pool) ---------------------------------

def _accuracy_args(corpus: Path, tmp_path: Path, methods: list[str]) -> argparse.Namespace:
    return argparse.Namespace(
        corpus=str(corpus), sample=None, seed=0, rewrites_per_pair=1, mutants_per_pair=2,
        rgym_sample=None, mitbee_sample=None, peer_sample=None, methods=methods,
        datasets=["rubi", "rgym", "mitbee"], workers=1, timeout=10.0,
        out=str(tmp_path / "bench.md"), json=str(tmp_path / "acc.json"), cache_dir="",
        from_json=None)


@pytest.mark.slow
def test_accuracy_command_on_a_tiny_corpus(corpus: Path, tmp_path: Path):
    from benchmarks import accuracy

    args = _accuracy_args(corpus, tmp_path, ["ours", "rlve_numeric"])
    assert accuracy.main(args) == 0
    raw = json.loads((tmp_path / "acc.json").read_text())
    summary = raw["summary"]
    for syntax in ("latex", "sympy"):
        s = summary["rubi_correct"][f"ours/{syntax}"]
        assert s["accepted"] == s["n"] > 0
    assert summary["rubi_wrong"]["ours"]["accepted"] == 0
    rgym = summary["rgym"]["ours"]
    assert rgym["n"] == 8 and rgym["false_accepts"] == 0
    # Row 3 (x^3/3) is labelled incorrect but is correct: adjudicated so.
    assert raw["adjudicated"]["t/3"] == "correct"
    assert rgym["accepted_correct"] == rgym["n_correct"] == 5
    # MIT Bee: the unanswered and the echoed integral are parse failures.
    mitbee = {r["id"]: r for r in raw["records"]["mitbee"]["ours"]}
    assert mitbee["b/0"]["verdict"] == "CORRECT"
    assert mitbee["b/1"]["verdict"] == "WRONG"
    assert mitbee["b/2"]["verdict"] == "UNPARSEABLE"
    assert mitbee["b/3"]["verdict"] == "UNPARSEABLE"
    text = (tmp_path / "bench.md").read_text()
    assert "<!-- bench:accuracy:start -->" in text and "false accepts" in text
    assert "categorized" in text
    # Re-rendering a saved run (no method runs again) gives the same numbers
    # and replaces the section instead of appending a second one.
    again = _accuracy_args(corpus, tmp_path, ["ours"])
    again.from_json, again.json = str(tmp_path / "acc.json"), str(tmp_path / "acc2.json")
    assert accuracy.main(again) == 0
    assert json.loads((tmp_path / "acc2.json").read_text())["summary"] == summary
    assert (tmp_path / "bench.md").read_text().count("<!-- bench:accuracy:start -->") == 1


def test_write_section_keeps_the_rest_of_the_file(tmp_path: Path):
    doc = tmp_path / "doc.md"
    doc.write_text("# Title\n\nintro\n")
    write_section(doc, "a", "first")
    write_section(doc, "b", "second")
    write_section(doc, "a", "first again")
    text = doc.read_text()
    assert text.startswith("# Title\n\nintro")
    assert "first again" in text and "second" in text and "first\n" not in text


# --- throughput ----------------------------------------------------------------------------

def test_grpo_batch_is_built_from_groups(tmp_path: Path):
    from benchmarks.throughput import build_batches, describe_batch

    rows = []
    for p in range(4):
        for c in range(3):
            answer = f"x**{p + 2}/{p + 2} + C" if c < 2 else "oops"
            rows.append({"task": "t", "integrand_sympy": f"x**{p + 1}", "variable": "x",
                         "response": f"<answer>{answer}</answer>", "extracted_answer": answer,
                         "reference_answer_sympy": answer, "label": "correct"})
    path = _write_jsonl(tmp_path / "rgym_outputs.jsonl", rows)
    batches = build_batches(path, seed=0, prompts=2, per_prompt=3, truncate_frac=0.0,
                            n_batches=3)
    assert [len(b) for b in batches] == [6, 6, 6]
    # batch 3 revisits the prompts of batch 1 (a second epoch)
    assert {r["prompt_key"] for r in batches[0]} == {r["prompt_key"] for r in batches[2]}
    assert {r["prompt_key"] for r in batches[0]}.isdisjoint(r["prompt_key"] for r in batches[1])
    mix = describe_batch(batches[0])
    assert mix["completions"] == 6 and mix["repeated_in_group"] == 2
    assert mix["no_answer"] == 0


@pytest.mark.slow
def test_throughput_config_scores_the_batch(tmp_path: Path):
    from benchmarks.throughput import run_config, summarize

    batch = [{"completion": "<answer>x**3/3 + C</answer>", "integrand": "x**2", "symbol": "x",
              "reference": "x**3/3 + C", "answer": "x**3/3 + C", "label": True,
              "prompt_key": "a"},
             {"completion": "no answer", "integrand": "x**2", "symbol": "x",
              "reference": "x**3/3 + C", "answer": None, "label": False, "prompt_key": "a"}]
    result = run_config("ours/sequential", [batch], timeout_s=10.0)
    assert result["verdicts"] == {"CORRECT": 1, "UNPARSEABLE": 1}
    s = summarize(result)
    assert s["completions"] == 2 and s["peak_rss_mb"] > 0 and s["max_wall_over_bound"] < 1


@pytest.mark.slow
def test_scaling_alternates_fresh_pools_of_one_and_two_workers():
    from benchmarks.throughput import SCALING_ORDER, run_config, summarize

    batch = [{"completion": r"\boxed{x^3/3}", "integrand": "x**2", "symbol": "x"},
             {"completion": r"\boxed{2x^3}", "integrand": "x**2", "symbol": "x"}]
    result = run_config("ours/scaling", [batch], timeout_s=10.0)
    scaling = summarize(result)["scaling"]
    assert len(scaling["w1_s"]) == SCALING_ORDER.count(1) == len(scaling["ratios"])
    assert len(scaling["w2_s"]) == SCALING_ORDER.count(2)
    assert all(r > 0 for r in scaling["ratios"])
    # One pass's verdicts (the first 2-worker one), not one per pass.
    assert result["verdicts"] == {"CORRECT": 1, "WRONG": 1}


# --- the real data (optional) ------------------------------------------------------------

@pytest.mark.data
@pytest.mark.skipif(not (DEFAULT_DATA_DIR / "rubi_pairs.jsonl").exists(),
                    reason="../shared/data is absent")
def test_real_corpus_loads_and_renders():
    found = find_corpus(DEFAULT_DATA_DIR)
    assert {"rubi", "rgym", "mitbee"} <= set(found)
    correct, wrong = load_rubi(found["rubi"], sample=3, seed=0, mutants_per_pair=2)
    assert len({it.meta["pair"] for it in correct}) == 3
    assert all(isinstance(it, Item) and it.answer for it in correct + wrong)
    assert len(load_rgym(found["rgym"], sample=5)) == 5


def test_rubi_batch_mixes_renderings_mutants_and_no_answers(corpus: Path):
    from benchmarks.throughput import build_rubi_batches, describe_batch

    batches = build_rubi_batches(corpus / "rubi_pairs.jsonl", seed=0, prompts=2, per_prompt=8,
                                 n_batches=2, no_answer_frac=0.2)
    assert [len(b) for b in batches] == [16, 16]
    rows = batches[0] + batches[1]
    assert {r["source"] for r in rows} == {"rubi"}
    assert any(r["label"] for r in rows) and any(not r["label"] for r in rows)
    assert any(r["answer"] is None for r in rows)
    assert any("\\boxed{" in r["completion"] for r in rows)
    assert any("<answer>" in r["completion"] for r in rows)
    assert describe_batch(batches[0])["repeated_in_group"] > 0


# --- the rubi-latex batch (issue 9) ------------------------------------------------------

def _synthetic_rubi_rows(n: int = 80) -> list[dict]:
    """Elementary pairs of several families, all defined on the whole real line."""
    rows = []
    for k in range(1, n + 1):
        family = k % 5
        if family == 0:
            f, F = f"{k}*x**{k % 4 + 1}", f"{k}*x**{k % 4 + 2}/{k % 4 + 2}"
        elif family == 1:
            f, F = f"cos({k}*x)", f"sin({k}*x)/{k}"
        elif family == 2:
            f, F = f"x*exp({k}*x)", f"x*exp({k}*x)/{k} - exp({k}*x)/{k**2}"
        elif family == 3:
            f, F = f"x/(x**2 + {k})", f"log(x**2 + {k})/2"
        else:
            f, F = f"1/(x**2 + {k**2})", f"atan(x/{k})/{k}"
        rows.append({"id": f"syn/{k}", "integrand": f, "antiderivative": F})
    # Filtered out: a special function, a parameter, a long antiderivative.
    rows.append({"id": "syn/erf", "integrand": "exp(-x**2)", "antiderivative": "sqrt(pi)*erf(x)/2"})
    rows.append({"id": "syn/param", "integrand": "a*x", "antiderivative": "a*x**2/2"})
    rows.append({"id": "syn/long", "integrand": "0", "antiderivative": " + ".join(["x"] * 80)})
    return rows


def _residuals(answer_sympy: str, integrand: str, points=(-1.7, -0.35, 0.42, 1.3, 2.9)):
    """|G' - f| / max(1, |f|) at 50 digits at real points (independent of the bench code)."""
    import mpmath as mp
    import sympy as sp

    x = sp.Symbol("x")
    d = sp.lambdify(x, sp.diff(sp.sympify(answer_sympy, {"x": x}), x), "mpmath")
    f = sp.lambdify(x, sp.sympify(integrand, {"x": x}), "mpmath")
    with mp.workdps(50):
        return [abs(d(mp.mpf(p)) - f(mp.mpf(p))) / max(1, abs(f(mp.mpf(p)))) for p in points]


@pytest.mark.slow
def test_rubi_latex_batch_is_deterministic_grouped_and_verified(tmp_path: Path):
    from benchmarks.rubi_latex import (
        CORRECT_FORMS,
        FORMS,
        WRONG_FORMS,
        batch_digest,
        build_rubi_latex_batches,
        distinct_checks,
    )
    from rewards.check.extract import ExtractionStatus, extract_answer

    path = _write_jsonl(tmp_path / "rubi_pairs.jsonl", _synthetic_rubi_rows())
    stats: Counter = Counter()
    # The command's batch is 64 prompts x 8 (GRPO's shape); 16 here keep the
    # test fast and check the same properties.
    assert inspect.signature(build_rubi_latex_batches).parameters["prompts"].default == 64
    n = 16
    batches, warmup = build_rubi_latex_batches(path, seed=3, prompts=n, stats=stats)
    assert len(batches) == 1 and len(batches[0]) == n * 8 and len(warmup) == 8 * 8
    rows = batches[0]
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["prompt_key"], []).append(r)
    assert len(groups) == n and not set(groups) & {r["prompt_key"] for r in warmup}
    assert not {"syn/erf", "syn/param", "syn/long"} & set(groups)
    for group in groups.values():
        assert sorted(r["form"] for r in group) == sorted(FORMS)   # one of each form
    assert Counter(r["kind"] for r in rows) == {"correct": n * len(CORRECT_FORMS),
                                                 "wrong": n * len(WRONG_FORMS),
                                                 "no_answer": n}
    assert Counter(r["form"] for r in rows)["refusal"] == n
    assert len({tuple(r["form"] for r in g) for g in groups.values()}) > 1  # shuffled
    for r in rows:
        extraction = extract_answer(r["completion"])
        if r["form"] == "refusal":
            assert r["answer"] is None and "\\boxed" not in r["completion"]
            assert extraction.status is not ExtractionStatus.OK
            continue
        # Exactly the sympy.latex answer is in the one box.
        assert extraction.status is ExtractionStatus.OK and extraction.value == r["answer"]
        assert r["answer"].endswith(" + C") == (r["form"] not in ("without_c",
                                                                  "expanded_plus_1"))
        res = _residuals(r["answer_sympy"], r["integrand"])
        if r["kind"] == "correct":
            assert max(res) < 1e-35, (r["form"], r["answer_sympy"], r["integrand"])
        else:
            assert sum(v > 1e-10 for v in res) >= 2, (r["form"], r["answer_sympy"])
    by_form = {form: [r for r in rows if r["form"] == form] for form in FORMS}
    for with_c, without_c in zip(by_form["with_c"], by_form["without_c"], strict=True):
        assert with_c["answer"] == without_c["answer"] + " + C"
    # The rewrite is another text than the other correct forms.
    for group in groups.values():
        texts = {r["form"]: r["answer"] for r in group if r["answer"]}
        assert texts["rewrite"].removesuffix(" + C") not in {texts["without_c"],
                                                             texts["expanded_plus_1"]}
    assert len(distinct_checks(rows)) == n * 7
    # Same command, same batch; another seed, another one.
    again, warm_again = build_rubi_latex_batches(path, seed=3, prompts=n)
    assert batch_digest(again, warm_again) == batch_digest(batches, warmup)
    other, warm_other = build_rubi_latex_batches(path, seed=4, prompts=8, warmup_prompts=0)
    assert batch_digest(other, warm_other) != batch_digest(batches, warmup)


def test_rubi_latex_proof_tables_count_rungs():
    from benchmarks.rubi_latex import rung_table, stage_table

    def record(verdict, confidence, by, tried, stage="symbolic_confirm"):
        return {"verdict": verdict, "confidence": confidence, "by": by, "stage": stage,
                "tried": [{"step": s, "ms": ms, "result": res} for s, ms, res in tried],
                "total_ms": 10.0, "stages": [["candidate_parse", 4.0], [stage, 5.0]],
                "kind": "correct", "form": "with_c", "integrand": "x", "reason": "r",
                "proof_ms": sum(ms for _, ms, _ in tried)}

    records = [record("CORRECT", "symbolic", "cancel", [("expand", 1.0, False),
                                                         ("cancel", 2.0, True)]),
               record("CORRECT", "numeric_only", None, [("expand", 1.0, False),
                                                        ("simplify", 9.0, "timeout")]),
               record("CORRECT", "symbolic", None, [], stage="structural"),
               record("WRONG", "none", None, [], stage="numeric_screen")]
    rows = {r[0]: r for r in rung_table(records)}
    assert rows["`cancel`"][1:3] == [1, 1] and rows["`expand`"][1:3] == [0, 2]
    assert rows["`simplify`"][6] == 1                      # one rung time-out
    assert rows["numeric-only (no rung proved)"][1] == 1
    assert rows["`structural` (before the ladder)"][1] == 1
    assert rows["not accepted (WRONG)"][1] == 1
    stage_rows, total = stage_table(records)
    assert total == 40.0
    parse = next(r for r in stage_rows if r[0] == "`candidate_parse`")
    assert parse[1] == 4 and parse[2] == pytest.approx(0.016)


def test_the_package_docstring_lists_every_benchmark_module():
    import benchmarks

    listed = {line.split()[0].rstrip("/") for line in benchmarks.__doc__.splitlines()
              if line.startswith("    ") and not line.startswith("     ")}
    here = Path(benchmarks.__file__).parent
    modules = {p.stem for p in here.glob("*.py") if not p.stem.startswith("_")}
    modules |= {p.parent.name for p in here.glob("*/__init__.py")}
    assert listed == modules
