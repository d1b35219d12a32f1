r"""How the text is written: letters written together (``xe^x``), Unicode
minus, times, middle dot, roots and superscripts, and exact decimals (the
same number on both sides whatever the syntax)."""
from __future__ import annotations

from rewards import Verdict
from tests.cases import box, tag
from tests.support import VerdictCase as V

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE

CASES = [
    # letters written together: a product unless the integrand uses the name
    V("letters-xe-x", tag("xe^x - e^x + C"), "x*exp(x)", "response", OK, None),
    V("letters-2xe-x-boxed", box("2xe^{x}"), "2*exp(x) + 2*x*exp(x)", "response", OK, None),
    V("letters-ax-squared-parameter", tag("ax^2/2 + C"), "a*x", "response", OK, None),
    V("letters-xe-x-missing-term", tag("xe^x + C"), "x*exp(x)", "response", WRONG, None),
    V("letters-stray-y-residual", tag("xe^x - e^x + y"), "x*exp(x)", "response", WRONG, "residual_symbols"),
    V("letters-ab-is-the-integrands-name", tag("ab*x**2/2"), "ab*x", "response", OK, None),
    V("letters-abx-is-not-the-name", tag("abx**2/2"), "ab*x", "response", WRONG, "residual_symbols"),
    # Unicode minus, times, middle dot, roots, superscripts
    V("unicode-superscript-minus-middot", tag("x³/3 − 2·x + C"), "x**2 - 2", "response", OK, None),
    V("unicode-sqrt-boxed", box("2√x + C"), "1/sqrt(x)", "response", OK, None),
    V("unicode-cube-root", tag("∛(x+1)"), "1/(3*(x + 1)**(2/3))", "response", OK, None),
    V("unicode-minus-times-boxed", box(r"−2\cos x × 3"), "6*sin(x)", "response", OK, None),
    V("unicode-superscript-minus-one", tag("x⁻¹ + C"), "-1/x**2", "response", OK, None),
    V("unicode-superscript-10", tag("x¹⁰/10"), "x**9", "response", OK, None),
    V("unicode-superscript-10-wrong-denominator", tag("x¹⁰/11"), "x**9", "response", WRONG, None),
    V("unicode-fourth-root-boxed", box("∜x"), "1/(4*x**(3/4))", "response", OK, None),
    # exact decimals, the same number on both sides whatever the syntax
    V("decimal-latex-log-2.2", r"\ln\left|x + 2.2\right| + C", "1/(x + 2.2)", "latex", OK, None),
    V("decimal-text-ln-2.2", tag("ln|x + 2.2| + C"), "1/(x + 2.2)", "response", OK, None),
    V("decimal-sympy-log-2.2", tag("log(x + 2.2) + C"), "1/(x + 2.2)", "response", OK, None),
    V("decimal-2.21-wrong", r"\ln\left|x + 2.21\right| + C", "1/(x + 2.2)", "latex", WRONG, None),
    V("decimal-coefficient-1.125", r"1.125x^{2}", "2.25*x", "latex", OK, None),
    V("decimal-coefficient-1.126-wrong", r"1.126x^{2}", "2.25*x", "latex", WRONG, None),
    V("decimal-0.333-is-not-a-third", r"0.333x^{3}", "x**2", "latex", WRONG, None),
    V("decimal-divide-by-2.5", r"\frac{x^{2}}{2.5}", "0.8*x", "latex", OK, None),
    V("decimal-exponent-0.5", r"e^{0.5x} \cdot 2", "exp(x/2)", "latex", OK, None),
    V("decimal-exponent-0.501-wrong", r"e^{0.501x} \cdot 2", "exp(x/2)", "latex", WRONG, None),
]
