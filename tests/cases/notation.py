r"""The notation models use: Greek variants (``\varphi``, ``\vartheta``),
Lambert W and its branches, ``E_1``, Fresnel ``S``/``C``, elliptic
``F(x|m)``, SymPy's own spellings of exact numbers in an integrand, and
SymPy answers in backticks or a code fence."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("varphi-squared-for-phi", r"\frac{\varphi^{2}}{2}", "phi", "latex", OK),
    V("vartheta-cubed-for-theta", r"\frac{\vartheta^{3}}{3}", "theta**2", "latex", OK),
    V("lambert-w-letter", r"x\left(W(x) - 1 + \frac{1}{W(x)}\right)", "LambertW(x)", "latex", OK),
    V("lambert-w-0-subscript", r"x\left(W_{0}(x) - 1\right) + \frac{x}{W_0(x)}", "LambertW(x)", "latex", OK),
    V("lambert-w-operatorname", r"x\left(\operatorname{W}(x) - 1\right) + \frac{x}{\operatorname{W}(x)}",
      "LambertW(x)", "latex", OK),
    V("lambert-w-minus-1-branch", r"\mathrm{W}_{-1}(x)", "LambertW(x, -1)/(x*(1 + LambertW(x, -1)))", "latex", OK),
    V("lambert-w-principal-for-minus-1-branch", r"\operatorname{W}(x)",
      "LambertW(x, -1)/(x*(1 + LambertW(x, -1)))", "latex", WRONG),
    V("exponential-integral-e1", "-E_1(x)", "exp(-x)/x", "latex", OK),
    V("fresnel-s-operatorname", r"\operatorname{S}(x)", "sin(pi*x**2/2)", "latex", OK),
    V("fresnel-c-for-the-s-integrand", r"\operatorname{C}(x)", "sin(pi*x**2/2)", "latex", WRONG),
    V("elliptic-f-mid-m", r"F(x \mid m)", "1/sqrt(1 - m*sin(x)**2)", "latex", OK),
    V("elliptic-f-bar-minus-2", "F(x|-2)", "1/sqrt(1 + 2*sin(x)**2)", "latex", OK),
    V("elliptic-f-left-bar-third", r"F\left(x \,|\, \frac{1}{3}\right)", "1/sqrt(1 - sin(x)**2/3)", "latex", OK),
    # SymPy's own spellings of exact numbers in an integrand.
    V("integrand-S-2-over-3", r"\frac{x^2}{3}", "S(2)/3*x", "latex", OK),
    V("integrand-rational-2-3", r"\frac{x^2}{3}", "Rational(2, 3)*x", "latex", OK),
    V("sympy-in-backticks", "<answer>`x**3/3 + C`</answer>", "x**2", "response", OK),
    V("sympy-in-a-python-fence", '<answer>```python\nsin(x) + C\n```</answer>', "cos(x)", "response", OK),
    V("sympy-max-squared", "<answer>Max(x, 0)**2/2</answer>", "Max(x, 0)", "response", OK),
    V("sympy-floor-plus-frac", "<answer>floor(x) + frac(x)</answer>", "1", "response", OK),
    V("sympy-e1", "<answer>-E1(x)</answer>", "exp(-x)/x", "response", OK),
    V("sympy-vartheta", "<answer>vartheta**3/3</answer>", "theta**2", "response", OK),
]
