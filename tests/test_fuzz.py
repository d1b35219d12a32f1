r"""Property-based fuzzing of extraction, LaTeX canonicalization, the safe
SymPy-syntax parser and the whole checker.

Properties:

* nothing raises on any text: extraction reports a status, the parsers raise
  only :class:`ParseFailure`, the checker returns a verdict (and never
  CHECKER_ERROR, which would mean a bug in us);
* random text never earns CORRECT;
* no model text reaches ``eval``/``exec``/``parse_expr`` on the way (only the
  few generated code strings listed in ``_ALLOWED_CODE`` do);
* a random antiderivative ``F`` built from a small grammar, printed with
  ``sympy.latex`` (in a box) or ``str`` (in answer tags), is CORRECT for
  ``f = F'``; a mutated one (``F + x``, ``2F``, ``F + 10^{-13}x``) is not.

Example counts are modest and the runs derandomized, so CI is deterministic
and the file stays well under a minute on two cores.
"""
from __future__ import annotations

import builtins
import re
from contextlib import contextmanager

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import Verdict, check_antiderivative
from rewards.check.errors import ParseFailure
from rewards.check.extract import BoxPolicy, Extraction, ExtractionStatus, extract_answer
from rewards.check.parse.latex.grammar import canonicalize_latex, parse_latex
from rewards.check.parse.sympy_text import parse_sympy_text

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
FEW = settings(FUZZ, max_examples=30)
x = sp.Symbol("x")
HARD_INTEGRAND = "x*exp(x)*cos(x)"  # no random text is an antiderivative of this


# Code strings that legitimately reach eval/exec while a check runs: number
# tokens the LaTeX lexer already validated (latex2sympy2_extended builds them
# with sympy.Number(text), i.e. sympify -> eval of "Integer (2 )"), lambdify's
# namespace imports, the standard library's code generation for dataclasses
# and namedtuples of lazily imported modules, and SymPy's generated monomial
# arithmetic of a polynomial ring (the normal form's, built once per size).
_ALLOWED_CODE = re.compile(
    r"(?:Integer|Float) \('?[0-9.]+'? \)|from [\w.]+ import \*|import [\w., ]+"
    r"|def __create_fn__\(.*|lambda _cls, .*|def monomial_\w+\(A, [Bk, ]+\):.*", re.S)
_NUMBER_TOKEN = re.compile(r"[0-9][0-9.,]*|\.[0-9]+")


@contextmanager
def no_eval():
    """Fail if model text reaches eval/exec or SymPy's eval-based parser while
    the code under test runs (not around Hypothesis, which execs its own)."""
    import sympy.parsing.sympy_parser as sympy_parser

    real_eval, real_exec, real_parse = builtins.eval, builtins.exec, sympy_parser.parse_expr

    def guard(source):
        if isinstance(source, bytes):
            source = source.decode("utf-8", "replace")
        if isinstance(source, str) and not _ALLOWED_CODE.fullmatch(source.strip()):
            raise AssertionError(f"eval/exec of a string: {source!r:.200}")

    def guarded_eval(source, *args, **kwargs):
        guard(source)
        return real_eval(source, *args, **kwargs)

    def guarded_exec(source, *args, **kwargs):
        guard(source)
        return real_exec(source, *args, **kwargs)

    def guarded_parse_expr(s, *args, **kwargs):
        if not (isinstance(s, str) and _NUMBER_TOKEN.fullmatch(s)):
            raise AssertionError(f"sympy's parse_expr (eval) was called on {s!r:.200}")
        return real_parse(s, *args, **kwargs)

    builtins.eval, builtins.exec, sympy_parser.parse_expr = (guarded_eval, guarded_exec,
                                                             guarded_parse_expr)
    try:
        yield
    finally:
        builtins.eval, builtins.exec, sympy_parser.parse_expr = real_eval, real_exec, real_parse


