"""The screen's double-precision first look (rewards/check/evidence/first_look.py)
and the single-valued rule that spares a wrong answer the real-line fallback
(``may_branch``). Doubles only choose where to test, and whether the proof
goes before the screen: every verdict and reason is the one the full
30/60-digit pass gives, with and without SymEngine."""
from __future__ import annotations

import pytest
import sympy as sp

from rewards.check.evidence import first_look
from rewards.check.function_facts import may_branch
from rewards.check.pipeline import check_antiderivative

x, a = sp.symbols("x a")


def _screen(result) -> dict:
    return next(s.data for s in result.stages if s.stage == "numeric_screen")


@pytest.fixture
def without_symengine(monkeypatch):
    monkeypatch.setattr(first_look, "se", None)
    first_look._double_function.cache_clear()
    yield
    first_look._double_function.cache_clear()


# (answer, integrand): wrong answers as a policy writes them, each wrong
# everywhere or only somewhere, and on the real line as well as off it.
WRONG = [
    ("2*log(x**2 + 1)", "2*x/(x**2 + 1)"),           # twice
    ("-x**3/3 - x", "x**2 + 1"),                      # negated
    ("exp(x)*sin(x) + x", "exp(x)*(sin(x) + cos(x))"),  # plus x
    ("atan(x)/2", "1/(x**2 + 1)"),
    ("sqrt(x**2 + 1) + 1/(x - 2)", "x/sqrt(x**2 + 1)"),
    ("a*x**2", "a*x"),                                 # a parameter
    ("log(abs(x)) + x", "1/x"),                        # the real line (Abs)
    ("x**2/2 + tanh(200*(x - 3/10))/200", "x"),        # a steep step
    ("x**2/2 + 10**(-30)*x", "x"),                     # below every double
    ("sqrt(x - 1)*sqrt(x + 1)", "x/sqrt(x**2 - 1)"),   # right for x > 1 only
]
CORRECT = [
    ("log(x**2 + 1)", "2*x/(x**2 + 1)"),
    ("atan(x)", "1/(x**2 + 1)"),
    ("exp(x)*sin(x)", "exp(x)*(sin(x) + cos(x))"),
    ("log(abs(x))", "1/x"),
    ("a*x**2/2", "a*x"),
    # Single-valued, but 1 - tanh(z)^2 cancels to nothing at the far-out
    # points (|z| ~ 300): only the real line can tell.
    ("x - tanh(x)", "(1/(1 - tanh(x)**2) - 1)*sech(x)**2"),
    ("sin(x)**2", "sin(2*x)"),                         # proved before the screen
    ("-cos(2*x)/4", "sin(x)*cos(x)"),
]


@pytest.mark.parametrize(("answer", "integrand"), WRONG + CORRECT,
                         ids=[f"{i}:{ans}" for i, (ans, _) in enumerate(WRONG + CORRECT)])
def test_same_verdict_and_reason_with_and_without_the_first_look(answer, integrand,
                                                                  monkeypatch):
    with_look = check_antiderivative(answer, integrand, symbol="x", input_kind="sympy")
    monkeypatch.setattr(first_look, "se", None)
    first_look._double_function.cache_clear()
    try:
        without = check_antiderivative(answer, integrand, symbol="x", input_kind="sympy")
    finally:
        first_look._double_function.cache_clear()
    assert (with_look.verdict, with_look.reason) == (without.verdict, without.reason)
    assert with_look.verdict.value == ("WRONG" if (answer, integrand) in WRONG else "CORRECT")


def test_a_wrong_answer_is_rejected_on_the_first_point_it_names():
    result = check_antiderivative("2*log(x**2 + 1)", "2*x/(x**2 + 1)", symbol="x",
                                  input_kind="sympy")
    screen = _screen(result)
    assert (result.verdict.value, result.reason) == ("WRONG", "numeric_mismatch")
    assert screen.get("first_look") == 1
    assert screen["levels"] == [30, 60]


