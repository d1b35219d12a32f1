"""Tests for the safe SymPy-syntax parser (rewards.sympy_text).

Three groups: valid answers parse to the expected SymPy expression, hostile
answers are refused with a stable reason slug (and nothing but ParseFailure
ever escapes), and resource attacks are refused quickly.
"""
from __future__ import annotations

import ast
import builtins
import os
import subprocess

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sympy import (
    Abs,
    E,
    I,
    Rational,
    Symbol,
    asin,
    asinh,
    atan,
    cos,
    exp,
    log,
    nan,
    oo,
    pi,
    sin,
    sqrt,
    zoo,
)
from sympy.core.function import AppliedUndef

from rewards.check.errors import ParseFailure
from rewards.check.limits import INTEGRAND
from rewards.check.parse.sympy_text import REASONS, parse_sympy_text
from rewards.check.timebox import StepTimeout

x = Symbol("x")
t = Symbol("t")
X = Symbol("X")
C = Symbol("C")
y = Symbol("y")


def fails(text: str, **kwargs) -> str:
    """Parse ``text`` expecting a ParseFailure; return its reason."""
    with pytest.raises(ParseFailure) as info:
        parse_sympy_text(text, **kwargs)
    assert info.value.reason in REASONS, info.value.reason
    return info.value.reason


# --- valid answers ----------------------------------------------------------

VALID = [
    ("x**2/2 + C", x**2 / 2 + C),
    ("-2*x*asin(x) - 2*sqrt(1 - x**2) + C", -2 * x * asin(x) - 2 * sqrt(1 - x**2) + C),
    # ^ is power, with power precedence (Python's ^ would bind looser than +).
    ("x^2/2", x**2 / 2),
    ("x^2+1", x**2 + 1),
    ("2*x^3", 2 * x**3),
    ("x^-2", x**-2),
    # aliases map onto SymPy's canonical functions
    ("arctan(x)", atan(x)),
    ("arcsin(x)", asin(x)),
    ("arsinh(x) + arcsinh(x)", 2 * asinh(x)),
    ("ln(x)", log(x)),
    ("abs(x)", Abs(x)),
    # e and E are Euler's number when x is the variable
    ("e**x", exp(x)),
    ("E**x + exp(1)", exp(x) + E),
    # two-argument log and fixed bases
    ("log(x, 2)", log(x) / log(2)),
    ("log(8, 2)", sympy.Integer(3)),
    ("log10(x)", log(x) / log(10)),
    # exact floats
    ("0.5*x**2", x**2 / 2),
    ("0.1", Rational(1, 10)),
    ("1e-3*x", x / 1000),
    ("2.5e2", sympy.Integer(250)),
    ("1_000*x", 1000 * x),
    # complex literal becomes I
    ("2j*x", 2 * I * x),
    # constants
    ("pi*x + I", pi * x + I),
    ("oo", oo),
    ("zoo", zoo),
    ("nan", nan),
    ("1/0", zoo),
    # integration constants and stray symbols are plain Symbols
    ("C_1 + c1 + K + C0 + C9", sum(Symbol(n) for n in ["C_1", "c1", "K", "C0", "C9"])),
    ("x**2/2 + y", x**2 / 2 + y),
    ("x + const", x + Symbol("const")),
    # "F(x) = ..." and "y = ..." keep the right-hand side
    ("F(x) = x**2", x**2),
    ("y = sin(x)", sin(x)),
    # Unicode the models like to emit
    ("π*x", pi * x),
    ("x − 1", x - 1),
    ("2×x", 2 * x),
    # sizes the checker must accept
    ("x**100", x**100),
    ("x**(5/2)", x ** Rational(5, 2)),
    ("10**(-30)", Rational(1, 10**30)),
    ("sqrt(2)*sqrt(3)", sqrt(6)),
    ("x**x**x", x ** (x**x)),
    ("--x", x),
    ("(x)", x),
    ("  x  ", x),
    ("sin(x,)", sin(x)),
    ("Heaviside(x) + sign(x)", sympy.Heaviside(x) + sympy.sign(x)),
    ("erf(x) + Ei(x) + Si(x) + fresnels(x)",
     sympy.erf(x) + sympy.Ei(x) + sympy.Si(x) + sympy.fresnels(x)),
    ("uppergamma(2, x)", sympy.uppergamma(2, x, evaluate=False)),
    ("polylog(2, x)", sympy.polylog(2, x)),
    ("LambertW(x)", sympy.LambertW(x)),
    ("elliptic_f(x, 1/2)", sympy.elliptic_f(x, Rational(1, 2))),
    ("atan2(1, x)", sympy.atan2(1, x)),
    ("factorial(5) + gamma(1/2)", 120 + sqrt(pi)),
    ("root(8, 3) + cbrt(27)", sympy.Integer(5)),
    # SymPy's own spellings of exact numbers (its python printer writes them)
    ("S(5)/3*x", Rational(5, 3) * x),
    ("Rational(1, 2)*x + Integer(3)", x / 2 + 3),
    ("varphi", sympy.Symbol("phi")),
]


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[v[0] for v in VALID])
def test_valid(text, expected):
    assert parse_sympy_text(text) == expected