# --- strategies ----------------------------------------------------------------
FRAGMENTS = [
    "\\boxed{", "\\fbox{", "\\boxed ", "}", "{", "<answer>", "</answer>", "< answer >", "$",
    "$$", "\\(", "\\)", "\\[", "\\]", "\\", "\\\\", "\\{", "\\}", "x", "y", "C", "^", "_",
    "\\frac", "\\dfrac", "\\sqrt", "\\int", "dx", "+ C", "\x00", " ", "\n", "\\left(",
    "\\right)", "\\left|", "\\right|", "|", "e", "\\ln", "\\log", "\\sin", "\\cos", "\\arctan",
    "\\operatorname{", "\\text{", "10^{", "9^{9^{9}}", "!", "=", ",", "**", "__", "(", ")",
    "0", "1", "2", "13", "1000", ".", "-", "+", "*", "/", "\\cdot", "\\pi", "\\infty", "oo",
    "zoo", "nan", "lambda", "import", "os", "eval(", "'", '"', "#", ";", ":", "\u2212", "\u03c0",
    "\u00b2", "\u200b", "\ufeff", "\x1b", "\\begin{cases}", "&", "\\end{cases}", "\\sum_{n=1}",
    "\\lfloor", "\\rfloor", "exp(", "sin(", "log(", "sqrt(", "Abs(", "factorial(", "\\binom",
]
fragment_soup = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4),
                         max_size=40).map("".join)
any_text = st.text(max_size=300) | fragment_soup
# No \u00b1/\u2213: a sign right before a box is a hedge under the final-answer policy.
prose = st.text(alphabet=st.characters(blacklist_characters="\\{}<>$\u00b1\u2213",
                                       blacklist_categories=("Cs",)), max_size=80)

_LATEX_ATOMS = st.sampled_from(["x", "1", "2", "3", "10", "\\pi", "e", "0.5", "a", "C"])


def _latex_extend(children):
    return st.one_of(
        st.tuples(children, st.sampled_from([" + ", " - ", " \\cdot ", " ", "/"]), children)
        .map("".join),
        st.tuples(children, children).map(lambda p: f"\\frac{{{p[0]}}}{{{p[1]}}}"),
        st.tuples(children, st.integers(-3, 12)).map(lambda p: f"{{{p[0]}}}^{{{p[1]}}}"),
        st.tuples(st.sampled_from(["\\sin", "\\cos", "\\tan", "\\ln", "\\log", "\\exp",
                                   "\\arctan", "\\arcsin", "\\sinh", "\\operatorname{erf}",
                                   "\\operatorname{sech}"]),
                  st.sampled_from(["({})", "{{{}}}", " {}", "\\left({}\\right)"]), children)
        .map(lambda p: p[0] + p[1].format(p[2])),
        children.map(lambda c: f"\\sqrt{{{c}}}"),
        children.map(lambda c: f"\\left|{c}\\right|"),
        children.map(lambda c: f"({c})"),
        children.map(lambda c: f"e^{{{c}}}"),
    )


latex_grammar = st.recursive(_LATEX_ATOMS, _latex_extend, max_leaves=8)


def _tree_extend(children):
    small = st.integers(1, 4).map(sp.Integer)
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] + p[1]),
        st.tuples(children, children).map(lambda p: p[0] * p[1]),
        st.tuples(children, st.integers(2, 3)).map(lambda p: p[0] ** p[1]),
        st.tuples(small, children).map(lambda p: p[1] / p[0]),
        children.map(sp.sin), children.map(sp.cos), children.map(sp.exp),
        children.map(lambda c: sp.atan(c)),
        children.map(lambda c: sp.log(c ** 2 + 1)),
        children.map(lambda c: sp.sqrt(c ** 2 + 1)),
    )


def _plausible(F: sp.Expr) -> bool:
    # Not constant, small, and no function of a constant (sin(sin(3))): the
    # safe parser deliberately bounds those (reason too_deep).
    return (F.has(x) and sp.count_ops(F) <= 14 and sp.diff(F, x) != 0
            and all(fn.has(x) for fn in F.atoms(sp.Function)))


# Antiderivatives: SymPy trees over x from a small grammar.
antiderivatives = st.recursive(
    st.sampled_from([x, x, 2 * x, x + 1, sp.Integer(3), x / 3]), _tree_extend, max_leaves=4,
).filter(_plausible)


def _box(s: str) -> str:
    return "We find \\boxed{" + s + "}."


def _check(candidate: str, integrand: str, timeout_s: float = 5.0):
    with no_eval():
        result = check_antiderivative(candidate, integrand, input_kind="response",
                                      timeout_s=timeout_s)
    assert result.verdict is not Verdict.CHECKER_ERROR, result.render()[:2000]
    return result


