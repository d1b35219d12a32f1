"""How failures travel inside the checker, and whose fault each one is.

* :class:`ParseFailure`: the model's text never became a usable expression
  (UNPARSEABLE, with the same ``reason``).
* :data:`MATH_ERRORS`: what SymPy raises on odd but well-formed math while a
  parser builds the expression (``Heaviside(I)``, ``log(0, 0)``): the text's
  fault too, so a parser turns them into ``ParseFailure("math_error")``.
* Anything else raised by our own code is a bug of ours: CHECKER_ERROR (no
  reward, no gradient) with the exception's type in the reason, or, in strict
  mode, the exception itself. The test suite turns strict mode on
  (``INTEGRAL_REWARDS_STRICT=1``, inherited by worker processes), so a bug
  surfaces as a failing test instead of a verdict.

None of these leaves the package: callers always receive a
:class:`rewards.CheckResult`.
"""
from __future__ import annotations

import os

import sympy as sp

STRICT_ENV = "INTEGRAL_REWARDS_STRICT"

# SymPy's own complaints about the math it was asked to build.
MATH_ERRORS: tuple[type[BaseException], ...] = (
    ArithmeticError, ValueError, TypeError, NotImplementedError, sp.SympifyError,
    sp.polys.polyerrors.BasePolynomialError,
)


def strict_mode() -> bool:
    """Whether a bug of ours raises instead of becoming CHECKER_ERROR."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


class ParseFailure(Exception):
    """Input could not be turned into a SymPy expression.

    ``reason`` is a short machine-readable slug (``"latex_error"``,
    ``"forbidden_name"``, ``"too_deep"``, ...) that ends up in traces and
    summary tables, so keep it stable; ``message`` is free text for humans.
    """

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.message = message or reason


def describe(exc: BaseException, limit: int = 200) -> str:
    """``Type: message``, bounded; never raises (``str()`` of an int over
    4,300 digits does)."""
    try:
        detail = str(exc)
    except Exception:  # noqa: BLE001 - the message itself failed to print
        detail = ""
    return f"{type(exc).__name__}: {detail}"[:limit]
