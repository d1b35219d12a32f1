r"""The domain rule (docs/domain.md): F is an antiderivative of f when F' = f
wherever F is real-valued and F is real on the whole of at least one
component of f's real domain; real but wrong somewhere, or real on part of a
component only, is wrong; an integrand real nowhere on the line is decided on
its complex values."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    # valid on a whole component: correct
    V("ln-x-real-on-x-positive", r"\ln x", "1/x", "latex", OK),
    V("ln-x-minus-1", r"\ln(x - 1)", "1/(x - 1)", "latex", OK),
    V("ln-x2-minus-1-two-components", r"\ln(x^2 - 1)", "2*x/(x**2 - 1)", "latex", OK),
    V("arccosh-textbook-x-above-1", r"\cosh^{-1} x", "1/sqrt(x**2 - 1)", "latex", OK),
    V("arccosh-for-a-product-of-roots", r"\cosh^{-1} x", "1/(sqrt(x - 1)*sqrt(x + 1))", "latex", OK),
    V("arcsec-for-abs-x-root", r"\operatorname{arcsec} x", "1/(Abs(x)*sqrt(x**2 - 1))", "latex", OK),
    V("minus-ln-cos-for-tan", r"-\ln(\cos x)", "tan(x)", "latex", OK),
    V("ln-x-for-1-over-abs-x", r"\ln x", "1/Abs(x)", "latex", OK),
    V("2-sqrt-x-for-1-over-sqrt-x", r"2\sqrt{x}", "1/sqrt(x)", "latex", OK),
    V("arcsin-x", r"\arcsin x", "1/sqrt(1 - x**2)", "latex", OK),
    V("x-ln-x-minus-x-for-ln-x", r"x \ln x - x", "log(x)", "latex", OK),
    V("x-abs-x-over-2-for-abs-x", r"\frac{x|x|}{2}", "Abs(x)", "latex", OK),
    # real but wrong somewhere, or real on part of a component: wrong
    V("sqrt-x2-wrong-for-x-negative", r"\sqrt{x^2}", "x", "latex", WRONG, "numeric_mismatch"),
    V("x-three-halves-real-on-half-the-line", r"\frac{2}{3} x^{3/2}", "sqrt(Abs(x))", "latex", WRONG,
      "partial_domain"),
    V("arcsec-minus-f-below-minus-1", r"\operatorname{arcsec} x", "1/(x*sqrt(x**2 - 1))", "latex", WRONG,
      "numeric_mismatch"),
    # integrands real nowhere on the line: their complex values decide
    V("empty-domain-asin-coth", "asin(coth(x))", "sqrt(-csch(x)**2)", "sympy", OK),
    V("empty-domain-minus-asin-coth", "-asin(coth(x))", "sqrt(-csch(x)**2)", "sympy", WRONG),
    V("empty-domain-x", "x", "sqrt(-csch(x)**2)", "sympy", WRONG),
    V("empty-domain-log-cos-cot", "-log(cos(x))*cot(x)/sqrt(-cot(x)**2)", "1/sqrt(1 - csc(x)**2)", "sympy", OK),
    V("empty-domain-log-cos-cot-wrong-sign", "log(cos(x))*cot(x)/sqrt(-cot(x)**2)", "1/sqrt(1 - csc(x)**2)",
      "sympy", WRONG),
]
