"""Result types of the checker: verdicts, confidence, stage records.

Every check returns a :class:`CheckResult`, whatever the input; the last entry
of ``stages`` is, by construction, the stage that decided (or broke), so a
verdict is always attributable to one step of the pipeline.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter

from .limits import CAPS


class Verdict(str, Enum):
    """What a check decided about one answer.

    ``CORRECT``: F is an antiderivative of f (see ``docs/domain.md`` for the
    definition); ``WRONG``: it is not, or the response hedges; ``UNPARSEABLE``:
    no usable expression (no answer at all is a reason of this verdict, see
    :func:`is_no_answer`); ``TIMEOUT``: out of time before a decision;
    ``CHECKER_ERROR``: not the model's doing (a bug of ours, an integrand that
    does not parse), so shaping can leave it out of the gradient.

    Example:

    >>> Verdict("WRONG") is Verdict.WRONG, Verdict.CORRECT.value
    (True, 'CORRECT')
    """

    CORRECT = "CORRECT"
    WRONG = "WRONG"
    UNPARSEABLE = "UNPARSEABLE"  # never reached a usable SymPy expression
    TIMEOUT = "TIMEOUT"  # out of time before any decision
    CHECKER_ERROR = "CHECKER_ERROR"  # a bug or crash in us, not in the model


class Confidence(str, Enum):
    """How a CORRECT verdict was reached; reward shaping can pay a proof more
    than numeric evidence alone.

    Example:

    >>> Confidence("numeric_only") is Confidence.NUMERIC_ONLY
    True
    """

    # A structural or symbolic proof that F' - f == 0.
    SYMBOLIC = "symbolic"
    # The multi-precision numeric screen was clean but no proof came within
    # budget. Reward shaping pays less for it: a policy must not learn to aim
    # for answers SymPy cannot confirm.
    NUMERIC_ONLY = "numeric_only"
    # Rejections and non-answers: "how sure" carries no information there.
    NONE = "none"


# Reasons attached to UNPARSEABLE verdicts that mean "the model gave no answer
# at all" rather than "the model gave an answer we could not read". Reward
# shaping can tell the two apart (format-aware presets). A reason may carry a
# detail after a colon (``no_answer:answer_only_in_reasoning``).
NO_ANSWER_REASONS = frozenset({"no_answer", "empty", "ambiguous"})


def is_no_answer(reason: str | None) -> bool:
    """Whether an UNPARSEABLE reason means "no answer at all".

    >>> is_no_answer("no_answer:unclosed_reasoning"), is_no_answer("latex_error")
    (True, False)
    """
    return reason is not None and reason.partition(":")[0] in NO_ANSWER_REASONS


class Shown:
    """An expression in stage data, printed (:func:`show`) when the check
    finishes, and only if its trace is kept: for an answer not accepted or
    accepted on numeric evidence alone (the reward logs those traces), or
    for any when the request asks (``trace_accepted``). Printing F' and the
    parsed answer was a twentieth of a check, and nobody reads the trace of
    an answer proved correct in training."""

    __slots__ = ("expr",)

    def __init__(self, expr: sp.Basic) -> None:
        self.expr = expr

    def __str__(self) -> str:
        return show(self.expr)


def resolve_shown(stages: list[StageRecord], keep: bool) -> None:
    """Print (``keep``) or drop every :class:`Shown` left in ``stages``; an
    expression shown twice (the parsed answer that normalizing left as it
    was) is printed once."""
    printed: dict[sp.Basic, str] = {}
    for record in stages:
        lazy = [k for k, v in record.data.items() if isinstance(v, Shown)]
        for key in lazy:
            if keep:
                expr = record.data[key].expr
                text = printed.get(expr)
                if text is None:
                    text = printed[expr] = show(expr)
                record.data[key] = text
            else:
                del record.data[key]


@dataclass
class StageRecord:
    """One step of the pipeline. ``status`` is ok | fail | skipped."""

    stage: str
    status: str = "ok"
    ms: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A flat JSON-able dict: ``stage``, ``status``, ``ms`` and the data."""
        return {"stage": self.stage, "status": self.status, "ms": round(self.ms, 3),
                **_jsonable(self.data)}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> StageRecord:
        """The inverse of :meth:`to_dict` (worker results cross processes as dicts)."""
        data = dict(raw)  # a copy less three keys: a third of a comprehension's time
        stage, status, ms = data.pop("stage"), data.pop("status", "ok"), data.pop("ms", 0.0)
        return cls(stage, status, float(ms), data)