def test_without_symengine_there_is_no_first_look(without_symengine):
    result = check_antiderivative("2*log(x**2 + 1)", "2*x/(x**2 + 1)", symbol="x",
                                  input_kind="sympy")
    assert result.verdict.value == "WRONG"
    assert "first_look" not in _screen(result)
    assert first_look.suspects(x, x + 1, (x,), [(0.5 + 0.1j, False)], [], True) == []


def test_doubles_never_reject_alone():
    # F' = (x + 10^8)^2 - 10^16 - 2*10^8 x is x^2 exactly; in doubles the x^2
    # is lost next to 10^16, so every point looks wrong to the first look.
    derivative = sp.Add((x + 10**8) ** 2, -10**16, -2 * 10**8 * x, evaluate=False)
    points = [(complex(0.3, 0.2), False), (complex(-0.7, 0.4), False)]
    assert first_look.suspects(derivative, x**2, (x,), points, [], True) != []
    result = check_antiderivative("(x + 10**8)**3/3 - 10**16*x - 10**8*x**2", "x**2",
                                  symbol="x", input_kind="sympy")
    assert result.verdict.value == "CORRECT"


def test_the_correct_answer_names_no_point():
    points = [(complex(0.3, 0.2), False), (complex(-1.5, 0.9), False), (complex(2.0, 0.0), True)]
    derivative = sp.diff(sp.atan(x) + sp.log(x**2 + 1), x)
    assert first_look.suspects(derivative, 1 / (x**2 + 1) + 2 * x / (x**2 + 1), (x,), points,
                               [], True) == []
    ranked = first_look.suspects(2 * derivative, derivative, (x,), points, [], True)
    assert sorted(ranked) == [0, 1, 2]


def test_parameters_are_passed_in_order():
    points = [(complex(0.5, 0.0), True)]
    assert first_look.suspects(a * x, a * x, (x, a), points, [3.0], True) == []
    assert first_look.suspects(a * x, 3 * x, (x, a), points, [2.0], True) == [0]


def test_off_the_real_integrand_is_skipped_on_the_line():
    # sqrt(x - 1) at x = 0.5 is imaginary: no antiderivative is owed there.
    points = [(complex(0.5, 0.0), True)]
    assert first_look.suspects(x, sp.sqrt(x - 1), (x,), points, [], True) == []
    assert first_look.suspects(x, sp.sqrt(x - 1), (x,), points, [], False) == [0]


@pytest.mark.parametrize("expr", [
    # SymEngine would compute 3**(10**8) in C (and Mul would in Python).
    sp.Mul(sp.Pow(3, 10**8, evaluate=False), x, evaluate=False),
    sp.Dummy("t") * x,
    x + sp.Symbol("y"),                       # a symbol that is not an argument
])
def test_what_the_first_look_stays_out_of(expr):
    assert first_look._double_function(expr, (x,)) is None
    assert first_look.suspects(expr, x, (x,), [(complex(0.5, 0.1), False)], [], True) == []


@pytest.mark.parametrize(("expr", "branches"), [
    (x**3 / (x**2 + 1), False),
    (sp.exp(x) * sp.sin(x) ** 2 - sp.tanh(x**2) ** -3, False),
    (sp.sqrt(2) * x, False),           # a constant root is a number
    (sp.sqrt(x), True),
    (sp.log(x), True),
    (sp.atan(x), True),
    (sp.exp(sp.sqrt(x)), True),       # inside a single-valued function
    (sp.Ei(x), True),                  # special functions: not claimed
    (2**x, True),                      # a symbolic exponent: not claimed
    (sp.Abs(x), True),
])
def test_may_branch(expr, branches):
    assert may_branch(expr) is branches


def _stage_names(result) -> list[str]:
    return [s.stage for s in result.stages]


def test_agreeing_doubles_put_the_proof_before_the_screen():
    result = check_antiderivative("sin(x)**2", "sin(2*x)", symbol="x", input_kind="sympy")
    names = _stage_names(result)
    assert (result.verdict.value, result.reason) == ("CORRECT", "proved_by_exp_normal_form")
    assert "numeric_screen" not in names and names[-1] == "fast_proof"
    assert result.stages[-1].data["doubles_agree"] == 8


