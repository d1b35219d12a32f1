"""Internal signal for input that never becomes a usable expression.

Raised by the extraction and parsing modules and turned into an UNPARSEABLE
verdict (with the same ``reason``) by the checker. It never leaves the package:
callers always receive a :class:`rewards.CheckResult`.
"""
from __future__ import annotations


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