@dataclass
class CheckResult:
    """The outcome of one check.

    Args:
        verdict: the :class:`Verdict`.
        stage: the stage that decided (the last of ``stages``).
        stages: one :class:`StageRecord` per stage run, in order.
        detail: ``reason`` (a stable slug) and what the deciding stage found;
            ``variable`` (and ``variable_from`` when it was inferred);
            ``total_ms``.
        confidence: for CORRECT, symbolic or numeric-only.

    Example:

    >>> from rewards import check_antiderivative
    >>> result = check_antiderivative(r"\\frac{x^2}{2}", "x")
    >>> result.correct, result.reason, result.stages[-1].stage == result.stage
    (True, 'structural', True)
    >>> CheckResult.from_dict(result.to_dict()).verdict
    <Verdict.CORRECT: 'CORRECT'>
    """

    verdict: Verdict
    stage: str
    stages: list[StageRecord]
    detail: dict[str, Any] = field(default_factory=dict)
    confidence: Confidence = Confidence.NONE

    @property
    def correct(self) -> bool:
        """Whether the verdict is CORRECT."""
        return self.verdict is Verdict.CORRECT

    @property
    def reason(self) -> str:
        """A short slug for tables and traces (``"numeric_screen"``, ``"no_answer"``...)."""
        return str(self.detail.get("reason") or self.stage)

    @property
    def total_ms(self) -> float:
        """Milliseconds the whole check took."""
        return float(self.detail.get("total_ms", sum(s.ms for s in self.stages)))

    @property
    def extracted(self) -> str | None:
        """The answer text the checker read, when the input was a whole response."""
        for record in self.stages:
            if record.stage == "candidate_extract":
                value = record.data.get("chosen")
                return None if value is None else str(value)
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: verdict, verdict_stage, confidence, detail, stages."""
        return {
            "verdict": self.verdict.value,
            "verdict_stage": self.stage,
            "confidence": self.confidence.value,
            "detail": _jsonable(self.detail),
            "stages": [s.to_dict() for s in self.stages],
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> CheckResult:
        """The inverse of :meth:`to_dict`."""
        return cls(
            Verdict(raw["verdict"]),
            raw["verdict_stage"],
            [StageRecord.from_dict(s) for s in raw.get("stages", [])],
            dict(raw.get("detail", {})),
            Confidence(raw.get("confidence", "none")),
        )

    def render(self) -> str:
        """Human-readable stage dump, used by ``python -m rewards explain``."""
        lines = [f"verdict={self.verdict.value} stage={self.stage} "
                 f"confidence={self.confidence.value}"]
        if self.detail:
            lines.append(f"  detail: {_clip(self.detail)}")
        for s in self.stages:
            mark = {"ok": "+", "fail": "!", "skipped": "-"}.get(s.status, "?")
            lines.append(f"  {mark} {s.stage} ({s.ms:.1f}ms)")
            for key, value in s.data.items():
                lines.append(f"      {key}: {_clip(value)}")
        return "\n".join(lines)


def _clip(value: Any, limit: int = 300) -> str:
    text = safe_text(value)
    if len(text) > limit:
        return text[:limit] + f"... [{len(text)} chars]"
    return text


def _jsonable(value: Any) -> Any:
    """Best-effort conversion of stage data (which may hold SymPy/mpmath
    objects) into plain JSON types, so ``to_dict`` always serializes."""
    if value is None or isinstance(value, (bool, float, str)):
        return value
    if isinstance(value, int):
        # json.dumps of an int past 4300 digits raises like str() does.
        return value if value.bit_length() <= CAPS.printed_int_digits * 3.32 else int_text(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return safe_text(value)


def int_text(n: int) -> str:
    """``n`` in decimal, or ``~d.ddde+N`` past ``CAPS.printed_int_digits`` digits;
    never converts a huge int to a string (which raises past 4300 digits).

    >>> int_text(12345), int_text(-7 * 10**5000)
    ('12345', '-~7.000e+5000')
    """
    n = int(n)
    if n.bit_length() <= CAPS.printed_int_digits * 3.32:
        return str(n)
    # math.log10 takes ints of any size, in time linear in their length.
    size = math.log10(abs(n))
    exponent = math.floor(size)
    return f"{'-' if n < 0 else ''}~{10 ** (size - exponent):.3f}e+{exponent}"


class PrintedOnce:
    """A SymPy printer mixin: each distinct node printed once per printer
    instance (F' repeats its inner functions). For printers where a node's
    text does not depend on where it stands (its parent adds parentheses);
    make one instance per expression, the memo is its own."""

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if kwargs or not isinstance(expr, sp.Basic):
            return super()._print(expr, **kwargs)  # type: ignore[misc]
        memo = self.__dict__.setdefault("_printed", {})
        text = memo.get(expr)
        if text is None:
            text = memo[expr] = self._dispatch(expr)
        return text

    def _dispatch(self, expr: sp.Basic) -> str:
        """``Printer._print``, with the method it picks for this printer and
        type of node kept: its search walks the node's class hierarchy with a
        ``getattr`` per class, a third of printing a derivative."""
        key = (type(self), type(expr))
        name = _PRINT_METHODS.get(key, _UNKNOWN)
        if name is _UNKNOWN:
            name = _PRINT_METHODS[key] = _print_method(self, expr)
        if name is None:
            return super()._print(expr)  # type: ignore[misc]
        self._print_level += 1  # type: ignore[attr-defined]
        try:
            return getattr(self, name)(expr)
        finally:
            self._print_level -= 1  # type: ignore[attr-defined]


_UNKNOWN = object()
# (printer class, node class) -> the _print_ method Printer._print picks for
# them; None where it would not pick one of those (then it runs itself).
_PRINT_METHODS: dict[tuple[type, type], str | None] = {}


def _print_method(printer: Any, expr: sp.Basic) -> str | None:
    """The name of the method ``Printer._print`` (SymPy 1.14) calls for
    ``expr``: the same search, on types alone."""
    if printer.printmethod and hasattr(expr, printer.printmethod):
        return None  # the node prints itself
    classes = type(expr).__mro__
    if AppliedUndef in classes:
        classes = classes[classes.index(AppliedUndef):]
    if UndefinedFunction in classes:
        classes = classes[classes.index(UndefinedFunction):]
    if sp.Function in classes:
        i = classes.index(sp.Function)
        classes = tuple(c for c in classes[:i] if c.__name__ == classes[0].__name__
                        or c.__name__.endswith("Base")) + classes[i:]
    for cls in classes:
        name = "_print_" + cls.__name__
        if getattr(printer, name, None) is not None:
            return name
    return None  # the emptyPrinter


class _BoundedPrinter(PrintedOnce, StrPrinter):
    """SymPy's str printer with every integer through :func:`int_text`, each
    distinct node printed once (:class:`PrintedOnce`)."""

    def _print_Integer(self, expr: sp.Integer) -> str:
        return int_text(expr.p)

    def _print_int(self, expr: int) -> str:
        return int_text(expr)

    def _print_mpz(self, expr: Any) -> str:
        return int_text(int(expr))

    def _print_Rational(self, expr: sp.Rational) -> str:
        if expr.q == 1:
            return int_text(expr.p)
        return f"{int_text(expr.p)}/{int_text(expr.q)}"

    # SymPy's precedence of a product asks could_extract_minus_sign, which
    # builds the negated product to compare it with the product (and
    # parenthesize asks twice): two fifths of printing F'. _precedence gives
    # the same answer from the leading coefficient; sums use it too.
    def parenthesize(self, item: Any, level: int, strict: bool = False) -> str:
        rank = _precedence(item)
        if rank < level or (not strict and rank <= level):
            return f"({self._print(item)})"
        return self._print(item)

    def _print_Mul(self, expr: sp.Mul) -> str:
        # StrPrinter._print_Mul's text for an evaluated product, without the
        # objects it builds to get there (the product without its sign, each
        # 1/b**k as b**k, the coefficient's numerator and denominator as
        # Integers) and with _precedence: those were two thirds of printing
        # a trace. Unevaluated products and the rare factor whose sign-free
        # form SymPy would evaluate differently take SymPy's own path.
        args = expr.args
        head = args[0]
        if (head is sp.S.One or head.is_Mul or not expr.is_commutative
                or any(isinstance(a, sp.Number) or a.is_Mul
                       or a.is_Pow and all(b.is_Integer for b in a.args) for a in args[1:])):
            return super()._print_Mul(expr)
        sign = ""
        factors: tuple[Any, ...] = args
        if head.is_Rational or head.is_Float:
            if _negative_number(head):
                sign, positive, rest = "-", -head, args[1:]
                if positive is sp.S.One:
                    factors = rest
                elif len(rest) == 1 and not (
                        rest[0].is_Add or rest[0].is_Symbol or isinstance(rest[0], sp.Function)
                        or rest[0].is_Pow and not rest[0].base.is_Number):
                    return super()._print_Mul(expr)
                else:
                    factors = (positive, *rest)
        elif head.is_Number:
            return super()._print_Mul(expr)
        level = PRECEDENCE["Mul"]
        numer: list[str] = []
        denom: list[tuple[Any, str]] = []    # (the factor when printed from one, its text)
        bracketed: list[Any] = []
        for item in factors:
            if isinstance(item, sp.Pow) and _negative_number(item.exp.as_coeff_Mul()[0]):
                exp = item.exp
                if exp is sp.S.NegativeOne:
                    if len(item.base.args) != 1 and isinstance(item.base, (sp.Mul, sp.Pow)):
                        bracketed.append(item)   # SymPy issue 14160
                    denom.append((item.base, self.parenthesize(item.base, level)))
                elif exp.is_Rational and not (item.base.is_Rational and item.base.p == 1):
                    denom.append((None, self._rational_power(item.base, -exp)))
                else:
                    return super()._print_Mul(expr)
            elif item.is_Rational:
                if item.p != 1:
                    numer.append(int_text(item.p))
                if item.q != 1:
                    denom.append((None, int_text(item.q)))
            else:
                numer.append(self.parenthesize(item, level))
        shown_denom = [text for _, text in denom]
        for item in bracketed:
            for i, (factor, text) in enumerate(denom):
                if factor is not None and factor == item.base:
                    shown_denom[i] = f"({text})"
                    break
        top = sign + ("*".join(numer) or "1")
        if not shown_denom:
            return top
        if len(shown_denom) == 1:
            return f"{top}/{shown_denom[0]}"
        return f"{top}/({'*'.join(shown_denom)})"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        # StrPrinter._print_Pow's text for a rational exponent, without
        # negating it to test for 1/sqrt and 1/b, and with _precedence.
        exp = expr.exp
        if rational or not exp.is_Rational or not expr.is_commutative:
            return super()._print_Pow(expr, rational)
        if exp.q == 2 and exp.p == -1:
            return f"1/sqrt({self._print(expr.base)})"
        if exp is sp.S.NegativeOne:
            return f"1/{self.parenthesize(expr.base, PRECEDENCE['Pow'])}"
        return self._rational_power(expr.base, exp)

    def _rational_power(self, base: sp.Expr, exp: sp.Rational) -> str:
        """``base**exp`` as StrPrinter writes it for a rational ``exp`` other
        than -1/2 and -1 (a product's denominator factor, or a power)."""
        if exp is sp.S.Half:
            return f"sqrt({self._print(base)})"
        shown = self._print(exp)
        if exp.q != 1 or exp.p < 0:
            shown = f"({shown})"
        return f"{self.parenthesize(base, PRECEDENCE['Pow'])}**{shown}"

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        # StrPrinter._print_Add with _precedence for each term.
        level = _precedence(expr)
        parts: list[str] = []
        for term in self._as_ordered_terms(expr, order=order):
            text = self._print(term)
            sign = "+"
            if text.startswith("-") and not term.is_Add:
                sign, text = "-", text[1:]
            parts.extend([sign, f"({text})" if _precedence(term) < level or term.is_Add
                          else text])
        first = parts.pop(0)
        return ("" if first == "+" else first) + " ".join(parts)


def _negative_number(n: sp.Number) -> bool:
    """``n < 0``; for a rational from ``p``: a fresh number's first
    assumption query deduces all its facts (a third of printing a trace)."""
    return n.p < 0 if n.is_Rational else bool(n.is_extended_negative)


def _precedence(item: Any) -> int:
    """SymPy's ``precedence(item)``, without building ``-item`` for a product:
    a product ranks as a sum when its leading factor is a negative number,
    which is when ``could_extract_minus_sign`` says so, except where
    ``-item == item``: a negative rational followed by zoo, which ``Mul``'s
    negation leaves as it is."""
    if isinstance(item, sp.Mul) and not hasattr(item, "precedence"):
        mul = PRECEDENCE["Mul"]
        if any(isinstance(a, sp.Function) and getattr(a, "precedence", mul) < mul
               for a in item.args):
            return mul
        lead, rest = item.args[0], item.args[1:]
        if not (lead.is_Number and _negative_number(lead)):
            return mul
        if lead.is_Rational and rest and rest[0] is sp.zoo:
            return mul
        return PRECEDENCE["Add"]
    return precedence(item)


_PRINTER_SETTINGS = {"order": "none"}
# What a printer raises on a value it cannot print (an int past the digit
# limit inside an object we do not print ourselves). A time limit firing
# while printing is not among them: it must still end the check.
_PRINT_ERRORS = (ValueError, TypeError, AttributeError, RecursionError)


def safe_text(value: Any) -> str:
    """``str(value)`` for stage data and traces, never raising: SymPy
    objects through the bounded printer, ints by :func:`int_text`, and
    anything whose ``str`` fails by its type name."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int_text(value)
    if isinstance(value, sp.Basic):
        return show(value, 2000)
    try:
        return str(value)
    except _PRINT_ERRORS:
        return f"<{type(value).__name__}>"


def show(expr: sp.Basic, limit: int = 500) -> str:
    """An expression as stage data: bounded, and cheap to print.

    Printing is a tenth of a check's time when every stage prints its whole
    output: a large expression prints only its head and the leading
    arguments that fit in ``limit`` characters.

    >>> x = sp.Symbol("x")
    >>> show(x**2 / 2 + sp.sin(x))
    'x**2/2 + sin(x)'
    >>> len(show(sum(x**k for k in range(400)))) <= 503
    True
    """
    if _nodes_at_most(expr, CAPS.shown_whole_nodes):
        # str() sorts terms, evaluating each numerically (44 s on a sum of
        # constant elliptic_pi terms); the printer with order="none" does not.
        try:
            text = _BoundedPrinter(_PRINTER_SETTINGS).doprint(expr)
        except _PRINT_ERRORS:
            text = f"<{type(expr).__name__}>"
    else:
        joiner = {sp.Add: " + ", sp.Mul: "*"}.get(type(expr))
        parts: list[str] = []
        used = 0
        for arg in expr.args:
            parts.append(show(arg, max(1, limit - used)))
            used += len(parts[-1]) + 3
            if used >= limit:
                break
        inner = (joiner or ", ").join(parts)
        text = inner if joiner else f"{type(expr).__name__}({inner})"
    return text if len(text) <= limit else text[:limit] + "..."


def _nodes_at_most(expr: sp.Basic, cap: int) -> bool:
    stack, seen = [expr], 0
    while stack:
        seen += 1
        if seen > cap:
            return False
        stack.extend(stack.pop().args)
    return True


def ms_since(start: float) -> float:
    """Milliseconds since a ``time.perf_counter()`` reading."""
    return (time.perf_counter() - start) * 1000
