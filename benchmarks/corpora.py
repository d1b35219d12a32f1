"""Bench corpora: loading the public data sets, rendering answers the way a
model writes them, mutating them into verified-wrong answers.

Nothing here is product code and none of it ever sees model text as code:
the data sets are trusted (``sympify`` of the Rubi pairs is what their
README prescribes); rendering and verification run in the parent process.

Rubi pairs become

* **correct candidates**: the antiderivative as ``sympy.latex`` prints it
  (``\\log``, ``\\operatorname{atan}``, ...) and as SymPy text, each with
  ``+ C``; plus equivalent rewrites (expanded, a constant added, log or trig
  identities, hyperbolic functions as exponentials, ``atan(u) -> acot(1/u)``,
  ``atanh -> log``), each verified at 50 digits before use;
* **wrong candidates** from mutation operators (scaled, sign-flipped term,
  dropped term, ``+ x``, the derivative of the integrand given instead, the
  integrand echoed, argument shifted, ``+ 10^{-13} x``), each kept only if
  ``d/dx(mutant) - f`` is clearly non-zero at 50 digits at points where the
  original pair agrees to 35 digits.
"""
from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# The usual names of the data files inside ../shared/data.
RUBI_FILE = "rubi_pairs.jsonl"
RGYM_FILE = "rgym_outputs.jsonl"
MITBEE_FILE = "mitbee_outputs.jsonl"