def test_without_symengine_the_screen_comes_first(without_symengine):
    result = check_antiderivative("sin(x)**2", "sin(2*x)", symbol="x", input_kind="sympy")
    names = _stage_names(result)
    assert result.reason == "proved_by_exp_normal_form"
    assert names.index("numeric_screen") < names.index("fast_proof")
    assert "doubles_agree" not in result.stages[-1].data


@pytest.mark.parametrize(("answer", "integrand"), [
    ("x**2/2 + 10**(-30)*x", "x"),                 # a difference doubles cannot see
    ("sqrt(x - 1)*sqrt(x + 1)", "x/sqrt(x**2 - 1)"),  # another branch for Re x < 0
], ids=["tiny_term", "branch"])
def test_an_unproved_or_disagreeing_answer_still_meets_the_screen(answer, integrand):
    result = check_antiderivative(answer, integrand, symbol="x", input_kind="sympy")
    assert result.verdict.value == "WRONG"
    assert "numeric_screen" in _stage_names(result)


def test_agree():
    points = [complex(0.3, 0.2), complex(-1.5, 0.9), complex(2.0, -0.4)]
    derivative = sp.diff(sp.atan(x) + sp.log(x**2 + 1), x)
    right = 1 / (x**2 + 1) + 2 * x / (x**2 + 1)
    assert first_look.agree(derivative, right, (x,), points, [])
    assert not first_look.agree(derivative, right + sp.Rational(1, 10**8), (x,), points, [])
    assert not first_look.agree(-derivative, right, (x,), points, [])
    assert first_look.agree(a * x, a * x, (x, a), points, [3.0])
    assert not first_look.agree(a * x, 3 * x, (x, a), points, [2.0])
    # Nothing can be said from an overflow, an underflow or no points.
    assert not first_look.agree(sp.exp(x**3 * 1000), sp.exp(x**3 * 1000), (x,), points, [])
    assert not first_look.agree(sp.exp(-x**2 * 10**6), sp.exp(-x**2 * 10**6), (x,), points, [])
    assert not first_look.agree(x, x, (x,), [], [])


def test_agree_says_nothing_without_symengine(without_symengine):
    assert not first_look.agree(x, x, (x,), [complex(0.3, 0.2)], [])


def test_single_valued_expressions_are_compared_near_the_origin():
    # Far out, doubles lose csch(z)^6 coth(z)^4 (1e-52 at Re z = 12) to the
    # cancellation of its derivative's terms (1e-10).
    near, far = [complex(0.3, 0.2), complex(-1.1, 0.7)], [complex(12.2, 0.9)]
    F = -sp.coth(x)**9 / 9 + 2 * sp.coth(x)**7 / 7 - sp.coth(x)**5 / 5
    derivative, integrand = sp.diff(F, x), sp.coth(x)**4 * sp.csch(x)**6
    assert not first_look.agree(derivative, integrand, (x,), near + far, [])
    assert first_look.agree(derivative, integrand, (x,), near + far, [], single_valued=True)
    # ... as long as enough points are near,
    assert not first_look.agree(derivative, integrand, (x,), near[:1] + far * 2, [],
                                single_valued=True)
    # and every near one agrees.
    assert not first_look.agree(derivative, 2 * integrand, (x,), near + far, [],
                                single_valued=True)


def test_single_valued_expressions_allow_round_off():
    points = [complex(0.3, 0.2), complex(-1.5, 0.9)]
    off = x * (1 + sp.Rational(1, 10**8))
    assert not first_look.agree(off, x, (x,), points, [])
    assert first_look.agree(off, x, (x,), points, [], single_valued=True)
    assert not first_look.agree(x * (1 + sp.Rational(1, 10**4)), x, (x,), points, [],
                                single_valued=True)


def test_a_single_valued_answer_past_the_doubles_is_proved_before_the_screen():
    result = check_antiderivative("-coth(x)**9/9 + 2*coth(x)**7/7 - coth(x)**5/5",
                                  "coth(x)**4*csch(x)**6", symbol="x", input_kind="sympy")
    assert result.verdict.value == "CORRECT"
    assert "numeric_screen" not in _stage_names(result)
