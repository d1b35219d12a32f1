"""What counts as "no value" in the columns every entry point receives.

One rule, used by the TRL reward, offline scoring, verl, OpenRLHF, the server
and the verifiers taskset, so a row gets one verdict whichever way it comes in:

- :func:`is_missing`: the ways a table or a trainer says "no value": ``None``,
  NaN (a float or a numpy scalar: a blank cell of a pandas-backed column),
  pandas ``NA`` and ``NaT``. Text is never missing here: an empty completion
  is an answer (it says nothing, and is penalised as one).
- :func:`key_text`: the integrand and the variable as text, or ``None`` when
  the row has none: missing by :func:`is_missing`, or blank text. A row
  without an integrand is not judged; a row without a variable gets the
  configured one, else the one inferred from its integrand.

>>> [is_missing(v) for v in (None, float("nan"), "", "x", 0)]
[True, True, False, False, False]
>>> [key_text(v) for v in (None, float("nan"), "", "  ", " t ", 2)]
[None, None, None, None, 't', '2']
"""
from __future__ import annotations

import math
from typing import Any

# pandas' missing scalars, named so that pandas need not be imported here.
_PANDAS_MISSING = frozenset({"NAType", "NaTType"})


def is_missing(value: Any) -> bool:
    """``True`` for None, NaN (float or numpy), pandas NA/NaT; text, numbers,
    lists and mappings are values."""
    if value is None:
        return True
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return False
    if isinstance(value, float):
        return math.isnan(value)
    if type(value).__name__ in _PANDAS_MISSING:
        return True
    try:  # numpy floating scalars and NaT: NaN is the only value unequal to itself
        return bool(value != value)  # noqa: PLR0124
    except Exception:  # noqa: BLE001 - arrays (ambiguous truth) and odd objects are values
        return False


def key_text(value: Any) -> str | None:
    """An integrand or variable cell as stripped text; ``None`` for a missing
    or blank one."""
    if is_missing(value):
        return None
    text = str(value).strip()
    return text or None