# --- extraction ----------------------------------------------------------------
@FUZZ
@given(text=any_text, policy=st.sampled_from(list(BoxPolicy)), fallback=st.booleans())
def test_extraction_never_raises(text, policy, fallback):
    with no_eval():
        r = extract_answer(text, policy=policy, math_fallback=fallback)
    assert isinstance(r, Extraction) and isinstance(r.status, ExtractionStatus)
    # The internal-error net must never be what kept extraction from raising.
    assert r.status is not ExtractionStatus.INTERNAL_ERROR, r.detail
    assert (r.value is not None) == (r.status is ExtractionStatus.OK)
    if r.ok:
        assert r.value == r.value.strip() and "\x00" not in r.value and r.value


@FUZZ
@given(data=st.binary(max_size=200))
def test_extraction_of_bytes_never_raises(data):
    r = extract_answer(data)
    assert isinstance(r.status, ExtractionStatus)
    assert r.status is not ExtractionStatus.INTERNAL_ERROR, r.detail


@FUZZ
@given(before=prose, after=prose)
def test_prose_alone_has_no_answer(before, after):
    assert extract_answer(before + after).status is ExtractionStatus.NO_ANSWER


@FUZZ
@given(before=prose, answer=latex_grammar, after=prose)
def test_boxed_answer_is_found_exactly(before, answer, after):
    r = extract_answer(before + "\\boxed{" + answer + "}" + after)
    assert r.status is ExtractionStatus.OK
    assert r.value == answer.strip()


# --- LaTeX canonicalization and parsing -----------------------------------------
def test_latex_pipeline_raises_only_parse_failure():
    reached: list[int] = []

    @FUZZ
    @given(text=any_text | latex_grammar)  # random text, and text that parses
    def prop(text):
        rules: list[str] = []
        try:
            with no_eval():
                canonical = canonicalize_latex(text, rules)
        except ParseFailure:
            return
        assert isinstance(canonical, str) and all(isinstance(r, str) for r in rules)
        try:
            with no_eval():
                expr = parse_latex(canonical, "x")
        except ParseFailure:
            return
        reached.append(1)
        assert isinstance(expr, sp.Expr)

    prop()
    # A floor: most examples may stop early; enough must reach the assert.
    assert len(reached) >= 14, len(reached)


def test_latex_grammar_canonicalization_is_stable():
    reached: list[int] = []

    @FUZZ
    @given(text=latex_grammar)
    def prop(text):
        # Canonical text is in the parser's dialect: canonicalizing it again must
        # not change what it means.
        try:
            once = canonicalize_latex(text, [])
            first = parse_latex(once, "x")
        except ParseFailure:
            return
        try:
            second = parse_latex(canonicalize_latex(once, []), "x")
        except ParseFailure as exc:  # pragma: no cover - a failure is the finding
            raise AssertionError(f"{text!r} -> {once!r} no longer parses: {exc.reason}") from None
        reached.append(1)
        assert sp.expand(first - second) == 0, (text, once, first, second)

    prop()
    # A floor: most examples may stop early; enough must reach the assert.
    assert len(reached) >= 30, len(reached)


def _same_value(a: sp.Expr, b: sp.Expr) -> bool:
    names = sorted((a.free_symbols | b.free_symbols) - {x}, key=str)
    for point in (sp.Rational(37, 100), sp.Rational(19, 10)):
        values = {x: point, **{s: sp.Rational(13 + i, 10) for i, s in enumerate(names)}}
        u, v = sp.N(a.xreplace(values), 30), sp.N(b.xreplace(values), 30)
        if not (u.is_number and v.is_number) or u.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            continue
        if not abs(sp.N(u - v, 30)) <= sp.Float("1e-9") * max(1, abs(u)):
            return False
    return True