# Functions an "elementary" pair may contain (SymPy class names).
ELEMENTARY = frozenset({
    "log", "exp", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot",
    "asec", "acsc", "sinh", "cosh", "tanh", "coth", "sech", "csch", "asinh", "acosh", "atanh",
    "acoth", "asech", "acsch", "sqrt", "Abs",
})
_CALL = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)\(")

REWRITES = ("expanded", "constant_added", "log_identity", "trig_identity", "hyperbolic_exp",
            "inverse_trig_identity", "atanh_log")
MUTATIONS = ("scaled", "sign_flipped_term", "dropped_term", "added_x", "derivative_given",
             "integrand_echoed", "argument_shifted", "tiny_term")

# Verification thresholds (relative residuals at 50 digits).
_DPS = 50
_AGREE = 1e-35
_DIFFER = 1e-20
_MAX_RENDER_CHARS = 1800


@dataclass
class Item:
    """One candidate to judge, with everything any method needs."""

    id: str
    dataset: str            # rubi_correct | rubi_wrong | rgym | mitbee
    group: str              # e.g. "latex/base", "sympy/scaled"
    answer: str | None      # the bare answer, as a model would box/tag it
    syntax: str             # latex | sympy (of ``answer``)
    integrand: str | None   # SymPy syntax (None when it could not be converted)
    symbol: str = "x"
    response: str | None = None         # the full completion (real data)
    integrand_latex: str | None = None
    reference: str | None = None        # SymPy syntax
    reference_latex: str | None = None
    expected: bool | None = None        # ground truth, when constructed/verified
    label: bool | None = None           # the data set's own label
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Item:
        return cls(**raw)


# ---------------------------------------------------------------------------
# Locating data
# ---------------------------------------------------------------------------

def detect_kind(path: Path) -> str | None:
    """Which data set a JSONL file is, from the fields of its first row."""
    with open(path) as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                break
        else:
            return None
    if "antiderivative" in row and "integrand" in row:
        return "rubi"
    if "integrand_sympy" in row and "response" in row:
        return "rgym"
    if "integrand_latex" in row and "response" in row:
        return "mitbee"
    return None


def find_corpus(path: str | Path) -> dict[str, Path]:
    """``{"rubi": ..., "rgym": ..., "mitbee": ...}`` for a data directory or
    a single JSONL file (kind detected from its fields)."""
    path = Path(path)
    found: dict[str, Path] = {}
    if path.is_dir():
        for name, kind in ((RUBI_FILE, "rubi"), (RGYM_FILE, "rgym"), (MITBEE_FILE, "mitbee")):
            if (path / name).exists():
                found[kind] = path / name
        if not found:
            for candidate in sorted(path.glob("*.jsonl")):
                kind = detect_kind(candidate)
                if kind and kind not in found:
                    found[kind] = candidate
    elif path.exists():
        kind = detect_kind(path)
        if kind:
            found[kind] = path
    return found


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ---------------------------------------------------------------------------
# High-precision verification
# ---------------------------------------------------------------------------

def _points(rng: random.Random, n_complex: int = 6, n_real: int = 6) -> list[Any]:
    import mpmath as mp

    with mp.workdps(_DPS):
        pts: list[Any] = []
        for _ in range(n_complex):
            im = rng.uniform(0.2, 1.1) * rng.choice((-1, 1))
            pts.append(mp.mpc(rng.uniform(-3.2, 3.2), im))
        for _ in range(n_real):
            value = rng.uniform(0.15, 3.3) * rng.choice((-1, 1))
            pts.append(mp.mpf(value))
    return pts


def _evaluator(expr, x):

    from rewards.check.evidence.lambdify import compile_expr

    return compile_expr([x], expr)


def _rel_residuals(derivative, integrand, x, points, *,
                   real_only: bool = False) -> list[float | None]:
    """|F' - f| / max(1, |F'|, |f|) at each point (None where unusable).

    ``real_only``: also None where either side is not real (the real-line
    antiderivative; complex values mean the point is outside the domain).
    """
    import mpmath as mp

    out: list[float | None] = []
    d_fn = _evaluator(derivative, x)
    f_fn = _evaluator(integrand, x)
    with mp.workdps(_DPS):
        for pt in points:
            try:
                d = mp.mpmathify(d_fn(pt))
                v = mp.mpmathify(f_fn(pt))
            except Exception:  # noqa: BLE001 - outside the domain of a function
                out.append(None)
                continue
            if not (mp.isfinite(d) and mp.isfinite(v)):
                out.append(None)
                continue
            if real_only and (abs(mp.im(v)) > mp.mpf(10) ** -40 * max(1, abs(v))
                              or abs(mp.im(d)) > mp.mpf(10) ** -40 * max(1, abs(d))):
                out.append(None)
                continue
            scale = max(mp.mpf(1), abs(d), abs(v))
            out.append(float(abs(d - v) / scale))
    return out


def _valid_points(F, f, x, points) -> list[Any]:
    """The points where the original pair agrees to 35 digits."""
    import sympy as sp

    base = _rel_residuals(sp.diff(F, x), f, x, points)
    return [p for p, r in zip(points, base, strict=True) if r is not None and r < _AGREE]


def verify_equivalent(G, f, x, valid_points) -> bool:
    """A rewrite is kept if it agrees with f' at every valid point (>= 3)."""
    import sympy as sp

    res = _rel_residuals(sp.diff(G, x), f, x, valid_points)
    usable = [r for r in res if r is not None]
    return len(usable) >= 3 and all(r < _AGREE for r in usable)


def verify_wrong(G, f, x, valid_points) -> bool:
    """A mutant is kept if it clearly differs at >= 2 valid points."""
    import sympy as sp

    res = _rel_residuals(sp.diff(G, x), f, x, valid_points)
    return sum(1 for r in res if r is not None and r > _DIFFER) >= 2


# ---------------------------------------------------------------------------
# Rendering, rewrites and mutations
# ---------------------------------------------------------------------------

def render(expr, syntax: str, constant: bool = True) -> str:
    """An answer as a model writes it: ``sympy.latex`` or SymPy text, ``+ C``."""
    import sympy as sp

    text = sp.latex(expr) if syntax == "latex" else sp.sstr(expr)
    return f"{text} + C" if constant else text


def _rewrite(name: str, F, x):
    import sympy as sp

    if name == "expanded":
        return sp.expand(F)
    if name == "constant_added":
        return F + sp.Rational(7, 3)
    if name == "log_identity":
        if not F.has(sp.log):
            return None
        G = sp.expand_log(F, force=True)
        return G if G != F else sp.logcombine(F, force=True)
    if name == "trig_identity":
        if not F.has(sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc):
            return None
        G = sp.expand_trig(F)
        if G == F:
            from sympy.simplify.fu import TR8

            G = TR8(F)
        return G
    if name == "hyperbolic_exp":
        if not F.has(sp.sinh, sp.cosh, sp.tanh, sp.coth, sp.sech, sp.csch):
            return None
        return F.rewrite(sp.exp)
    if name == "inverse_trig_identity":
        if not F.has(sp.atan, sp.asin):
            return None
        # atan(u) = acot(1/u) and asin(u) = pi/2 - acos(u): the answer a model
        # gives "the other way". Not -acot(u): SymPy's acot is odd, so
        # atan(u) + acot(u) is pi/2 sgn(u), and -acot(u) jumps where u = 0.
        return F.replace(sp.atan, lambda u: sp.acot(1 / u)).replace(sp.asin, lambda u: -sp.acos(u))
    if name == "atanh_log":
        if not F.has(sp.atanh):
            return None
        return F.replace(sp.atanh, lambda u: (sp.log(1 + u) - sp.log(1 - u)) / 2)
    raise ValueError(name)


def _max_int_exponent(expr) -> int:
    import sympy as sp

    exps = [abs(int(p.exp)) for p in expr.atoms(sp.Pow) if p.exp.is_Integer]
    return max(exps, default=0)


def _model_sized(G, F) -> bool:
    """Whether a rewrite still looks like an answer a model would write:
    ``logcombine`` can turn ``1617*log(u)`` into ``log(u**1617)`` and
    ``expand`` can multiply out a page; those are not renderings anyone
    writes (and they trip the parser's size guards by design)."""
    import sympy as sp

    if _max_int_exponent(G) > max(100, _max_int_exponent(F)):
        return False
    text, base = sp.sstr(G), sp.sstr(F)
    return len(text) <= max(1.5 * len(base), 400) and len(sp.latex(G)) <= 1500


def _mutate(name: str, F, f, x, rng: random.Random):
    """(expression, latex override, sympy override) or None if not applicable."""
    import sympy as sp

    terms = [t for t in sp.Add.make_args(F) if t.has(x)]
    if name == "scaled":
        k = rng.choice((sp.Integer(2), sp.Rational(1, 2), sp.Rational(3, 2), sp.Integer(3)))
        return sp.Mul(k, F, evaluate=False), None, None
    if name == "sign_flipped_term":
        if len(terms) < 2:
            return None
        term = rng.choice(terms)
        return F - 2 * term, None, None
    if name == "dropped_term":
        if len(terms) < 2:
            return None
        return F - rng.choice(terms), None, None
    if name == "added_x":
        return F + x, None, None
    if name == "derivative_given":
        return sp.diff(f, x), None, None
    if name == "integrand_echoed":
        return f, None, None
    if name == "argument_shifted":
        return F.xreplace({x: x + 1}), None, None
    if name == "tiny_term":
        G = F + x / sp.Integer(10) ** 13
        return (G, sp.latex(F) + " + 10^{-13} x + C",
                sp.sstr(F) + " + 10**(-13)*x + C")
    raise ValueError(name)


def is_elementary_text(text: str) -> bool:
    """Whether every function called in a SymPy-syntax string is elementary.

    >>> is_elementary_text("x*atan(x) - log(x**2 + 1)/2")
    True
    >>> is_elementary_text("elliptic_f(asin(x), 2)")
    False
    """
    return all(name in ELEMENTARY for name in _CALL.findall(text))


def _timed(seconds: float, fn, *args):
    from rewards.check.timebox import StepTimeout, time_limit

    try:
        with time_limit(seconds):
            return fn(*args)
    except (StepTimeout, RecursionError, MemoryError):
        return None
    except Exception:  # noqa: BLE001 - a rewrite SymPy cannot do: skip it
        return None


def load_rubi(path: Path, sample: int | None = 400, seed: int = 0, *,
              rewrites_per_pair: int = 1, mutants_per_pair: int = 3,
              elementary_only: bool = True, stats: Counter | None = None
              ) -> tuple[list[Item], list[Item]]:
    """Correct and verified-wrong candidates from ``sample`` Rubi pairs."""
    import sympy as sp

    stats = stats if stats is not None else Counter()
    rows = _read_jsonl(path)
    stats["rubi_rows"] = len(rows)
    if elementary_only:
        rows = [r for r in rows if is_elementary_text(r["antiderivative"])
                and is_elementary_text(r["integrand"])]
    stats["rubi_elementary_rows"] = len(rows)
    rng = random.Random(seed)
    order = list(range(len(rows)))
    rng.shuffle(order)
    correct: list[Item] = []
    wrong: list[Item] = []
    x = sp.Symbol("x")
    taken = 0
    for idx in order:
        if sample is not None and taken >= sample:
            break
        row = rows[idx]
        pair_rng = random.Random(f"{seed}:{row['id']}")
        F = _timed(5, sp.sympify, row["antiderivative"], {"x": x})
        f = _timed(5, sp.sympify, row["integrand"], {"x": x})
        if F is None or f is None or F.free_symbols - {x} or f.free_symbols - {x}:
            stats["rubi_skipped_unreadable"] += 1
            continue
        points = _timed(20, _valid_points, F, f, x, _points(pair_rng))
        if not points or len(points) < 4:
            stats["rubi_skipped_unverifiable"] += 1
            continue
        taken += 1
        common = {"integrand": row["integrand"], "symbol": "x",
                  "reference": row["antiderivative"], "meta": {"pair": row["id"]}}
        for syntax in ("latex", "sympy"):
            correct.append(Item(id=f"{row['id']}|{syntax}|base", dataset="rubi_correct",
                                group=f"{syntax}/base", answer=render(F, syntax),
                                syntax=syntax, expected=True,
                                reference_latex=sp.latex(F) + " + C", **common))
        names = [n for n in REWRITES]
        pair_rng.shuffle(names)
        made = 0
        for name in names:
            if made >= rewrites_per_pair:
                break
            G = _timed(3, _rewrite, name, F, x)
            if G is None or G == F or not _model_sized(G, F):
                stats[f"rewrite_skipped_{name}"] += G is not None and G != F
                continue
            if not _timed(20, verify_equivalent, G, f, x, points):
                stats["rewrite_discarded_not_equivalent"] += 1
                continue
            made += 1
            stats[f"rewrite_{name}"] += 1
            constant = name != "constant_added"
            for syntax in ("latex", "sympy"):
                correct.append(Item(id=f"{row['id']}|{syntax}|{name}", dataset="rubi_correct",
                                    group=f"{syntax}/{name}", answer=render(G, syntax, constant),
                                    syntax=syntax, expected=True,
                                    reference_latex=sp.latex(F) + " + C", **common))
        # Mutation operators rotate over the pairs, so each gets its share.
        start = (taken * mutants_per_pair) % len(MUTATIONS)
        ops = [MUTATIONS[(start + j) % len(MUTATIONS)] for j in range(len(MUTATIONS))]
        made = 0
        for name in ops:
            if made >= mutants_per_pair:
                break
            mutated = _timed(3, _mutate, name, F, f, x, pair_rng)
            if mutated is None:
                continue
            G, latex_text, sympy_text = mutated
            if len(sp.sstr(G)) > 4 * len(sp.sstr(F)) + 400:
                continue
            if not _timed(20, verify_wrong, G, f, x, points):
                stats[f"mutant_discarded_{name}"] += 1
                continue
            made += 1
            stats[f"mutant_{name}"] += 1
            for syntax in ("latex", "sympy"):
                text = latex_text if syntax == "latex" else sympy_text
                text = text or render(G, syntax)
                wrong.append(Item(id=f"{row['id']}|{syntax}|{name}", dataset="rubi_wrong",
                                  group=f"{syntax}/{name}", answer=text, syntax=syntax,
                                  expected=False, reference_latex=sp.latex(F) + " + C",
                                  **common))
    stats["rubi_pairs_used"] = taken
    for items in (correct, wrong):
        too_long = [it for it in items if len(it.answer or "") > _MAX_RENDER_CHARS]
        stats[f"{items[0].dataset if items else 'rubi'}_over_{_MAX_RENDER_CHARS}_chars"] += \
            len(too_long)
    return correct, wrong


def load_rgym(path: Path, sample: int | None = None, seed: int = 0) -> list[Item]:
    rows = _read_jsonl(path)
    if sample is not None and sample < len(rows):
        rows = random.Random(seed).sample(rows, sample)
    items = []
    for row in rows:
        items.append(Item(
            id=row["id"], dataset="rgym", group=row.get("task", "rgym"),
            answer=row.get("extracted_answer"), syntax="sympy",
            integrand=row["integrand_sympy"], symbol=row.get("variable") or "x",
            response=row.get("response"), reference=row.get("reference_answer_sympy"),
            label=row.get("label") == "correct",
            meta={"model": row.get("model"), "setting": row.get("setting")}))
    return items


def load_mitbee(path: Path, sample: int | None = None, seed: int = 0) -> list[Item]:
    """Indefinite rows; the integrand is converted to SymPy syntax once (for
    the SymPy-only peers) with the reward's LaTeX parser."""
    from rewards.check.errors import ParseFailure
    from rewards.check.parse.latex.grammar import canonicalize_latex, parse_latex

    rows = [r for r in _read_jsonl(path) if r.get("indefinite")]
    if sample is not None and sample < len(rows):
        rows = random.Random(seed).sample(rows, sample)
    items = []
    converted: dict[str, str | None] = {}
    for row in rows:
        latex = row["integrand_latex"]
        symbol = row.get("variable") or "x"
        if latex not in converted:
            try:
                converted[latex] = str(parse_latex(canonicalize_latex(latex, []), symbol))
            except ParseFailure:
                converted[latex] = None
        items.append(Item(
            id=row["id"], dataset="mitbee", group=row.get("extraction_method") or "none",
            answer=row.get("extracted_answer_latex"), syntax="latex",
            integrand=converted[latex], integrand_latex=latex, symbol=symbol,
            response=row.get("response"), reference_latex=row.get("reference_answer_latex"),
            label=row.get("label") == "correct", meta={"model": row.get("model")}))
    return items


# ---------------------------------------------------------------------------
# Independent adjudication of real completions
# ---------------------------------------------------------------------------

def adjudicate(answer: str | None, integrand: str, symbol: str = "x",
               seed: int = 0) -> str:
    """An independent judge for disagreements on real SymPy-syntax answers:
    parse with SymPy's own parser (``^`` as power, ``ln``, implicit
    multiplication, decimals as exact fractions, ``[...]`` as brackets; the
    reward's LaTeX parser only for answers written in LaTeX), drop an
    additive ``C``, then compare ``F'`` with ``f`` at 50 digits at real points
    on three scales where both sides are real. Returns ``correct``,
    ``incorrect``, ``undetermined``, ``no_answer`` or ``unreadable``.

    >>> adjudicate("x^3/3 + C", "x**2")
    'correct'
    >>> adjudicate("x**3/2 + C", "x**2")
    'incorrect'
    >>> adjudicate("1.6*x**6 + C", "48*x**5/5")
    'correct'
    """
    import sympy as sp
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        rationalize,
        standard_transformations,
    )

    if answer is None or not answer.strip():
        return "no_answer"
    x = sp.Symbol(symbol, real=True)
    # "F = G + C" chains: judge the last member; unicode root as sqrt.
    text = answer.strip().split("=")[-1].strip().replace("√", "sqrt")
    text = re.sub(r"^\s*[A-Za-z]\s*\(\s*" + re.escape(symbol) + r"\s*\)\s*=", "", text)
    if "\\" not in text:
        # ln|1 + x**2| in SymPy-looking text: absolute-value bars (not nested).
        text = re.sub(r"\|([^|]+)\|", r"(Abs(\1))", text)
    local = {symbol: x, "ln": sp.log, "e": sp.E, "C": sp.Symbol("C"), "abs": sp.Abs,
             "arctan": sp.atan, "arcsin": sp.asin, "arccos": sp.acos}
    transformations = standard_transformations + (convert_xor, rationalize,
                                                  implicit_multiplication_application)

    def parse():
        if "\\" in text:
            from rewards.check.parse.latex.grammar import canonicalize_latex, parse_latex

            F = parse_latex(canonicalize_latex(text, []), symbol)
            F = F.xreplace({s: x for s in F.free_symbols if s.name == symbol})
        else:
            F = parse_expr(text.replace("[", "(").replace("]", ")"), local_dict=local,
                           transformations=transformations)
        f = parse_expr(integrand, local_dict={symbol: x})
        return F, f

    parsed = _timed(10, parse)
    if parsed is None or not isinstance(parsed[0], sp.Expr):
        return "unreadable"
    F, f = parsed
    F = F.xreplace({s: 0 for s in F.free_symbols if s.name == "C"})
    if F.free_symbols - {x}:
        return "incorrect"
    rng = random.Random(seed)
    import mpmath as mp

    with mp.workdps(_DPS):
        points = [mp.mpf(rng.uniform(lo, hi) * rng.choice((-1, 1)))
                  for lo, hi in ((0.02, 0.45), (0.5, 1.6), (1.6, 3.5)) for _ in range(8)]
    residuals = _timed(30, functools.partial(_rel_residuals, real_only=True), sp.diff(F, x), f, x,
                       points)
    if residuals is None:
        return "undetermined"
    usable = [r for r in residuals if r is not None]
    if len(usable) < 3:
        return "undetermined"
    if any(r > _DIFFER for r in usable):
        return "incorrect"
    if all(r < 1e-30 for r in usable):
        return "correct"
    return "undetermined"


