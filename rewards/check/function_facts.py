"""What the checker knows about each SymPy function, in one table.

The registry: one :class:`Function` entry per function in
:data:`REGISTRY`, read by both parsers (how it is spelled in LaTeX and in
SymPy text, with which arities), the evidence and the proofs (what it is).
Adding a function is one entry here plus a row in
``tests/test_function_registry.py``; every other table is a view.

Sampling, the domain reader, the numeric comparison, the proofs and both
parsers ask the same questions of a function: is it analytic (may it be
compared at complex points)? real wherever it is finite? where is it real,
and how is it evaluated there in real analysis? is it a step function?
does it have branch cuts? which inverse does ``f^{-1}`` name? where can it
kink, jump, blow up or stop being real? Each answer lives in the entry's
:class:`Facts` record; :data:`FACTS` and the tuples below are views of them.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import mpmath as mp
import sympy as sp

from .limits import ANSWER

# What a breakpoint is to the expression around it: a kink or a jump
# (KINK), a point where it blows up or is undefined (POLE), or where it
# starts or stops being real (BOUNDARY).
KINK, POLE, BOUNDARY = "kink", "pole", "boundary"
Breaks = Callable[[tuple[sp.Basic, ...]], Iterable[tuple[sp.Expr, str]]]


@dataclass(frozen=True)
class Facts:
    """One function's entry.

    Attributes:
        family: circular | hyperbolic | inverse_circular | inverse_hyperbolic
            | exp_log | step | non_analytic | special.
        analytic: holomorphic where defined, so F' = f may be tested at
            complex points (``|x|``, ``sign``, ``floor`` are not: for complex
            z, ``sign(z)/|z|`` is ``1/conj(z)``, not ``1/z``).
        real_where_finite: real at every real argument where its value is
            finite (``tan`` yes, ``log`` no): an answer built only from these
            restricts no domain.
        real_domain: where a real argument gives a real value (``None``:
            everywhere it is finite).
        mpmath: its value at a real argument, for the domain reader.
        step: piecewise constant (or piecewise, like ``Min``): evaluated
            exactly by the domain reader, never differentiated as smooth.
        inverse: the function ``f^{-1}`` names (``\\sin^{-1} = \\arcsin``).
        grows_fast: exponential growth: a huge real argument is a value too
            large to hold, not an undefined one.
        bounded: bounded on the real line, so where its argument has a pole
            it may jump by a finite amount (``\\arctan(\\tan(x/2))`` at pi).
        breaks: the expressions whose real zeros are its breakpoints, with
            their kind, given its arguments.
        cut: where its principal branch jumps: ``(part, on_cut)``, the part
            of the argument (``"im"`` or ``"re"``) that changes sign where
            the argument crosses the branch cut, and whether a value of the
            argument with that part 0 lies on the cut (``\\ln w``: the
            imaginary part, with ``Re w < 0``).
        log_form: the function of ``u`` as logarithms and radicals, equal to
            SymPy's principal value at every real ``u`` where it is real, on
            both sides of +-1 (the normal-form proof's rewrite of inverse
            functions; tests/test_normal_form.py checks each one).
    """

    family: str
    analytic: bool = True
    real_where_finite: bool = False
    real_domain: Callable[[Any], bool] | None = None
    mpmath: Callable[..., Any] | None = None
    step: bool = False
    inverse: type | None = None
    grows_fast: bool = False
    bounded: bool = False
    breaks: Breaks | None = None
    cut: tuple[str, Callable[[Any], bool]] | None = None
    log_form: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Order:
    r"""An integer order written before the argument: ``polylog(3, x)``.

    Attributes:
        bound: the largest numeric order either parser builds: SymPy expands
            a function of a larger one into O(n) terms with big coefficients
            (``uppergamma(1000, x)`` takes seconds).
        subscript: the LaTeX name that carries the order as a subscript
            (``\operatorname{Li}_3(x)``); its SymPy-text calls are then read
            in LaTeX too, order first (``\operatorname{polylog}(3, x)``).
            None where LaTeX has no such spelling (or a notation of its own,
            ``E_2(x)``, read with the hand-written calls).
    """

    bound: int = ANSWER.special_order
    subscript: str | None = None


# A SymPy-text arity tuple ending in ``...`` is variadic: up to the text
# parser's own bound on the number of arguments.
Arities = tuple[Any, ...]


@dataclass(frozen=True)
class Function:
    """One function of the registry: how answers spell it and what it is.

    Attributes:
        cls: its SymPy class; ``cls.__name__`` is the canonical name the
            LaTeX parser writes into its stand-ins.
        names: one-argument spellings both parsers read (``arcsinh``,
            ``sgn``): a LaTeX command, operator name or bare word, and a
            SymPy-text call.
        text: SymPy-text calls with their own arities (``Max`` takes one
            argument or more, ``max`` two or more); the text parser builds
            them with its guarded constructor of that name where it has one.
        latex_letter: the capital letter sympy.latex prints it as
            (``W\\left(x\\right)``).
        latex_call: the LaTeX reader of hand-written calls (``W_{-1}(x)``,
            ``\\max(a, b)``, elliptic and incomplete gamma calls) builds it by
            its canonical name.
        slow_growth: grows at most like a logarithm, or is bounded: the text
            parser lets its constant arguments be large (``log(10**50)`` is
            harmless, ``sinh(10**50)`` is not).
        order: its first argument is an integer order (:class:`Order`).
        facts: what the checker knows about it; None for functions only the
            parsers read.
    """

    cls: type
    names: tuple[str, ...] = ()
    text: tuple[tuple[str, Arities], ...] = ()
    latex_letter: str | None = None
    latex_call: bool = False
    slow_growth: bool = False
    order: Order | None = None
    facts: Facts | None = None


def _in(lo: Any, hi: Any) -> Callable[[Any], bool]:
    return lambda u: lo <= u <= hi


def _at(kind: str) -> Breaks:
    return lambda args: [(args[0], kind)]


def _unit_bounds(args: tuple[sp.Basic, ...]) -> list[tuple[sp.Expr, str]]:
    return [(args[0] - 1, BOUNDARY), (args[0] + 1, BOUNDARY)]


# Branch cuts of the principal branches (SymPy's and mpmath's): on the real
# axis outside [-1, 1] (asin, acos, atanh), inside it (acoth, asec, acsc),
# below 0 (log, powers) or 1 (acosh); on the imaginary axis beyond +-i (atan,
# asinh) or between them (acot, acsch).
_CUT_OUTSIDE_UNIT = ("im", lambda w: abs(w.real) > 1)
_CUT_INSIDE_UNIT = ("im", lambda w: abs(w.real) < 1)
_CUT_NEGATIVE = ("im", lambda w: w.real < 0)
_CUT_IMAGINARY_OUTSIDE = ("re", lambda w: abs(w.imag) > 1)
_CUT_IMAGINARY_INSIDE = ("re", lambda w: abs(w.imag) < 1)


def _integer_steps(args: tuple[sp.Basic, ...]) -> list[tuple[sp.Expr, str]]:
    # Jumps where the argument crosses an integer: the ones nearest the
    # origin's values matter most.
    return [(args[0] - k, KINK) for k in range(-6, 7)]


def _pairwise(args: tuple[sp.Basic, ...]) -> list[tuple[sp.Expr, str]]:
    return [(a - b, KINK) for i, a in enumerate(args) for b in args[i + 1:]]


def _heaviside(u: Any, *_: Any) -> Any:
    # SymPy's Heaviside(0) is 1/2.
    return mp.mpf(1) if u > 0 else mp.mpf(0) if u < 0 else mp.mpf(0.5)


REGISTRY: tuple[Function, ...] = (
    # --- circular and hyperbolic: entire or meromorphic, real on the line -------
    Function(sp.sin, ("sin",),
             facts=Facts("circular", real_where_finite=True, mpmath=mp.sin, inverse=sp.asin, bounded=True)),
    Function(sp.cos, ("cos",),
             facts=Facts("circular", real_where_finite=True, mpmath=mp.cos, inverse=sp.acos, bounded=True)),
    Function(sp.tan, ("tan", "tg"),
             facts=Facts("circular", real_where_finite=True, real_domain=lambda u: mp.cos(u) != 0,
                         mpmath=mp.tan, inverse=sp.atan,
                         breaks=lambda args: [(sp.cos(args[0]), POLE)])),
    Function(sp.cot, ("cot", "ctg", "cotg"),
             facts=Facts("circular", real_where_finite=True, real_domain=lambda u: mp.sin(u) != 0,
                         mpmath=mp.cot, inverse=sp.acot,
                         breaks=lambda args: [(sp.sin(args[0]), POLE)])),
    Function(sp.sec, ("sec",),
             facts=Facts("circular", real_where_finite=True, real_domain=lambda u: mp.cos(u) != 0,
                         mpmath=mp.sec, inverse=sp.asec,
                         breaks=lambda args: [(sp.cos(args[0]), POLE)])),
    Function(sp.csc, ("csc", "cosec"),
             facts=Facts("circular", real_where_finite=True, real_domain=lambda u: mp.sin(u) != 0,
                         mpmath=mp.csc, inverse=sp.acsc,
                         breaks=lambda args: [(sp.sin(args[0]), POLE)])),
    Function(sp.sinh, ("sinh",),
             facts=Facts("hyperbolic", real_where_finite=True, mpmath=mp.sinh, inverse=sp.asinh,
                         grows_fast=True)),
    Function(sp.cosh, ("cosh",),
             facts=Facts("hyperbolic", real_where_finite=True, mpmath=mp.cosh, inverse=sp.acosh,
                         grows_fast=True)),
    Function(sp.tanh, ("tanh",),
             facts=Facts("hyperbolic", real_where_finite=True, mpmath=mp.tanh, inverse=sp.atanh, bounded=True)),
    Function(sp.coth, ("coth",),
             facts=Facts("hyperbolic", real_where_finite=True, real_domain=lambda u: u != 0,
                         mpmath=mp.coth, inverse=sp.acoth, breaks=_at(POLE))),
    Function(sp.sech, ("sech",),
             facts=Facts("hyperbolic", real_where_finite=True, mpmath=mp.sech, inverse=sp.asech, bounded=True)),
    Function(sp.csch, ("csch", "cosech"),
             facts=Facts("hyperbolic", real_where_finite=True, real_domain=lambda u: u != 0,
                         mpmath=mp.csch, inverse=sp.acsch, breaks=_at(POLE))),
    # --- inverses: real on part of the line, branch cuts off it ----------------
    Function(sp.asin, ("asin", "arcsin"),
             facts=Facts("inverse_circular", real_domain=_in(-1, 1), mpmath=mp.asin, log_form=lambda u: -sp.I * sp.log(sp.I * u + sp.sqrt(1 - u ** 2)),
                         cut=_CUT_OUTSIDE_UNIT,
                         breaks=_unit_bounds)),
    Function(sp.acos, ("acos", "arccos"),
             facts=Facts("inverse_circular", real_domain=_in(-1, 1), mpmath=mp.acos, log_form=lambda u: sp.pi / 2 + sp.I * sp.log(sp.I * u + sp.sqrt(1 - u ** 2)),
                         cut=_CUT_OUTSIDE_UNIT,
                         breaks=_unit_bounds)),
    Function(sp.atan, ("atan", "arctan", "arctg"), slow_growth=True,
             facts=Facts("inverse_circular", real_where_finite=True, mpmath=mp.atan, log_form=lambda u: sp.I / 2 * (sp.log(1 - sp.I * u) - sp.log(1 + sp.I * u)), bounded=True,
                         cut=_CUT_IMAGINARY_OUTSIDE)),
    # SymPy's acot is odd (acot(-u) = -acot(u), as in Mathematica and
    # mpmath): it jumps from -pi/2 to pi/2 where its argument crosses 0, and
    # is continuous across a pole of it (acot(1/x) = atan(x)). The checker
    # reads the function it parsed, so both the value and the jump are its.
    Function(sp.acot, ("acot", "arccot"), slow_growth=True,
             facts=Facts("inverse_circular", real_where_finite=True,
                         mpmath=mp.acot, log_form=lambda u: sp.I / 2 * (sp.log(1 - sp.I / u) - sp.log(1 + sp.I / u)), bounded=True,
                         cut=_CUT_IMAGINARY_INSIDE, breaks=_at(KINK))),
    Function(sp.asec, ("asec", "arcsec"),
             facts=Facts("inverse_circular", real_domain=lambda u: abs(u) >= 1, mpmath=mp.asec, log_form=lambda u: sp.pi / 2 + sp.I * sp.log(sp.I / u + sp.sqrt(1 - 1 / u ** 2)),
                         cut=_CUT_INSIDE_UNIT, breaks=lambda args: [*_unit_bounds(args), (args[0], POLE)])),
    Function(sp.acsc, ("acsc", "arccsc"),
             facts=Facts("inverse_circular", real_domain=lambda u: abs(u) >= 1, mpmath=mp.acsc, log_form=lambda u: -sp.I * sp.log(sp.I / u + sp.sqrt(1 - 1 / u ** 2)),
                         cut=_CUT_INSIDE_UNIT, breaks=lambda args: [*_unit_bounds(args), (args[0], POLE)])),
    Function(sp.asinh, ("asinh", "arcsinh", "arsinh", "argsinh"), slow_growth=True,
             facts=Facts("inverse_hyperbolic", real_where_finite=True, mpmath=mp.asinh, log_form=lambda u: sp.log(u + sp.sqrt(u ** 2 + 1)),
                         cut=_CUT_IMAGINARY_OUTSIDE)),
    Function(sp.acosh, ("acosh", "arccosh", "arcosh", "argcosh"),
             facts=Facts("inverse_hyperbolic", real_domain=lambda u: u >= 1, mpmath=mp.acosh, log_form=lambda u: sp.log(u + sp.sqrt(u + 1) * sp.sqrt(u - 1)),
                         cut=("im", lambda w: w.real < 1), breaks=lambda args: [(args[0] - 1, BOUNDARY)])),
    Function(sp.atanh, ("atanh", "arctanh", "artanh", "argtanh"),
             facts=Facts("inverse_hyperbolic", real_domain=lambda u: abs(u) < 1, mpmath=mp.atanh, log_form=lambda u: (sp.log(1 + u) - sp.log(1 - u)) / 2,
                         cut=_CUT_OUTSIDE_UNIT, breaks=_unit_bounds)),
    Function(sp.acoth, ("acoth", "arccoth", "arcoth"),
             facts=Facts("inverse_hyperbolic", real_domain=lambda u: abs(u) > 1, mpmath=mp.acoth, log_form=lambda u: (sp.log(1 + 1 / u) - sp.log(1 - 1 / u)) / 2,
                         cut=_CUT_INSIDE_UNIT, breaks=lambda args: [*_unit_bounds(args), (args[0], POLE)])),
    Function(sp.asech, ("asech", "arcsech", "arsech"),
             facts=Facts("inverse_hyperbolic", real_domain=lambda u: 0 < u <= 1, mpmath=mp.asech,
                         cut=("im", lambda w: w.real < 0 or w.real > 1),
                         breaks=lambda args: [(args[0], POLE), (args[0] - 1, BOUNDARY)])),
    Function(sp.acsch, ("acsch", "arccsch", "arcsch", "arcosech"),
             facts=Facts("inverse_hyperbolic", real_domain=lambda u: u != 0, mpmath=mp.acsch,
                         cut=_CUT_IMAGINARY_INSIDE, breaks=_at(POLE))),
    # --- exp, log and powers ----------------------------------------------------
    Function(sp.exp, text=(("exp", (1,)),),
             facts=Facts("exp_log", real_where_finite=True, mpmath=mp.exp, grows_fast=True)),
    Function(sp.log, text=(("log", (1, 2)), ("ln", (1,)), ("log10", (1,)), ("log2", (1,))), slow_growth=True,
             facts=Facts("exp_log", real_domain=lambda u: u > 0, mpmath=mp.log,
                         cut=_CUT_NEGATIVE,
                         breaks=_at(POLE))),
    # Pow's breakpoints depend on its exponent: see breakpoint_arguments.
    Function(sp.Pow, text=(("sqrt", (1,)), ("cbrt", (1,)), ("root", (2,))),
             facts=Facts("exp_log", cut=_CUT_NEGATIVE)),
    # --- not analytic: kinks, jumps and pieces ----------------------------------
    Function(sp.Abs, text=(("Abs", (1,)), ("abs", (1,))), slow_growth=True,
             facts=Facts("non_analytic", analytic=False, real_where_finite=True, mpmath=abs,
                         breaks=_at(KINK))),
    Function(sp.sign, ("sign", "sgn"), slow_growth=True,
             facts=Facts("step", analytic=False, real_where_finite=True, mpmath=mp.sign, step=True,
                         breaks=_at(KINK))),
    Function(sp.Heaviside, text=(("Heaviside", (1, 2)),), latex_call=True, slow_growth=True,
             facts=Facts("step", analytic=False, real_where_finite=True, mpmath=_heaviside,
                         step=True, breaks=_at(KINK))),
    Function(sp.floor, ("floor",),
             facts=Facts("step", analytic=False, real_where_finite=True, mpmath=mp.floor,
                         step=True, breaks=_integer_steps)),
    Function(sp.ceiling, ("ceiling", "ceil"),
             facts=Facts("step", analytic=False, real_where_finite=True, mpmath=mp.ceil,
                         step=True, breaks=_integer_steps)),
    Function(sp.frac, text=(("frac", (1,)),), latex_call=True,
             facts=Facts("step", analytic=False, real_where_finite=True,
                         mpmath=lambda u: u - mp.floor(u), step=True, breaks=_integer_steps)),
    Function(sp.Min, text=(("Min", (1, ...)), ("min", (2, ...))), latex_call=True,
             facts=Facts("step", analytic=False, real_where_finite=True,
                         mpmath=lambda *args: min(args), step=True, breaks=_pairwise)),
    Function(sp.Max, text=(("Max", (1, ...)), ("max", (2, ...))), latex_call=True,
             facts=Facts("step", analytic=False, real_where_finite=True,
                         mpmath=lambda *args: max(args), step=True, breaks=_pairwise)),
    # Piecewise is evaluated piece by piece; its breakpoints are its conditions'.
    Function(sp.Piecewise,
             facts=Facts("step", analytic=False, real_where_finite=True)),
    Function(sp.re,
             facts=Facts("non_analytic", analytic=False, breaks=_at(KINK))),
    Function(sp.im,
             facts=Facts("non_analytic", analytic=False, breaks=_at(KINK))),
    Function(sp.arg,
             facts=Facts("non_analytic", analytic=False, breaks=_at(KINK))),
    Function(sp.conjugate,
             facts=Facts("non_analytic", analytic=False)),
    # --- special functions real and finite on the whole line --------------------
    Function(sp.erf, ("erf",),
             facts=Facts("special", real_where_finite=True, bounded=True)),
    Function(sp.erfc, ("erfc",),
             facts=Facts("special", real_where_finite=True, bounded=True)),
    Function(sp.erfi, ("erfi",),
             facts=Facts("special", real_where_finite=True)),
    Function(sp.Si, ("Si",),
             facts=Facts("special", real_where_finite=True, bounded=True)),
    Function(sp.Shi, ("Shi",),
             facts=Facts("special", real_where_finite=True)),
    Function(sp.fresnels, ("fresnels",), latex_letter="S", latex_call=True,
             facts=Facts("special", real_where_finite=True, bounded=True)),
    Function(sp.fresnelc, ("fresnelc",), latex_letter="C", latex_call=True,
             facts=Facts("special", real_where_finite=True, bounded=True)),
    # --- read by the parsers only: no fact of the checker depends on them -------
    Function(sp.Ei, ("Ei",)),
    Function(sp.li, ("li",)),
    Function(sp.Li, ("Li",)),
    Function(sp.Ci, ("Ci",)),
    Function(sp.Chi, ("Chi",)),
    # W_{-1}(x) is LambertW(x, -1).
    Function(sp.LambertW, ("LambertW",), text=(("LambertW", (1, 2)),), latex_letter="W",
             latex_call=True, slow_growth=True),
    Function(sp.atan2, text=(("atan2", (2,)),), slow_growth=True),
    Function(sp.gamma, text=(("gamma", (1,)),)),
    Function(sp.factorial, text=(("factorial", (1,)),)),
    Function(sp.uppergamma, text=(("uppergamma", (2,)),), latex_call=True, order=Order()),
    Function(sp.lowergamma, text=(("lowergamma", (2,)),), latex_call=True, order=Order()),
    # Li_s(z): \operatorname{Li}_3(x) (Li alone is the offset logarithmic integral).
    Function(sp.polylog, text=(("polylog", (2,)),), order=Order(subscript="Li")),
    # 2-argument (Hurwitz) zeta is left out: zeta(50, 1000) sums 999 huge
    # rationals (seconds) and never appears in elementary antiderivatives.
    Function(sp.zeta, text=(("zeta", (1,)),), order=Order()),
    # The exponential integral E_n(x), and E1 for E_1.
    Function(sp.expint, text=(("expint", (2,)), ("E1", (1,))), latex_call=True, order=Order()),
    Function(sp.elliptic_k, text=(("elliptic_k", (1,)),), latex_call=True),
    Function(sp.elliptic_f, text=(("elliptic_f", (2,)),), latex_call=True),
    Function(sp.elliptic_e, text=(("elliptic_e", (1, 2)),), latex_call=True),
    Function(sp.elliptic_pi, text=(("elliptic_pi", (2, 3)),), latex_call=True),
)


# --- views of the registry ---------------------------------------------------
FACTS: dict[type, Facts] = {f.cls: f.facts for f in REGISTRY if f.facts is not None}
# Every one-argument spelling both parsers share -> its SymPy class.
SPELLINGS: dict[str, type] = {name: f.cls for f in REGISTRY for name in f.names}
# SymPy-text calls with their own arities -> (class, arities).
TEXT_CALLS: dict[str, tuple[type, Arities]] = {
    name: (f.cls, arities) for f in REGISTRY for name, arities in f.text}
# The letter sympy.latex prints a function as -> its canonical name.
LATEX_LETTERS: dict[str, str] = {f.latex_letter: f.cls.__name__ for f in REGISTRY
                                 if f.latex_letter}
# Canonical name -> class, for the LaTeX reader of hand-written calls.
LATEX_CALLS: dict[str, type] = {f.cls.__name__: f.cls for f in REGISTRY if f.latex_call}
# Functions whose first argument is an integer order -> what bounds it.
ORDERS: dict[type, Order] = {f.cls: f.order for f in REGISTRY if f.order is not None}
# LaTeX names that carry an order as a subscript (Li_3) -> the function.
ORDER_SUBSCRIPTS: dict[str, type] = {f.order.subscript: f.cls for f in REGISTRY
                                     if f.order is not None and f.order.subscript}
# SymPy-text calls of those functions, which LaTeX reads order first too.
ORDER_CALLS: dict[str, type] = {name: f.cls for f in REGISTRY
                                if f.order is not None and f.order.subscript for name, _ in f.text}
# Every spelling, in either syntax, of a function that grows slowly.
SLOW_GROWTH_NAMES = frozenset(name for f in REGISTRY if f.slow_growth
                              for name in (*f.names, *(n for n, _ in f.text)))


def _of(test: Callable[[Facts], bool]) -> tuple[type, ...]:
    return tuple(f for f, facts in FACTS.items() if test(facts))


# Views, for isinstance and expr.has.
CIRCULAR = _of(lambda k: k.family == "circular")
HYPERBOLIC = _of(lambda k: k.family == "hyperbolic")
TRIG = CIRCULAR + HYPERBOLIC
INVERSE_TRIG = _of(lambda k: k.family in ("inverse_circular", "inverse_hyperbolic"))
NON_ANALYTIC = _of(lambda k: not k.analytic)
REAL_WHERE_FINITE = _of(lambda k: k.real_where_finite)
STEP = _of(lambda k: k.step)
GROWS_FAST = _of(lambda k: k.grows_fast)
BOUNDED = _of(lambda k: k.bounded)
# Meromorphic in the whole plane (the registry's "entire or meromorphic"
# families, and exp): see may_branch.
SINGLE_VALUED = (*CIRCULAR, *HYPERBOLIC, sp.exp)
# The inverse each f^{-1} names, by SymPy class.
INVERSE_OF: dict[type, type] = {f: k.inverse for f, k in FACTS.items() if k.inverse}


def breakpoint_arguments(expr: sp.Basic, deep: bool = True) -> Iterable[tuple[sp.Expr, str]]:
    """Expressions whose real zeros are where ``expr`` may kink or jump
    (KINK), blow up or stop being defined at a point (POLE: a logarithm's
    argument, a denominator), or start or stop being real (BOUNDARY: a
    radicand, an inverse function's domain bound). ``deep=False``: those of
    the node ``expr`` itself, not of its arguments."""
    for node in sp.preorder_traversal(expr) if deep else (expr,):
        if isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                yield from ((g, KINK) for g in _condition_boundaries(cond))
        elif isinstance(node, sp.Pow):
            base, exponent = node.args
            if exponent.is_Integer and exponent < 0:
                yield base, POLE
            elif not exponent.is_Integer:
                # A radicand's sign; a negative or symbolic power may also blow up.
                yield base, POLE if exponent.is_negative else BOUNDARY
        else:
            facts = FACTS.get(type(node))
            if facts is not None and facts.breaks is not None:
                yield from facts.breaks(node.args)


def may_branch(expr: sp.Basic) -> bool:
    """False when ``expr`` is built only from SINGLE_VALUED functions,
    integer powers, sums, products, symbols and constants: then it is
    single-valued, and where it differs from another such expression at
    complex points the two differ on the real line too (the identity
    theorem), so no branch choice can explain the difference. Anything else
    (a root, a logarithm, an inverse function, a special function) may.
    Cached per node (:func:`_branching`): a check asks it of F' and f at each
    turn of the screen, and a group's answers share f and their terms."""
    return _branching(expr)[0]


@functools.lru_cache(maxsize=8192)
def _branching(expr: sp.Basic) -> tuple[bool, bool]:
    """(may_branch, has a free symbol), in one walk: the free symbols of a
    sum, product, power or single-valued function are its arguments' (none
    binds a variable), so they are not gathered again at every level."""
    if expr.is_Add or expr.is_Mul or isinstance(expr, SINGLE_VALUED) or expr.is_Pow:
        parts = [_branching(a) for a in expr.args]
        if not any(free for _, free in parts):
            return False, False
        if expr.is_Pow and not isinstance(expr, SINGLE_VALUED):
            return not expr.exp.is_Integer or parts[0][0], True
        return any(branches for branches, _ in parts), True
    free = bool(expr.free_symbols)
    return free and not expr.is_Symbol, free


def cut_arguments(expr: sp.Basic) -> Iterable[tuple[sp.Expr, str, Callable[[Any], bool]]]:
    """``(u, part, on_cut)`` for each node of ``expr`` with a branch cut:
    ``expr`` may jump where ``part`` of its argument ``u`` changes sign at a
    value ``on_cut`` accepts (a complex ``\\ln\\frac{x - 2i}{x + 2i}`` at 0).
    A power is cut only when its exponent is not an integer."""
    for node in sp.preorder_traversal(expr):
        facts = FACTS.get(type(node))
        if facts is None or facts.cut is None or not node.args:
            continue
        if isinstance(node, sp.Pow) and node.exp.is_Integer:
            continue
        yield (node.args[0], *facts.cut)


def _condition_boundaries(cond: sp.Basic) -> Iterable[sp.Expr]:
    if isinstance(cond, sp.core.relational.Relational):
        yield cond.lhs - cond.rhs
    elif isinstance(cond, (sp.And, sp.Or, sp.Not)):
        for arg in cond.args:
            yield from _condition_boundaries(arg)


__all__ = ["BOUNDARY", "BOUNDED", "CIRCULAR", "FACTS", "GROWS_FAST", "HYPERBOLIC", "INVERSE_OF",
           "INVERSE_TRIG", "KINK", "LATEX_CALLS", "LATEX_LETTERS", "NON_ANALYTIC", "ORDERS", "ORDER_CALLS",
           "ORDER_SUBSCRIPTS", "POLE",
           "REAL_WHERE_FINITE", "REGISTRY", "SLOW_GROWTH_NAMES", "SPELLINGS", "STEP", "TEXT_CALLS", "TRIG", "Facts",
           "Function", "Order", "breakpoint_arguments", "cut_arguments"]
