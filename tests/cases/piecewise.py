r"""Piecewise answers (``cases``, ``dcases``, SymPy ``Piecewise``) and, next to
them, held-out wrong ones: a wrong piece, a piece wrong only far out or on a
narrow interval, a gap, one side only; conditions the checker cannot read."""
from __future__ import annotations

from rewards import Verdict
from tests.cases import box, tag
from tests.support import VerdictCase as V

OK, WRONG, UNP = Verdict.CORRECT, Verdict.WRONG, Verdict.UNPARSEABLE

CASES = [
    V("cases-abs-boxed", box(r"\begin{cases} \frac{x^{2}}{2} & x \geq 0 \\ -\frac{x^{2}}{2} & x < 0 \end{cases} + C"),
     "Abs(x)", "response", OK, None),
    V("dcases-x-times-abs", r"F(x) = \begin{dcases} \frac{x^3}{3} & \text{if } x \ge 0, \\ -\frac{x^3}{3} & "
     r"\text{otherwise.} \end{dcases}", "x*Abs(x)", "latex", OK, None),
    V("cases-log-two-constants", r"\begin{cases} \ln x + C_1 & x > 0 \\ \ln(-x) + C_2 & x < 0 \end{cases}", "1/x",
     "latex", OK, None),
    V("cases-three-pieces-bounded-integrand", r"\begin{cases} x - \frac{x^{3}}{3} & |x| \le 1 \\ \frac{2}{3} & x > 1 \\ "
     r"-\frac{2}{3} & x < -1 \end{cases}", "Piecewise((1 - x**2, Abs(x) <= 1), (0, True))",
     "latex", OK, None),
    V("cases-interval-conditions-sign", r"\begin{cases} -x & x \in (-\infty, 0) \\ x & x \in [0, \infty) \end{cases}",
     "sign(x)", "latex", OK, None),
    # The uncovered (-1, 1) is outside the integrand's real domain.
    V("cases-gap-outside-the-domain", r"\begin{cases} \sqrt{x^2-1} & x \ge 1 \\ \sqrt{x^2-1} & x \le -1 \end{cases}",
     "x/sqrt(x**2 - 1)", "latex", OK, None),
    V("sympy-piecewise-abs", tag("Piecewise((x**2/2, x >= 0), (-x**2/2, True))"), "Abs(x)", "response", OK, None),
    V("sympy-piecewise-overlapping-conditions", tag("Piecewise((x**2/2, (x >= 0) & (x < 5)), (-x**2/2, x < 0), (x**2/2, True))"),
     "Abs(x)", "response", OK, None),
    V("sympy-piecewise-reversed-order", tag("Piecewise((-x**2/2, x < 0), (x**2/2, 0 <= x))"), "Abs(x)", "response", OK, None),
    # held out: one wrong piece, a piece wrong only far out or on a narrow
    # interval, a gap, one side only
    V("wrong-one-piece-boxed", box(r"\begin{cases} \frac{x^{2}}{2} & x \geq 0 \\ \frac{x^{2}}{2} & x < 0 \end{cases}"),
     "Abs(x)", "response", WRONG, None),
    V("wrong-log-negative-piece", r"\begin{cases} \ln x & x > 0 \\ \ln(x^{2}) & x < 0 \end{cases}", "1/x", "latex", WRONG,
     "piecewise_piece"),
    V("wrong-piece-beyond-30", r"\begin{cases} \frac{x^2}{2} & 0 \le x \le 30 \\ -\frac{x^2}{2} & x < 0 \\ 450 & "
     r"\text{otherwise} \end{cases}", "Abs(x)", "latex", WRONG, "piecewise_piece"),
    V("wrong-piece-on-narrow-interval", r"\begin{cases} \frac{x^2}{2} & x \ge 0 \\ -\frac{x^2}{2} + x & -0.002 < x < -0.001 "
     r"\\ -\frac{x^2}{2} & \text{otherwise} \end{cases}", "Abs(x)", "latex", WRONG,
     "piecewise_piece"),
    V("gap-between-minus1-and-1", r"\begin{cases} \frac{x^2}{2} & x > 1 \\ -\frac{x^2}{2} & x < -1 \end{cases}", "Abs(x)",
     "latex", WRONG, "piecewise_gap"),
    V("gap-log-one-side-only", r"\begin{cases} \ln x & x > 0 \end{cases} + C", "1/x", "latex", WRONG, "piecewise_gap"),
    V("sympy-wrong-piece-below-minus20", tag("Piecewise((x**2/2, x >= 0), (-x**2/2, x > -20), (x**2/2, True))"), "Abs(x)",
     "response", WRONG, "piecewise_piece"),
    V("sympy-gap", tag("Piecewise((x**2/2, x > 1), (-x**2/2, x < -1))"), "Abs(x)", "response", WRONG,
     "piecewise_gap"),
    # conditions the checker cannot read are named, never dropped
    V("condition-with-constant-C", r"\begin{cases} x^2 & x > C \\ 0 & \text{otherwise} \end{cases}", "2*x", "latex", UNP,
     "cases_condition"),
    V("condition-sin-x", r"\begin{cases} x^2 & \sin x > 0 \\ -x^2 & \text{otherwise} \end{cases}", "2*x", "latex",
     UNP, "cases_condition"),
    V("condition-in-words", r"\begin{cases} x^2 & \text{when it rains} \\ 0 & \text{otherwise} \end{cases}", "2*x",
     "latex", UNP, "cases_condition"),
    V("sympy-boolean-added-to-answer", tag("x**2/2 + (x > 0)"), "x", "response", UNP, None),
    V("sympy-condition-on-another-symbol", tag("Piecewise((x**2/2, y > 0), (x**2/2, True))"), "x", "response", UNP, "bad_condition"),
]