def test_plain_expression_path_reads_like_the_grammar():
    reached: list[int] = []

    @FUZZ
    @given(text=latex_grammar)
    def prop(text):
        # The cheaper path (latex_fast) must give what the grammar gives. (What
        # it accepts is bounded by the safe SymPy-syntax parser's guards, which
        # may accept a constant the grammar path's size heuristics refuse.)
        from rewards.check.parse.latex import grammar as latex_module

        try:
            canonical = canonicalize_latex(text, [])
        except ParseFailure:
            return
        if latex_module.to_python(canonical, "x") is None:
            return
        try:
            with no_eval():
                fast = parse_latex(canonical, "x")
        except ParseFailure:
            fast = None
        original = latex_module.to_python
        latex_module.to_python = lambda *_: None
        try:
            grammar = parse_latex(canonical, "x")
        except ParseFailure:
            grammar = None
        finally:
            latex_module.to_python = original
        if fast is None or grammar is None:
            return                          # refused or left to the grammar: nothing changes
        reached.append(1)
        assert _same_value(fast, grammar), (text, canonical, fast, grammar)

    prop()
    # A floor: most examples may stop early; enough must reach the assert.
    assert len(reached) >= 25, len(reached)


# --- the safe SymPy-syntax parser ----------------------------------------------
PY_TOKENS = ["x", "y", "C", "sin", "exp", "log", "sqrt", "Abs", "pi", "E", "I", "oo", "zoo",
             "__import__", "__class__", "os", "system", "lambda", "eval", "exec", "open", "getattr",
             "Symbol", "Integral", "factorial", "gamma", "(", ")", "[", "]", "{", "}", ",", ".",
             ":", ";", "=", "==", "+", "-", "*", "**", "/", "//", "%", "^", "@", "~", "&", "|",
             "<", ">", "'", '"', "f'", "b'", "#", "\\", "0", "1", "9", "1e999", "0x1f", "1j",
             "9**9**9", " ", "\n", "\t", "\x00", "if", "else", "for", "in", "not", "and", "or",
             "await", "yield", "await", "...", "None", "True", "_", "\u03c0", "\u2212", "\u00e9"]
py_soup = st.lists(st.sampled_from(PY_TOKENS), max_size=30).map("".join)


def test_sympy_parser_raises_only_parse_failure():
    reached: list[int] = []

    @FUZZ
    @given(text=py_soup | st.text(max_size=200) | antiderivatives.map(str))
    def prop(text):
        try:
            with no_eval():
                expr = parse_sympy_text(text, "x")
        except ParseFailure:
            return
        reached.append(1)
        assert isinstance(expr, sp.Expr)

    prop()
    # A floor: most examples may stop early; enough must reach the assert.
    assert len(reached) >= 8, len(reached)


@FEW
@given(F=antiderivatives)
def test_sympy_parser_round_trips_printed_trees(F):
    with no_eval():
        parsed = parse_sympy_text(str(F), "x")
    assert sp.expand(parsed - F) == 0 or sp.simplify(parsed - F) == 0


# --- the whole checker -----------------------------------------------------------
@FUZZ
@given(text=any_text)
def test_random_text_is_never_correct(text):
    result = _check(text, HARD_INTEGRAND, timeout_s=2.0)
    assert result.verdict is not Verdict.CORRECT, text


@FUZZ
@given(answer=latex_grammar)
def test_random_latex_is_never_correct(answer):
    result = _check(_box(answer), HARD_INTEGRAND, timeout_s=2.0)
    assert result.verdict is not Verdict.CORRECT, answer


@FEW
@given(F=antiderivatives)
def test_printed_antiderivative_is_correct(F):
    f = str(sp.diff(F, x))
    latex = _check(_box(sp.latex(F)), f, timeout_s=30.0)
    assert latex.verdict is Verdict.CORRECT, (sp.latex(F), f, latex.render()[:2000])
    plain = _check(f"<answer>{F}</answer>", f, timeout_s=30.0)
    assert plain.verdict is Verdict.CORRECT, (str(F), f, plain.render()[:2000])


@FEW
@given(F=antiderivatives, mutation=st.sampled_from(["plus_x", "double", "tiny"]))
def test_mutated_antiderivative_is_not_correct(F, mutation):
    f = sp.diff(F, x)
    text = {"plus_x": sp.latex(F) + " + x",
            "double": "2 \\left(" + sp.latex(F) + "\\right)",
            "tiny": sp.latex(F) + " + 10^{-13} x"}[mutation]
    result = _check(_box(text), str(f), timeout_s=30.0)
    assert result.verdict is not Verdict.CORRECT, (text, str(f), result.render()[:2000])