@pytest.mark.parametrize(("text", "symbol", "expected"), [
    ("t**3/3 + C", "t", t**3 / 3 + C),
    ("sin(X)*X", "X", sin(X) * X),
    ("G(t) = t**2", "t", t**2),
    # When e is the variable, e is a plain symbol and E stays Euler's number.
    ("e**2 + E", "e", Symbol("e") ** 2 + E),
    # x is not special when the variable is t: it is a stray symbol.
    ("t + x", "t", t + x),
])
def test_other_variables(text, symbol, expected):
    assert parse_sympy_text(text, symbol) == expected


def test_returns_expr_for_numbers():
    # SymPy's One, not the Python int 1 (which would also compare == 1).
    assert parse_sympy_text("1") is sympy.S.One


def test_symbols_come_back_plain():
    result = parse_sympy_text("x**2/2 + C + y")
    assert result.free_symbols == {x, C, y}
    assert all(s.assumptions0 == Symbol("q").assumptions0 for s in result.free_symbols)


def test_evaluation_reads_symbols_as_real():
    # Built with real symbols (cheap assumption queries), returned plain: the
    # checker reads the variable as real, so sqrt(x**2) is |x|.
    assert parse_sympy_text("sqrt(x**2)") == Abs(x)


def test_sympy_cache_is_not_polluted():
    parse_sympy_text("sin(-x) + sqrt(x**2) + Abs(-2*x)")
    assert sin(-x) == -sin(x)
    assert sqrt(x**2) != Abs(x)
    assert Abs(-2 * x) == 2 * Abs(x)


def test_function_of_symbol_is_unevaluated():
    # Functions of symbolic arguments are built unevaluated (see _apply), and
    # the checker's rebinding to a real variable keeps them so
    # (tests/test_rebinding.py); xreplace or doit() evaluates them.
    result = parse_sympy_text("sin(-x) + cos(-x)")
    assert result == sin(-x, evaluate=False) + cos(-x, evaluate=False)
    xr = Symbol("x", real=True)
    assert result.xreplace({x: xr}) == -sin(xr) + cos(xr)
    assert result.doit() == -sin(x) + cos(x)


@pytest.mark.parametrize("expr", [
    x**2 / 2, -cos(x), exp(x) * (x - 1), log(Abs(x)), atan(x) / 2,
    x * log(x) - x, sqrt(1 - x**2) * x / 2 + asin(x) / 2,
    -1 / (x + 1), sympy.tan(x) - x, exp(-x**2) * sqrt(pi), x**Rational(3, 2) * 2 / 3,
    sympy.sinh(x) ** 2 / 2, sympy.erf(x) * sqrt(pi) / 2, log(x**2 + 1) / 2,
])
def test_round_trip_of_sympy_str(expr):
    assert parse_sympy_text(str(expr)) == expr


# --- hostile answers ------------------------------------------------------

