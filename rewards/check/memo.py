"""Verdicts by derivative, kept by each worker process: answers that differ
by a constant (F, F + C, F + 7) are judged once, and the same answer as
written is found before it is differentiated again."""
from __future__ import annotations

import functools
from collections import OrderedDict

import sympy as sp

from .evidence.continuity import has_jump_arguments
from .evidence.domain import restricts_domain
from .evidence.points import structure_digest
from .result import CheckResult, StageRecord, Verdict


class JudgementMemo:
    """Verdicts by (derivative, integrand), an LRU for one worker process.

    Answers that differ by a constant have the same derivative: the second
    one skips the numeric and symbolic stages. An answer whose written form
    decides too (a logarithm or a radical, read by the domain rule; a step, a
    piece or a bounded function of a pole, where F may jump while F' stays the
    same: see :mod:`.evidence.continuity`) is keyed by that form, without
    additive constants. Each verdict is also kept under the answer as
    written (:meth:`written_key`). TIMEOUT and CHECKER_ERROR
    are never kept (they depend on load, not on the answer).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, ...], tuple] = OrderedDict()

    @staticmethod
    def key(derivative: sp.Expr, integrand: sp.Expr, written: sp.Expr) -> tuple[str, ...]:
        """The memo key of an answer: its derivative and integrand, plus its
        written form where the domain rule or the continuity check reads it."""
        # Structural digests, not srepr: printing each derivative again for
        # its key cost as much as the digest its sample points are seeded by.
        form = ""
        if restricts_domain(written) or has_jump_arguments(written):
            form = structure_digest(_variable_part(written)).hex()
        return structure_digest(derivative, integrand).hex(), form

    @staticmethod
    def written_key(written: sp.Expr, integrand: sp.Expr, symbol: str) -> tuple[str, ...]:
        """The key of an answer as written (parsed, its additive constants
        dropped): the same answer again, with or without ``+ C`` or ``+ 7``,
        is found before it is rebound and differentiated. The same written
        form has the same derivative, so this key is never less specific
        than :meth:`key`."""
        return "written", symbol, structure_digest(_variable_part(written), integrand).hex()

    def get(self, key: tuple[str, ...]) -> tuple | None:
        """The kept verdict for ``key`` (most recently used first), or ``None``."""
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, keys: tuple[tuple[str, ...], ...], result: CheckResult,
            decided: list[StageRecord]) -> None:
        """Keep a verdict and the stages that decided it under each of
        ``keys`` (never TIMEOUT or CHECKER_ERROR)."""
        if result.verdict in (Verdict.TIMEOUT, Verdict.CHECKER_ERROR) or self.size <= 0:
            return
        detail = {k: v for k, v in result.detail.items() if k != "total_ms"}
        self.keep(keys, (result.verdict, result.stage, detail, result.confidence,
                         [r.to_dict() for r in decided]))

    def keep(self, keys: tuple[tuple[str, ...], ...], entry: tuple) -> None:
        """Keep an entry (as :meth:`get` returns it) under each of ``keys``."""
        for key in keys:
            self._entries[key] = entry
            self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)


@functools.lru_cache(maxsize=64)
def _variable_part(written: sp.Expr) -> sp.Expr:
    """``written`` without its additive constants; ``written`` itself when it
    has none (rebuilding the sum was most of a key's time). Kept for the
    check's second key."""
    terms = sp.Add.make_args(written)
    kept = [t for t in terms if t.free_symbols]
    return written if len(kept) == len(terms) else sp.Add(*kept)
