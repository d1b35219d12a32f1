r"""Which box is the answer, through the checker: a boxed substitution
(``u = x^2``, ``x = \sin\theta``) before the final box is not the answer."""
from __future__ import annotations

from rewards import Verdict
from tests.support import VerdictCase as V

OK, WRONG = Verdict.CORRECT, Verdict.WRONG

CASES = [
    V("boxed-substitution-then-the-answer",
      r"Let \(\boxed{u = x^2}\), then $\int \cos u\,du$: \boxed{\sin(x^2) + C}", "2*x*cos(x**2)",
      "response", OK),
    V("boxed-substitution-then-a-wrong-answer", r"Let \(\boxed{u = x^2}\), then: \boxed{\cos(x^2) + C}",
      "2*x*cos(x**2)", "response", WRONG),
    V("boxed-trig-substitution-then-arcsin", r"\boxed{x = \sin\theta}, so \boxed{\arcsin x + C}",
      "1/sqrt(1 - x**2)", "response", OK),
]
