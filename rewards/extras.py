"""Optional dependencies: one line that names the extra to install.

The checker and the offline scorer need only the base install; training,
plots, parquet, Ray and lm-eval need extras. A missing one is reported as
:class:`MissingExtra` (an ``ImportError``) whose message is the fix.
"""
from __future__ import annotations

import importlib
from types import ModuleType

PACKAGE = "integral-rewards"


class MissingExtra(ImportError):
    """An optional dependency is not installed; ``str(exc)`` says which extra."""


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtra` naming ``extra``.

    >>> require("json", "data", "reading JSON").__name__
    'json'
    >>> require("no_such_module_here", "data", "plots")
    Traceback (most recent call last):
    ...
    rewards.extras.MissingExtra: plots needs no_such_module_here: pip install 'integral-rewards[data]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingExtra(f"{feature} needs {top}: pip install '{PACKAGE}[{extra}]'") from exc