HOSTILE = [
    ("__import__('os').system('ls')", "forbidden_name"),
    ("().__class__.__bases__[0]", "forbidden_name"),
    ("x.__class__", "forbidden_name"),
    ("lambda: 1", "forbidden_syntax"),
    ("eval('1')", "forbidden_name"),
    ("open('f')", "forbidden_name"),
    ('"abc"', "forbidden_string"),
    ("b'abc'", "forbidden_string"),
    ("[x for x in ()]", "forbidden_syntax"),
    ("9**9**9", "exponent_too_large"),
    ("2**10**6", "exponent_too_large"),
    ("(10**10)**(10**10)", "exponent_too_large"),
    ("factorial(10**10)", "number_too_large"),
    ("x if x else 1", "forbidden_syntax"),
    ('f"{x}"', "forbidden_string"),
    ("x.subs", "forbidden_attribute"),
    ("x.subs(x, 1)", "forbidden_attribute"),
    ("getattr(x,'a')", "forbidden_name"),
    ("Symbol('x')", "forbidden_name"),
    ("sympify('x')", "forbidden_name"),
    ("S.One", "forbidden_attribute"),
    ("x\x00", "bad_character"),
    ("x; import os", "syntax_error"),
    ("exec", "forbidden_name"),
    ("globals()", "forbidden_name"),
    ("vars()", "forbidden_name"),
    ("_", "forbidden_name"),
    ("x == 1", "forbidden_syntax"),
    ("x and y", "forbidden_syntax"),
    ("(x := 1)", "forbidden_syntax"),
    ("x[0]", "forbidden_syntax"),
    ("[x]", "forbidden_syntax"),
    ("(x, 1)", "forbidden_syntax"),
    ("{x: 1}", "forbidden_syntax"),
    ("*x", "syntax_error"),
    ("sin(*x)", "forbidden_syntax"),
    ("sin(x=1)", "forbidden_keyword_arg"),
    ("x % 2", "forbidden_syntax"),
    ("x // 2", "forbidden_syntax"),
    ("x @ x", "forbidden_syntax"),
    ("~x", "forbidden_syntax"),
    ("True", "bad_constant"),
    ("None", "bad_constant"),
    ("...", "bad_constant"),
    ("2x", "syntax_error"),
    ("x sin(x)", "syntax_error"),
    ("3sin(x)", "syntax_error"),
    ("y(x)", "not_callable"),
    ("x(1)", "not_callable"),
    ("(x)(1)", "not_callable"),
    ("2(x)", "not_callable"),
    ("foo_bar(x)", "not_callable"),
    ("S(x)", "not_callable"),          # numbers only: never sympify
    ("Rational(x, 2)", "not_callable"),
    ("sin", "function_as_value"),
    ("sin(x, 1)", "bad_arity"),
    ("longname", "unknown_name"),
    ("x # hidden", "forbidden_syntax"),
    ("x \\\n + 1", "forbidden_syntax"),
    ("x + é", "non_ascii"),
    ("ｅｘｅｃ", "non_ascii"),
    ("", "empty"),
    ("   ", "empty"),
    ("F(y) = x", "syntax_error"),
]


@pytest.mark.parametrize(("text", "reason"), HOSTILE, ids=[repr(h[0])[:40] for h in HOSTILE])
def test_hostile_is_refused(text, reason):
    assert fails(text) == reason


def test_non_text_is_refused():
    with pytest.raises(ParseFailure) as info:
        parse_sympy_text(b"x")  # type: ignore[arg-type]
    assert info.value.reason == "not_text"


@pytest.mark.parametrize("ch", ["\x00", "\x01", "\x1b", "\x7f", "\x0c"])
def test_control_characters(ch):
    assert fails(f"x{ch}+1") == "bad_character"


def test_tabs_and_newlines_inside_brackets_are_whitespace():
    assert parse_sympy_text("(x\t+\n1)") == x + 1


def test_payloads_never_run_code(monkeypatch, tmp_path):
    """Nothing reachable from the parser may execute code or touch files."""
    monkeypatch.chdir(tmp_path)

    def boom(*args, **kwargs):
        raise AssertionError("code execution reached")

    monkeypatch.setattr(os, "system", boom)
    monkeypatch.setattr(os, "popen", boom)
    monkeypatch.setattr(subprocess, "Popen", boom)
    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    real_compile = builtins.compile

    def parse_only_compile(source, filename, mode, flags=0, *args, **kwargs):
        # ast.parse is compile(..., PyCF_ONLY_AST): a tree, never code objects.
        if not flags & ast.PyCF_ONLY_AST:
            boom()
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", parse_only_compile)
    monkeypatch.setattr(builtins, "open", boom)
    payloads = [h[0] for h in HOSTILE] + [
        "__import__('os').system('touch pwned')",
        "(lambda: __import__('os').system('touch pwned'))()",
        "sympify(\"__import__('os').system('touch pwned')\")",
        "[c for c in ().__class__.__base__.__subclasses__()]",
        "open('pwned', 'w').write('x')",
    ]
    for text in payloads:
        with pytest.raises(ParseFailure):
            parse_sympy_text(text)
    # Valid answers go through the same machinery with the traps set.
    for text, expected in VALID[:12]:
        assert parse_sympy_text(text) == expected
    assert list(tmp_path.iterdir()) == []


