"""The answer rebound to a real variable (prepare.real.bind_real): the tree the
parser built over real symbols, not evaluated a second time."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from rewards import Verdict, check_antiderivative
from rewards.check.parse.sympy_text import parse_sympy_text
from rewards.check.parse.sympy_text.builder import _to_plain
from rewards.check.prepare.real import bind_real

x, a, C = sp.symbols("x a C")
xr, ar = sp.Symbol("x", real=True), sp.Symbol("a", real=True)

TEXTS = [
    "x**2/2 + a*sin(x)", "log(Abs(x)) - sqrt(x**2 + a)", "sin(-x) + cos(-x)",
    "3*log(Abs(4*x**2 + 1))/4 - 3*x*atan(2*x)", "-cot(x - pi/4) + exp(a*x)/a",
    "Piecewise((x, x > 0), (-x, True)) + C", "I*(Abs(csch(x))*csch(x)**4)",
    "atanh(-I*tanh(x)/sech(x))/2 + (x**2)**(1/3)",
]


@pytest.mark.parametrize("text", TEXTS)
def test_gives_back_the_tree_the_parser_built(text):
    # The parser builds over real symbols, then swaps in plain ones without
    # evaluating; rebinding swaps back the same way.
    parsed = parse_sympy_text(text)
    bound = bind_real(parsed, ["x", "a"])
    assert _to_plain(bound) == parsed
    named = {s for s in bound.free_symbols if s.name in ("x", "a")}
    assert named and all(s.is_real for s in named)
    assert all(not s.is_real for s in bound.free_symbols - named)  # C stays as it was


@pytest.mark.parametrize("text", TEXTS)
def test_the_same_function_as_xreplace_gives(text):
    parsed = parse_sympy_text(text)
    bound = bind_real(parsed, ["x", "a"])
    evaluated = parsed.xreplace({x: xr, a: ar})
    for point in ("0.37", "1.9", "-2.3"):
        values = {xr: sp.Float(point, 30), ar: sp.Float("0.71", 30), C: 0}
        got, want = complex(bound.evalf(30, subs=values)), complex(evaluated.evalf(30, subs=values))
        assert mpmath.almosteq(got, want, rel_eps=1e-20, abs_eps=1e-20), (point, got, want)


def test_functions_the_parser_left_unevaluated_stay_so():
    # _apply builds a function of a symbol unevaluated (its evaluation can
    # run for minutes); rebinding does not evaluate it either.
    bound = bind_real(parse_sympy_text("Abs(4*x**2 + 1) + sin(-x)"), ["x"])
    assert bound.has(sp.Abs) and sp.sin(-xr, evaluate=False) in bound.args
    assert parse_sympy_text("Abs(4*x**2 + 1)").xreplace({x: xr}) == 4 * xr**2 + 1


def test_a_subtree_shared_by_two_answers_is_one_node():
    # A group's answers share terms: rebound once, the same node after, with
    # the SymPy assumptions kept on it.
    first = bind_real(parse_sympy_text("exp(x)*sin(x)/2 + x"), ["x"])
    second = bind_real(parse_sympy_text("2*x - exp(x)*sin(x)/2"), ["x"])
    shared = [t for t in sp.preorder_traversal(first) if isinstance(t, sp.sin)]
    again = [t for t in sp.preorder_traversal(second) if isinstance(t, sp.sin)]
    assert shared and again and shared[0] is again[0]


@pytest.mark.parametrize(("answer", "integrand", "verdict"), [
    ("-cos(-x)", "sin(x)", Verdict.CORRECT),
    ("log(Abs(4*x**2 + 1))", "8*x/(4*x**2 + 1)", Verdict.CORRECT),
    ("Abs(4*x**2 + 1)", "8*x", Verdict.CORRECT),
    ("-cot(x - pi/4)", "sec(x + pi/4)**2", Verdict.CORRECT),
    ("Abs(4*x**2 + 1)", "8*x + 1", Verdict.WRONG),
    ("-cos(-x)", "-sin(x)", Verdict.WRONG),
])
def test_answers_with_unevaluated_functions_are_judged(answer, integrand, verdict):
    result = check_antiderivative(answer, integrand, symbol="x", input_kind="sympy")
    assert result.verdict is verdict, result.reason
