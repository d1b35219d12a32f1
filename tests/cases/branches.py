r"""Continuity on every accept path for the forms that can jump, and the real
reading of branches off the real domain (issue 25, items 2 and 4): complex
logarithms whose argument crosses the cut on the real line (proved F' = f
symbolically, so only the continuity check can refuse them), arctan of a
pole next to a tall peak of f, SymPy's odd arccot, arcsin of roots real
only on (0, 1), and jumps for some signs of a parameter only."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    # complex logarithms crossing the cut: real, F' = f, a jump at 0
    V("complex-log-over-4i-crosses-the-cut", r"\frac{1}{4i}\ln\frac{x-2i}{x+2i}",
      "1/(x**2+4)", "latex", WRONG, "discontinuous"),
    V("complex-log-i-over-2-crosses-the-cut", r"\frac{i}{2}\ln\frac{x+i}{x-i}",
      "1/(x**2+1)", "latex", WRONG, "discontinuous"),
    V("complex-log-parameter-a-crosses-the-cut", r"\frac{1}{2ai}\ln\frac{x-ai}{x+ai}",
      "1/(x**2+a**2)", "latex", WRONG, "discontinuous"),
    V("x-plus-complex-log-shifted-by-3", r"x + \frac{1}{2i}\ln\left(\frac{x-3-i}{x-3+i}\right)",
      "1 + 1/((x-3)**2+1)", "latex", WRONG, "discontinuous"),
    # ... and the forms that do not cross, or are joined by their sign term
    V("half-arctan-half-x", r"\frac12\arctan\frac x2", "1/(x**2+4)", "latex", OK),
    V("complex-log-i-over-2-does-not-cross", r"\frac{i}{2}\ln\frac{i+x}{i-x}", "1/(x**2+1)", "latex", OK),
    V("complex-log-difference-does-not-cross", r"\frac{1}{4i}\left(\ln(x-2i) - \ln(x+2i)\right)",
      "1/(x**2+4)", "latex", OK),
    V("complex-log-joined-by-its-sign-term", r"\frac{1}{4i}\ln\frac{x-2i}{x+2i} + \frac{\pi}{4}\operatorname{sgn}(x)",
      "1/(x**2+4)", "latex", OK),
    V("complex-log-parameter-a-does-not-cross", r"\frac{1}{2ai}\ln\frac{a+ix}{a-ix}", "1/(x**2+a**2)", "latex", OK),
    # arctan of a pole next to a tall peak of f
    V("arctan-of-a-pole-beside-a-tall-peak", r"-10^{10}\arctan(10^{-10}/x)",
      "1/(x**2 + 10**(-20))", "latex", WRONG, "discontinuous"),
    V("arctan-of-a-pole-at-3", r"-\arctan(1/(10^8(x-3)))",
      "10**8/(1+10**16*(x-3)**2)", "latex", WRONG, "discontinuous"),
    V("arctan-of-a-pole-at-sqrt-3", r"-\arctan\frac{1}{10^{12}(x-\sqrt{3})}",
      "10**12/(1+10**24*(x-sqrt(3))**2)", "latex", WRONG, "discontinuous"),
    V("arctan-of-a-steep-line-at-3", r"\arctan(10^8(x-3))", "10**8/(1+10**16*(x-3)**2)", "latex", OK),
    V("arctan-of-a-steep-line-at-0", r"10^{10}\arctan(10^{10}x)", "1/(x**2 + 10**(-20))", "latex", OK),
    # SymPy's arccot is odd: it jumps by pi where its argument crosses 0
    V("minus-arccot-jumps-at-0", r"-\operatorname{arccot} x", "1/(1 + x**2)", "latex", WRONG, "discontinuous"),
    V("minus-arccot-jumps-at-3", r"-\operatorname{arccot}(10^8(x-3))",
      "10**8/(1+10**16*(x-3)**2)", "latex", WRONG, "discontinuous"),
    V("arccot-of-x-squared-plus-1", r"\operatorname{arccot}(x^2+1)", "-2*x/(1+(x**2+1)**2)", "latex", OK),
    # branches off the real domain: the real reading on (0, 1) decides
    V("arcsin-fourth-root-real-on-0-1", r"4\arcsin\sqrt[4]{x}", "1/sqrt(x*sqrt(x) - x**2)", "latex", OK),
    V("arcsin-x-three-halves-real-on-0-1", r"\tfrac23\arcsin x^{3/2}", "sqrt(x/(1-x**3))", "latex", OK),
    V("arcsin-fourth-root-half-the-factor", r"2\arcsin\sqrt[4]{x}", "1/sqrt(x*sqrt(x) - x**2)", "latex", WRONG),
    V("arcsin-fourth-root-plus-a-jump", r"4\arcsin\sqrt[4]{x} + \operatorname{sgn}(x-1/3)",
      "1/sqrt(x*sqrt(x) - x**2)", "latex", WRONG, "discontinuous"),
    V("arcsin-fourth-root-plus-a-kink-squared", r"4\arcsin\sqrt[4]{x} + (x - 1/2 + \lvert x - 1/2\rvert)^2",
      "1/sqrt(x*sqrt(x) - x**2)", "latex", WRONG),
    V("arcsin-x-three-halves-plus-a-steep-tanh", r"\tfrac23\arcsin x^{3/2} + \tanh(1000(x-0.4))",
      "sqrt(x/(1-x**3))", "latex", WRONG),
    V("arcsin-over-abs-a", r"\tfrac{2}{3\lvert a\rvert}\arcsin x^{3/2}",
      "sqrt(x/(1-x**3))/a", "latex", WRONG, "parameter_values"),
    # a jump for some signs of a parameter only: parameters are generic
    V("jump-for-negative-a-only", r"a^2 x + \frac{1}{2}(1-\operatorname{sgn}(a))\operatorname{sgn}(x)",
      "a**2", "latex", WRONG, "discontinuous", symbol="x"),
    V("arctan-over-a-jump-for-negative-a",
      r"\frac{1}{a}\arctan\frac{x}{a} + \frac{\pi}{2a}\operatorname{sgn}(x)(1-\operatorname{sgn}(a))",
      "1/(x**2+a**2)", "latex", WRONG, "discontinuous"),
    V("jump-between-a-and-abs-a", r"a^2x + \operatorname{sgn}(x - a) - \operatorname{sgn}(x-\lvert a\rvert)",
      "a**2", "latex", WRONG, "discontinuous", symbol="x"),
    V("arctan-x-over-a-no-jump-for-either-sign", r"\frac{1}{a}\arctan\frac{x}{a}", "1/(x**2+a**2)", "latex", OK),
]