# --- resource limits -------------------------------------------------------

def test_too_long():
    assert fails("x+" * 2500 + "x") == "too_long"
    assert fails("x" * 101, max_chars=100) == "too_long"


def test_ten_thousand_parentheses():
    text = "(" * 10_000 + "x" + ")" * 10_000
    assert fails(text) == "too_long"
    # Even when the caller allows the length, the bracket scan refuses it
    # before CPython's parser sees it.
    assert fails(text, max_chars=50_000) == "too_deep"


def test_deep_nesting():
    assert fails("(" * 61 + "x" + ")" * 61) == "too_deep"
    assert parse_sympy_text("(" * 59 + "x" + ")" * 59) == x
    assert fails("-" * 100 + "x") == "too_deep"
    assert fails("x" + "**x" * 70) == "too_deep"
    assert fails("sin(" * 70 + "x" + ")" * 70) == "too_deep"


def test_long_flat_sums_are_not_deep():
    text = "+".join(f"x**{k % 90}/{k + 1}" for k in range(150))
    assert len(text) < 2000
    assert parse_sympy_text(text) == sum(x ** (k % 90) / (k + 1) for k in range(150))


def test_too_many_nodes():
    assert fails("x+" * 300 + "x", max_nodes=100) == "too_many_nodes"


@pytest.mark.parametrize(("text", "reason"), [
    ("1" * 101, "number_too_large"),
    ("1" * 101 + ".5", "number_too_large"),
    ("1e999999999", "number_too_large"),
    ("1e1001", "number_too_large"),
    ("10**999*10**999", "number_too_large"),
    ("(10**99*x)**11", "number_too_large"),
    ("sqrt(10**999 + 1)", "number_too_large"),
    ("factorial(1000)", "number_too_large"),
    ("gamma(10**10)", "number_too_large"),
    ("uppergamma(1000, x)", "number_too_large"),
    ("zeta(1000)", "number_too_large"),
    ("sinh(10**6)", "number_too_large"),
    ("x**5001", "exponent_too_large"),
    ("y**101", "exponent_too_large"),
    ("(x + C)**101", "exponent_too_large"),
    ("(x+I)**11", "exponent_too_large"),
    ("(1+sqrt(-2)*x)**20", "exponent_too_large"),
    ("(x**100)**100", "exponent_too_large"),
    ("x**3000*x**3000", "exponent_too_large"),
    ("2**1001", "exponent_too_large"),
    ("exp(x*10**6)", "exponent_too_large"),
    ("10**1001", "exponent_too_large"),
    ("exp(x*10**6)", "exponent_too_large"),
    ("E**(10**6*log(10))", "exponent_too_large"),
    ("exp(1000*log(999))", "too_deep"),
    ("log(log(log(2)))", "too_deep"),
    ("sinh(sinh(sinh(sinh(sinh(2)))))", "too_deep"),
    ("2**log(3)", "too_deep"),
    ("x + oo", "non_finite"),
    ("sin(oo)", "non_finite"),
    ("oo*sin(x)", "non_finite"),
    ("elliptic_pi(2, 3)", "slow_constant"),
    ("Heaviside(I)", "math_error"),
])
def test_resource_attacks(text, reason):
    assert fails(text) == reason


@pytest.mark.parametrize(("text", "expected"), [
    ("10**999", sympy.Integer(10) ** 999),
    ("1e999", sympy.Integer(10) ** 999),
    ("1e-400", Rational(1, 10**400)),
    ("1e308*x", sympy.Integer(10) ** 308 * x),
    ("factorial(400)", sympy.factorial(400)),
    ("exp(1000)", exp(1000)),
    ("log(10**50)", log(10**50)),
    ("log(2) + atan(sqrt(3))", log(2) + pi / 3),
    ("sqrt(log(2))", sqrt(log(2))),
    ("(x+1)**100/100", (x + 1) ** 100 / 100),
    ("(x+I)**10", (x + I) ** 10),
    # Powers of the variable are cheap however large the exponent looks.
    ("x**2024/2024", x**2024 / 2024),
    ("-(1 - x)**2015/2015", -(1 - x) ** 2015 / 2015),
    ("(x**50)**50", x**2500),
    ("exp(6048*x)", exp(6048 * x)),
])
def test_large_but_allowed(text, expected):
    assert parse_sympy_text(text) == expected


