r"""Special functions (incomplete gamma, polylogarithms), large exponents,
huge constants, ``x^{e}``, and a multiplicative constant inside a logarithm;
each accepted form next to a held-out wrong answer that differs from it
slightly."""
from __future__ import annotations

from rewards import Verdict
from tests.cases import box, tag
from tests.support import VerdictCase as V

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE

CASES = [
    V("upper-gamma-3-halves", r"-\Gamma\left(\frac{3}{2}, x\right) + C", "sqrt(x)*exp(-x)", "latex", OK, None),
    V("lower-gamma-3-halves", r"\gamma\left(\frac{3}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", OK, None),
    V("upper-gamma-2-boxed", box(r"-\Gamma(2, x)"), "x*exp(-x)", "response", OK, None),
    V("upper-gamma-wrong-sign", r"\Gamma\left(\frac{3}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", WRONG, None),
    V("upper-gamma-wrong-order", r"-\Gamma\left(\frac{5}{2}, x\right)", "sqrt(x)*exp(-x)", "latex", WRONG, None),
    V("upper-gamma-50-too-large", r"\Gamma\left(50, x\right)", "x**49*exp(-x)", "latex", UNP, "number_too_large"),
    # polylogarithms: Li_n(x)' = Li_{n-1}(x)/x, its order written as a subscript or an argument
    V("polylog-li-3-for-li-2-over-x", r"\operatorname{Li}_3(x) + C", "polylog(2, x)/x", "latex", OK, None),
    V("polylog-mathrm-li-2-for-log", r"\mathrm{Li}_2(x)", "-log(1 - x)/x", "latex", OK, None),
    V("sympy-polylog-3-for-li-2-over-x", tag("polylog(3, x) + C"), "polylog(2, x)/x", "response", OK, None),
    V("polylog-li-3-for-li-3-over-x-wrong-order", r"\operatorname{Li}_{3}(x)", "polylog(3, x)/x", "latex",
      WRONG, None),
    V("polylog-operatorname-call-3-for-li-2-over-x", r"\operatorname{polylog}(3, x)", "polylog(2, x)/x", "latex",
      OK, None),
    # an order above the registry's bound is refused in LaTeX as in SymPy text
    V("polylog-li-21-above-the-bound", r"\operatorname{Li}_{21}(x)", "polylog(20, x)/x", "latex", UNP, "number_too_large"),
    V("expint-e-21-above-the-bound", r"-E_{21}(x)", "expint(20, x)", "latex", UNP, "number_too_large"),
    # large exponents: the cost of a power of the variable does not grow with it
    V("power-2025", r"\frac{x^{2025}}{2025} + C", "x**2024", "latex", OK, None),
    V("two-powers-2015-2016", r"-\frac{(1-x)^{2015}}{2015} + \frac{(1-x)^{2016}}{2016} + C", "x*(1 - x)**2014", "latex",
     OK, None),
    V("two-powers-swapped-denominators", r"-\frac{(1-x)^{2015}}{2016} + \frac{(1-x)^{2016}}{2015} + C", "x*(1 - x)**2014", "latex",
     WRONG, None),
    V("tan-power-2025", r"\frac{\tan^{2025} x}{2025}", "tan(x)**2024*sec(x)**2", "latex", OK, None),
    V("log-of-1-plus-x-2024", r"\frac{1}{2024}\ln\left|1 + x^{2024}\right|", "x**2023/(1 + x**2024)", "latex", OK, None),
    V("sympy-power-2025", tag("x**2025/2025 + C"), "x**2024", "response", OK, None),
    V("power-6000-too-large", r"x^{6000}", "6000*x**5999", "latex", UNP, "exponent_too_large"),
    # a huge constant is still only a constant; huge elsewhere is refused
    V("huge-constant-latex", r"\frac{x^{3}}{3} + 10^{10^{10}}", "x**2", "latex", OK, None),
    V("huge-constant-sympy", tag("x**3/3 + 10**(10**10) + C"), "x**2", "response", OK, None),
    V("huge-coefficient-of-x", r"\frac{x^{3}}{3} + 10^{10^{10}} x", "x**2", "latex", UNP, "exponent_too_large"),
    V("huge-number-alone", r"10^{10^{10}}", "0", "latex", UNP, "exponent_too_large"),
    V("sympy-1e999999999", tag("x**3/3 + 1e999999999"), "x**2", "response", UNP, "number_too_large"),
    # x^{e}
    V("power-e-plus-1", r"\frac{x^{e+1}}{e+1} + C", "x**E", "latex", OK, None),
    V("power-e-times-exp", r"x^{e} e^{x}", "(x**E + E*x**(E - 1))*exp(x)", "latex", OK, None),
    V("power-e-over-e-wrong", r"\frac{x^{e}}{e}", "x**E", "latex", WRONG, None),
    # a multiplicative constant inside a logarithm is an additive constant
    V("constant-inside-log-abs-Cx", r"\ln|Cx|", "1/x", "latex", OK, None),
    V("constant-inside-log-boxed", box(r"\ln\left(C(x+1)\right)"), "1/(x + 1)", "response", OK, None),
    V("log-x-over-K-times-2", r"2\ln\left|\frac{x}{K}\right| + C_1", "2/x", "latex", OK, None),
    V("sympy-log-K-x-squared", tag("log(K*x**2)"), "2/x", "response", OK, None),
    V("x-log-Cx-not-a-constant", r"x\ln|Cx|", "log(x) + 1", "latex", WRONG, "residual_symbols"),
    V("log-x-plus-C-residual", r"\ln|x + C|", "1/x", "latex", WRONG, "residual_symbols"),
    V("log-Cx-wrong-integrand", r"\ln|Cx|", "2/x", "latex", WRONG, None),
    V("log-ax-residual-a", r"\ln|ax|", "1/x", "latex", WRONG, "residual_symbols"),
]