def audit_jump(answer: str, integrand: str, at: str, symbol: str = "x") -> str | None:
    """An independent look at a known-correct pair the reward calls
    discontinuous at ``at``: ``None`` unless F(c + d) - F(c - d) differs from
    the integral of f over [c - d, c + d] (mpmath quadrature, SymPy's own
    mpmath lambdify, none of the reward's code) at two distances d while f
    stays finite there; then what was measured. A confirmed pair's F is not
    an antiderivative across c by the definition (docs/domain.md), so the
    corpus label, not the reward, is wrong about it.

    >>> audit_jump("-atan(1/x)", "1/(x**2 + 1)", "0") is not None
    True
    >>> audit_jump("atan(x)", "1/(x**2 + 1)", "0") is None
    True
    """
    import mpmath as mp
    import sympy as sp

    x = sp.Symbol(symbol)
    F = _timed(10, sp.sympify, answer, {symbol: x})
    f = _timed(10, sp.sympify, integrand, {symbol: x})
    if F is None or f is None:
        return None
    F_fn, f_fn = sp.lambdify(x, F, "mpmath"), sp.lambdify(x, f, "mpmath")
    found = []
    with mp.workdps(30):
        c = mp.mpf(at)
        scale = max(mp.mpf(1), abs(c))
        for d in (mp.mpf("1e-3") * scale, mp.mpf("1e-5") * scale):
            try:
                near_f = [mp.mpmathify(f_fn(c + k * d)) for k in (-1, -0.1, 0.1, 1)]
                if not all(mp.isfinite(v) for v in near_f):
                    return None
                difference = mp.mpmathify(F_fn(c + d)) - mp.mpmathify(F_fn(c - d))
                integral = mp.quad(f_fn, [c - d, c, c + d])
            except (ValueError, ZeroDivisionError, TypeError):
                return None
            gap = abs(difference - integral)
            if gap < mp.mpf("1e-6") * max(1, abs(difference)):
                return None
            found.append(f"F(c+{mp.nstr(d, 2)}) - F(c-{mp.nstr(d, 2)}) = "
                         f"{mp.nstr(difference, 6)}, integral of f = {mp.nstr(integral, 6)}")
    return "; ".join(found)


def save_items(items: list[Item], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        for item in items:
            handle.write(json.dumps(item.to_dict()) + "\n")


def load_items(path: Path) -> list[Item]:
    return [Item.from_dict(r) for r in _read_jsonl(path)]


__all__ = ["Item", "MUTATIONS", "REWRITES", "adjudicate", "find_corpus", "is_elementary_text",
           "load_items", "load_mitbee", "load_rgym", "load_rubi", "render", "save_items",
           "verify_equivalent", "verify_wrong"]