def _fill(unit, sep="+", n=2000):
    parts, size, k = [], 0, 0
    while size + len(unit(k)) + 1 <= n:
        parts.append(unit(k))
        size += len(unit(k)) + 1
        k += 1
    return sep.join(parts)


# 2000-character inputs built to maximise SymPy's work within the limits.
WORST_CASES = {
    "radicals": _fill(lambda k: f"sqrt(10**99+{k})"),
    "radical product": _fill(lambda k: f"sqrt(10**99+{k})", "*"),
    "fractions": _fill(lambda k: f"1/(10**99+{k})"),
    "exp of log": _fill(lambda k: f"exp({k + 1}*log({997 - k}))"),
    "uppergamma": _fill(lambda k: f"uppergamma(-39/2,x+{k})"),
    "trig of pi": _fill(lambda k: f"tan(pi/{k + 13})"),
    "elliptic constants": _fill(lambda k: f"elliptic_pi({k}, {k + 1}*pi, {k + 2})"),
    "sinh constants": _fill(lambda k: f"sinh({1000 - k})"),
    "Abs of big powers": _fill(lambda k: f"Abs(exp(y**100+{k}))"),
    "nested log": "log(" * 50 + "2" + ")" * 50,
    "big symbolic powers": _fill(lambda k: f"acsch(sech(log(y)**{100 - k}))"),
    "complex powers": _fill(lambda k: f"log(sinh((x+I)**{10 - k % 10}))"),
    "complex composite": _fill(
        lambda k: f"sqrt(cosh(-3.14159**((x+I)**10)*Li(1000))*E/asin(y+(x+I)**{k % 10}-2j))"),
    "pow with symbolic exponent": _fill(lambda k: f"(1+I)**(tanh((x+I)**{50 + k}))"),
}


# What each worst case ends in: the refusal's reason, or (accepted) the
# free symbols of the expression (a constant has none).
WORST_CASE_OUTCOMES = {
    "radicals": "number_too_large",
    "radical product": "number_too_large",
    "fractions": "number_too_large",
    "exp of log": "too_deep",
    "uppergamma": {x},
    "trig of pi": set(),
    "elliptic constants": "slow_constant",
    "sinh constants": set(),
    "Abs of big powers": {y},
    "nested log": "too_deep",
    "big symbolic powers": {y},
    "complex powers": {x},
    "complex composite": {x, y},
    "pow with symbolic exponent": "exponent_too_large",
}


def test_worst_case_table_is_complete():
    assert set(WORST_CASE_OUTCOMES) == set(WORST_CASES)


@pytest.mark.parametrize("name", list(WORST_CASES))
def test_worst_cases_end_in_the_expected_outcome(name):
    # A hang here would hang the suite; the assertion is about the outcome.
    text, outcome = WORST_CASES[name], WORST_CASE_OUTCOMES[name]
    assert len(text) <= 2000
    if isinstance(outcome, str):
        assert fails(text) == outcome
    else:
        result = parse_sympy_text(text)
        assert result.free_symbols == outcome
        assert result.is_number is (not outcome)


# --- contract --------------------------------------------------------------

def test_caller_timeouts_pass_through(monkeypatch):
    """A signal-driven time limit firing inside SymPy is the caller's."""
    import rewards.check.parse.sympy_text.builder as module

    def fire(*args, **kwargs):
        raise StepTimeout("deadline")

    monkeypatch.setattr(module, "_check_built", fire)
    with pytest.raises(StepTimeout):
        parse_sympy_text("x + 1")


@pytest.mark.parametrize("symbol", ["", "sin", "__x", "1x", "x y", 3])
def test_bad_symbol_argument_is_a_programming_error(symbol):
    with pytest.raises(ValueError):
        parse_sympy_text("x", symbol)  # type: ignore[arg-type]


def _assert_accepted_text_means_itself(text: str, result: sympy.Expr) -> None:
    # The allowlist admits known functions only, and names are never
    # invented: every symbol of an accepted answer is spelled in its text.
    assert not result.atoms(AppliedUndef), (text, result)
    assert all(s.name in text for s in result.free_symbols), (text, result)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=40))
