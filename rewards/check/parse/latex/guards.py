"""Limits on what the LaTeX grammar is given and on what it builds: bracket
and script nesting before a call, then every number, power and function of
the tree it returned, before SymPy evaluates anything."""
from __future__ import annotations

import math
import re

import sympy as sp

from ...errors import ParseFailure
from ...limits import ANSWER
from .functions import FN_PREFIX
from .scan import command_at

_INTEGRAL = re.compile(r"\\(?:iiint|iint|int|oint|intop|smallint)(?![A-Za-z])|\u222b")


_SIGN_CHAIN = re.compile(r"[+-](?: ?[+-]){2,}")


def _check_structure(text: str, max_depth: int, whole: bool = False) -> None:
    """Linear pre-parser scan for shapes the ANTLR parser is slow on.

    The grammar's prediction cost grows steeply with nesting (measured:
    ``{`` nested 20 deep at the top level takes ~50 s) and with nested
    superscripts (``x^{x^{...}}`` 12 deep: ~0.5 s each), so we bound bracket
    depth, superscript nesting, the number of braced scripts and of ``|``
    (per call of the grammar; ``whole=True`` scans the whole answer for the
    rest), and reject TeX's "double superscript" (``x^2^3``, ``x^{2}^{3}``).
    """
    if _SIGN_CHAIN.search(text):
        raise ParseFailure("latex_error", "three or more signs in a row")
    n = len(text)
    stack: list[str] = []           # per open bracket: "^" / "_" for a script group, else ""
    script_depth = script_groups = bars = 0
    i = 0
    while i < n:
        c = text[i]
        if c == "\\":
            i = command_at(text, i)[1]
            continue
        if c in "({[":
            stack.append("")
            if len(stack) > max_depth:
                raise ParseFailure("too_deep", f"brackets nested deeper than {max_depth}")
        elif c in ")}]":
            kind = stack.pop() if stack else ""
            if kind:
                script_depth -= 1
                _no_double_script(text, i + 1, kind)
        elif c == "|":
            bars += 1
            if bars > ANSWER.bars and not whole:
                raise ParseFailure("too_deep", f"more than {ANSWER.bars} '|' bars")
        elif c in "^_":
            j = i + 1 + (1 if i + 1 < n and text[i + 1] == " " else 0)
            if j < n and text[j] == "{":
                script_depth += 1
                script_groups += 1
                if script_depth > ANSWER.script_depth:
                    raise ParseFailure("too_deep", f"superscripts nested deeper than "
                                                   f"{ANSWER.script_depth}")
                if script_groups > ANSWER.script_groups and not whole:
                    raise ParseFailure("too_deep", f"more than {ANSWER.script_groups} braced "
                                                   f"superscripts/subscripts")
                stack.append(c)
                if len(stack) > max_depth:
                    raise ParseFailure("too_deep", f"brackets nested deeper than {max_depth}")
                i = j + 1
                continue
            if j < n and text[j] == "\\":
                end = command_at(text, j)[1]
            else:
                end = j + 1
            _no_double_script(text, end, c)
            i = end
            continue
        i += 1


def _no_double_script(text: str, after: int, kind: str) -> None:
    """TeX rejects x^a^b (x_1^2 is fine); the parser nests such chains deeply."""
    j = after + (1 if after < len(text) and text[after] == " " else 0)
    if j < len(text) and text[j] == kind:
        raise ParseFailure("latex_error", "double superscript or subscript")




_NOT_ANSWERS = (sp.Limit, sp.Sum, sp.Product, sp.Order)
_BIG_ARG_FUNCS = (sp.factorial, sp.factorial2, sp.subfactorial, sp.gamma, sp.binomial,
                  sp.RisingFactorial, sp.FallingFactorial, sp.loggamma)


def _number_bits(e: sp.Basic) -> float:
    if e.is_Integer:
        return float(abs(int(e.p)).bit_length() + 1)
    if e.is_Rational:
        return float(abs(int(e.p)).bit_length() + int(e.q).bit_length())
    if e.is_Float:
        # A float's size is its magnitude (exp + bc is about log2|e|); its
        # precision is fixed and does not grow when it is evaluated.
        _sign, _man, exp, bc = e._mpf_ if len(e._mpf_) == 4 else (0, 0, 0, 0)
        return float(abs(exp + bc) + 2)
    return 2.0


