"""What counts as "no value" in a batch row: one rule for every entry point
(the TRL reward, offline scoring, verl, OpenRLHF, the server, verifiers).

Tables spell an absent value many ways: ``None``, a float or numpy NaN (a
blank cell of a pandas-backed column), pandas ``NA``/``NaT``. Text that is
empty or only white space is a value for a *completion* (the model wrote
nothing: no answer, scored like any other) but no value for an *integrand*
or a *variable* (nothing to check against, nothing named).

>>> import math
>>> [is_missing(v) for v in (None, math.nan, "", "x", 0)]
[True, True, False, False, False]
>>> [is_blank(v) for v in (None, math.nan, "", "  ", "x", 0)]
[True, True, True, True, False, False]
"""
from __future__ import annotations

import math
from typing import Any


def is_missing(value: Any) -> bool:
    """None, NaN, pandas NA/NaT: the ways a table says "no value"."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return False
    if type(value).__name__ in ("NAType", "NaTType"):
        # pandas NA: ``NA != NA`` is NA, whose truth value raises.
        return True
    try:  # numpy floating scalars
        return bool(value != value)  # noqa: PLR0124 - NaN is the only value unequal to itself
    except Exception:  # noqa: BLE001 - arrays and odd objects are values
        return False


def is_blank(value: Any) -> bool:
    """No value, or text with nothing in it: an integrand or variable cell
    that names nothing."""
    return is_missing(value) or (isinstance(value, str) and not value.strip())


__all__ = ["is_blank", "is_missing"]