def test_random_ascii_only_raises_parse_failure(text):
    try:
        result = parse_sympy_text(text)
    except ParseFailure as exc:
        assert exc.reason in REASONS
    else:
        _assert_accepted_text_means_itself(text, result)


_TOKENS = ["x", "y", "2", "1000", "0.5", "pi", "E", "I", "oo", "(", ")", "+", "-", "*", "/",
           "**", "^", ",", "sin(", "exp(", "log(", "sqrt(", "Abs(", "gamma(", "sinh(",
           "uppergamma(", "polylog(", "10**99", "x**99", "."]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
def test_random_token_soup_only_raises_parse_failure(tokens):
    text = "".join(tokens)
    try:
        result = parse_sympy_text(text)
    except ParseFailure as exc:
        assert exc.reason in REASONS
    else:
        _assert_accepted_text_means_itself(text, result)


# --- Piecewise, Unicode, huge constants (answer forms real models write) -------

def test_piecewise_with_comparisons_as_conditions():
    expr = parse_sympy_text("Piecewise((x**2/2, x >= 0), (-x**2/2, True))")
    assert isinstance(expr, sympy.Piecewise)
    assert expr.subs(x, 2) == 2 and expr.subs(x, -2) == -2
    chained = parse_sympy_text("Piecewise((1, (0 < x) & (x < 1)), (2, x >= 1), (0, True))")
    assert [chained.subs(x, v) for v in (Rational(1, 2), 3, -1)] == [1, 2, 0]
    assert parse_sympy_text("Piecewise((x, 0 < x < 1), (0, True))").subs(x, 2) == 0


@pytest.mark.parametrize(("text", "reason"), [
    ("x > 0", "forbidden_syntax"),
    ("x**2/2 + (x > 0)", "forbidden_syntax"),
    ("Piecewise((x, y > 0), (0, True))", "bad_condition"),
    ("Piecewise((x, x + 1), (0, True))", "bad_condition"),
    ("Piecewise((x, __import__('os') == 0), (0, True))", "forbidden_name"),
    ("Piecewise(x, True)", "bad_arity"),
    ("Piecewise(" + ", ".join(["(x, x > 0)"] * 13) + ")", "bad_arity"),
])
def test_relations_only_inside_piecewise_conditions(text, reason):
    assert fails(text) == reason


@pytest.mark.parametrize(("text", "expected"), [
    ("√x", sqrt(x)),
    ("√(x+1)", sqrt(x + 1)),
    ("∛x", x ** Rational(1, 3)),
    ("x²/2 − 3·x", x**2 / 2 - 3 * x),
    ("x⁻¹", 1 / x),
    ("x¹⁰", x**10),
    ("2×x ÷ 4", x / 2),
])
def test_unicode_minus_times_roots_superscripts(text, expected):
    assert parse_sympy_text(text) == expected


def test_huge_additive_constant_is_dropped_from_answers_only():
    notes: list[str] = []
    assert parse_sympy_text("x**3/3 + 10**(10**10)", notes=notes) == x**3 / 3
    assert notes == ["huge_constant_dropped"]
    assert fails("10**(10**10)") == "exponent_too_large"              # nothing else left
    assert fails("x**3/3 + 10**(10**10)*x") == "exponent_too_large"   # not additive
    assert fails("x**3/3 + 1e999999999") == "number_too_large"        # a literal
    with pytest.raises(ParseFailure):
        parse_sympy_text("x**3/3 + 10**(10**10)", answer=False)


def test_abs_bars_are_a_syntax_error_not_a_content_refusal():
    # ``|x|`` is LaTeX: auto mode reads such text as LaTeX next.
    assert fails("log(|x|)") == "syntax_error"
    assert fails("__import__('os') | x") == "forbidden_name"      # content wins


# Integrands are trusted more than answers: exp of a function-free constant
# (what SymPy's expand makes of a logistic step or bump at 13.7) is read in
# an integrand, and stays refused in an answer; exp(c log a) stays small in both.
EXPANDED_INTEGRANDS = [
    "2*x + 100*exp(1370)/(exp(100*x) + 2*exp(1370) + exp(2740)*exp(-100*x))",
    "-200*x*exp(-18769)*exp(2740*x)*exp(-100*x**2) + 2740*exp(-18769)*exp(2740*x)*exp(-100*x**2)"
    " + cos(x)",
    "exp(137/10)**100*x",
    "E**1370*x",
    "exp(137/10)*x*exp(x)",
]