def _const_abs(e: sp.Expr, bits: float, what: str) -> float:
    """|value| of a constant subtree whose size is already bounded."""
    if e.is_Number:
        if e.is_finite is False or e is sp.nan:
            raise ParseFailure(what, f"{e} is not a finite number")
        if e.is_Rational:
            return float(min(abs(e), sp.Integer(10) ** 9))
        return abs(float(e))
    if bits > 64:
        raise ParseFailure(what, "constant too large to be an exponent or argument")
    try:
        value = complex(sp.N(e, 15))
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ParseFailure(what, f"cannot bound {e}: {exc}") from None
    mag = abs(value)
    if not math.isfinite(mag):
        raise ParseFailure(what, f"{e} is not finite")
    return mag


class _Guard:
    """What the tree walk needs to know: the variable, the exponent bound."""

    def __init__(self, symbol: str, max_exponent: int) -> None:
        self.symbol = symbol
        self.max_exponent = max_exponent

    def exponent_limit(self, base: sp.Basic) -> int:
        """Largest |n| for base^n, base not constant: large for a function of
        the variable alone (SymPy never expands (1-x)^{2015} by itself),
        small when the base holds any other letter."""
        names = {s.name for s in base.free_symbols if not _is_stand_in(s.name)}
        if self.symbol != "e":
            names.discard("e")
        if names <= {self.symbol}:
            return self.max_exponent
        if names & {"i", "I"}:
            return ANSWER.complex_exponent
        return ANSWER.symbolic_exponent


def _is_stand_in(name: str) -> bool:
    return name.startswith(FN_PREFIX)


def _inspect(e: sp.Basic, total: list[float], guard: _Guard | None = None) -> float | None:
    """Walk the unevaluated tree; return a size bound (bits) if constant.

    Raises on things that are not answers or that would explode when
    evaluated. Nothing here evaluates a subtree that was not bounded first.
    ``total[0]`` accumulates the sizes of all maximal constant subtrees:
    evaluation may multiply them together (``10^{999} \\cdot 10^{999} ...``).
    A power of a number is bounded by the size of the number it makes; a
    power of an expression in the variable by ``guard.exponent_limit``.
    """
    guard = guard or _Guard("x", ANSWER.exponent)
    if isinstance(e, sp.Integral):
        raise ParseFailure("echoed_integral", "answer contains an unevaluated integral")
    if isinstance(e, _NOT_ANSWERS):
        raise ParseFailure("not_an_expression", f"{type(e).__name__} is not an antiderivative")
    if not isinstance(e, sp.Expr) or isinstance(e, sp.MatrixExpr):
        raise ParseFailure("not_an_expression", f"{type(e).__name__} inside the expression")
    if e.is_Atom:
        if e.is_Number:
            bits = _number_bits(e)
            if bits > ANSWER.const_bits:
                raise ParseFailure("number_too_large", "a number is too large")
            return bits
        if isinstance(e, sp.Symbol):
            return None
        return 2.0                      # pi, E, oo, I, ...
    child = [_inspect(a, total, guard) for a in e.args]
    constant = all(c is not None for c in child)
    bits: float | None = None
    if isinstance(e, (sp.Pow, sp.exp)):
        if isinstance(e, sp.Pow):
            base, base_bits, exp_node, exp_bits = e.args[0], child[0], e.args[1], child[1]
        else:
            base, base_bits, exp_node, exp_bits = sp.E, 2.0, e.args[0], child[0]
        if exp_bits is not None:
            power = _const_abs(exp_node, exp_bits, "exponent_too_large")
            if base_bits is None:
                limit = guard.exponent_limit(base)
                if power > limit:
                    raise ParseFailure("exponent_too_large",
                                       f"exponent {power:.4g} of an expression (limit {limit})")
            else:
                plain_e = base is sp.E and not exp_node.atoms(sp.Function)
                # 10^{-1423}: an integer power of a rational is the number it
                # makes, bounded below by const_bits like any literal.
                exact = base.is_Rational and exp_node.is_Integer
                limit = ANSWER.e_exponent if plain_e else ANSWER.constant_exponent
                if power > limit and not exact:
                    raise ParseFailure("exponent_too_large", f"exponent {power:.4g} of a "
                                       f"constant (limit {limit})")
                if base_bits > ANSWER.root_base_bits and not exp_node.is_Integer:
                    raise ParseFailure("number_too_large", "non-integer power of a huge constant")
        if constant:
            bits = (base_bits or 2.0) * max(1.0, power or 1.0) + 2.0
    elif isinstance(e, _BIG_ARG_FUNCS):
        biggest = 1.0
        for arg, b in zip(e.args, child, strict=True):
            if b is not None:
                n = _const_abs(arg, b, "number_too_large")
                if n > ANSWER.factorial_arg:
                    raise ParseFailure("number_too_large",
                                       f"{type(e).__name__} of {n:.4g}")
                biggest = max(biggest, n)
        if constant:
            # n! has about n log2 n bits; binomial(n, k) at most n (it is
            # below 2^n), so a polynomial written as a binomial sum stays cheap.
            grows = 1.0 if isinstance(e, sp.binomial) else max(1.0, math.log2(biggest))
            bits = sum(child) + biggest * grows + 2.0
    elif constant:
        bits = sum(child) + len(child)
    if bits is not None and bits > ANSWER.const_bits:
        raise ParseFailure("number_too_large", "a constant is too large")
    if not constant:
        total[0] += sum(b for b in child if b is not None)
        if total[0] > ANSWER.const_bits:
            raise ParseFailure("number_too_large", "the constants are too large together")
    return bits