@pytest.mark.parametrize("text", EXPANDED_INTEGRANDS)
def test_integrand_profile_reads_large_constant_exponents(text):
    from rewards.check.parse.read import parse_integrand
    assert parse_integrand(text, "sympy", "x").has(sympy.exp)


@pytest.mark.parametrize("text", EXPANDED_INTEGRANDS[:4])
def test_answers_keep_the_constant_exponent_bound(text):
    with pytest.raises(ParseFailure) as info:
        parse_sympy_text(text, "x")
    assert info.value.reason in ("number_too_large", "exponent_too_large")


@pytest.mark.parametrize("text", EXPANDED_INTEGRANDS[:4])
def test_a_node_passed_as_an_integrand_is_tested_again_in_an_answer(text):
    # The nodes that passed the guards are kept across parses, per set of
    # bounds: the integrand's looser bound must not let an answer through.
    from rewards.check.parse.read import parse_integrand
    parse_integrand(text, "sympy", "x")
    with pytest.raises(ParseFailure):
        parse_sympy_text(text, "x")


@pytest.mark.parametrize("text", ["10**600*10**600*x", "(10**600*x + 1)*10**500", "exp(1370)*x",
                                  "(x + 10**700)*(x + 10**700)*(x + 10**700)"])
def test_a_node_refused_once_is_refused_again(text):
    reasons = set()
    for _ in range(2):
        with pytest.raises(ParseFailure) as info:
            parse_sympy_text(text, "x")
        reasons.add(info.value.reason)
    assert len(reasons) == 1


@pytest.mark.parametrize("text", ["exp(1370*log(2))*x",
                                  # past the integrand's coefficient bound (rewards/check/limits.py)
                                  f"exp({10 * INTEGRAND.exponent_coefficient})*x",
                                  "sinh(1370)*x", "exp(exp(137/10))*x"])
def test_integrand_profile_keeps_the_other_guards(text):
    with pytest.raises(ParseFailure):
        parse_sympy_text(text, "x", answer=False)


def test_an_expanded_logistic_integrand_is_judged():
    from rewards import Verdict, check_antiderivative
    f = EXPANDED_INTEGRANDS[0]
    right = check_antiderivative("x**2 + 1/(1+exp(-100*(x-137/10)))", f, answer_syntax="sympy")
    assert right.verdict is Verdict.CORRECT, right.detail
    wrong = check_antiderivative("x**2 + 1/(1+exp(-100*(x-137/10))) + x/10**9", f,
                                 answer_syntax="sympy")
    assert wrong.verdict is Verdict.WRONG


def test_a_call_or_operation_built_before_is_reused_under_the_same_bounds(monkeypatch):
    # A group's answers share terms: their text is built once, and is the
    # same expression after as built afresh (the table cleared).
    from rewards.check.parse.sympy_text import builder

    built: list[str] = []
    plain_build = builder._Builder._build

    def counting(self, node):
        if isinstance(node, ast.Call):
            built.append(ast.unparse(node))
        return plain_build(self, node)

    monkeypatch.setattr(builder._Builder, "_build", counting)
    builder._BUILT.clear()
    parse_sympy_text("46475*log(3*x + 2) - 3025/(5*x + 3)")
    second = parse_sympy_text("92950*log(3*x + 2) + x")
    assert built == ["log(3 * x + 2)"]
    builder._BUILT.clear()
    assert parse_sympy_text("92950*log(3*x + 2) + x") == second
    assert built == ["log(3 * x + 2)"] * 2


def test_a_term_built_under_roomier_bounds_is_still_refused_in_an_answer():
    # An integrand's bounds are roomier than an answer's: what one built is
    # not handed to the other.
    from rewards.check.errors import ParseFailure
    from rewards.check.limits import INTEGRAND

    text = "sin(x + 7**2000)"
    assert parse_sympy_text(text, limits=INTEGRAND, answer=False).has(sympy.sin)
    with pytest.raises(ParseFailure):
        parse_sympy_text(text)


def test_a_refused_term_is_refused_again():
    from rewards.check.errors import ParseFailure

    for _ in range(2):
        with pytest.raises(ParseFailure):
            parse_sympy_text("x + sin(x + 7**2000)")