def _is_constant_term(term: sp.Basic, symbol: str) -> bool:
    """No letter in it but Euler's e (the stand-ins name functions)."""
    names = {s.name for s in term.free_symbols if not _is_stand_in(s.name)}
    if symbol != "e":
        names.discard("e")
    return not names


def _droppable(term: sp.Basic, symbol: str) -> bool:
    """A constant term that may be too large because of what evaluating it
    makes (a power or exp of readable numbers), not because a literal in it
    is too large to read (a 5000-digit number is refused)."""
    if not _is_constant_term(term, symbol) or not term.has(sp.Pow, sp.exp):
        return False
    for atom in term.atoms(sp.Number):
        if _number_bits(atom) > ANSWER.const_bits:
            return False
    return True


_ANSWER_CONST_BITS = 4 * ANSWER.const_bits


def _inspect_terms(terms: list[sp.Basic], guard: _Guard, drop_huge_constants: bool,
                   rules: list[str] | None) -> list[sp.Basic]:
    """Inspect each top-level term; drop the additive constants too large
    to evaluate when the answer has other terms in the variable (they
    vanish under d/dx, so nothing is lost; a bare huge constant is
    refused). Returns the terms kept."""
    # The constants of one term may be multiplied together when it is
    # evaluated (10^{999} \cdot 10^{999} ...): ANSWER.const_bits per term. Terms
    # are only added, which costs their sizes summed: four times that in all.
    answer_total = 0.0
    total = [0.0]
    kept: list[sp.Basic] = []
    dropped = 0
    failure: ParseFailure | None = None
    for term in terms:
        answer_total += total[0]
        if answer_total > _ANSWER_CONST_BITS:
            raise ParseFailure("number_too_large", "the constants are too large together")
        total = [0.0]
        if drop_huge_constants and _droppable(term, guard.symbol):
            scratch = [total[0]]
            try:
                bits = _inspect(term, scratch, guard)
            except ParseFailure as exc:
                if exc.reason not in ("number_too_large", "exponent_too_large"):
                    raise
                dropped += 1
                failure = failure or exc
                continue
            total[0] = scratch[0] + (bits or 0.0)
            if total[0] > ANSWER.const_bits:
                raise ParseFailure("number_too_large", "the constants are too large together")
        else:
            bits = _inspect(term, total, guard)
            if bits is not None:
                total[0] += bits
                if total[0] > ANSWER.const_bits:
                    raise ParseFailure("number_too_large",
                                       "the constants are too large together")
        kept.append(term)
    if answer_total + total[0] > _ANSWER_CONST_BITS:
        raise ParseFailure("number_too_large", "the constants are too large together")
    if dropped:
        if not any(not _is_constant_term(t, guard.symbol) for t in kept):
            assert failure is not None
            raise failure
        if rules is not None:
            rules.append("huge_constant_dropped")
    return kept


# --- long sums: split at top-level + and - ---------------------------------

