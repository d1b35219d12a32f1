#!/usr/bin/env python
"""Does the reward teach? A CPU-scale GRPO run that learns to integrate, per reward.

An end-to-end experiment, offline, on a laptop's CPU:

1. **Curriculum**: integrals with known antiderivatives in a few families
   (``c x^n``, ``a e^{bx}``, ``a sin(bx)``, ``a cos(bx)``, ``x e^{ax}``,
   ``x sin(bx)``, ``x cos(bx)``, ``c/(x+a)`` and sums of two), each answer written
   in several equivalent LaTeX forms. Each family's parameter tuples are split into
   train and held-out, so a held-out problem is a new instance, never a copy.
2. **Warm start**: the tiny offline model of ``examples/tiny_model.py`` (larger
   dimensions, a tokenizer trained on the curriculum's text), fitted by supervised
   fine-tuning on the train split, each target drawn from the equivalent forms
   (expanded or factored, ``\\ln|u|`` or ``\\ln u``, with ``+ C`` or without), until
   it answers in ``\\boxed{}`` and is right on some held-out problems.
3. **GRPO** (TRL) from that checkpoint, one run per reward and seed: our
   ``default``, ``binary`` and ``strict_symbolic`` shaping presets
   (:class:`rewards.AntiderivativeReward`) and TRL's ``accuracy_reward`` against a
   reference antiderivative.
4. **Held-out accuracy by an independent judge** (:class:`Judge`: SymPy derivative
   of the boxed answer, compared with the integrand at random real points in
   50-digit mpmath arithmetic; none of our checker's code) before training and every
   few steps: greedy decoding and sampling at the training temperature.

Usage::

    python examples/learn_to_integrate.py --out runs/learn       # the full comparison
    python examples/learn_to_integrate.py --quick --out /tmp/q   # a few steps, one seed

``--out DIR`` gets ``metrics.jsonl`` (one line per run and step), ``summary.json``
(held-out accuracy before and after per reward, over seeds), ``table.md``,
``training.png``, ``disagreements.jsonl`` (training completions where the reward
and the judge disagree) and the warm-start checkpoint. ``docs/training.md`` reports a full run.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parent
REPO_ROOT = EXAMPLES_DIR.parent
GRPO_CONFIG = REPO_ROOT / "configs" / "grpo" / "learn_to_integrate.yaml"
for _path in (REPO_ROOT, EXAMPLES_DIR):  # run from a checkout without install
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from tiny_model import build_tiny_model, supervise  # noqa: E402
from train_grpo import build_grpo_config, make_prompt  # noqa: E402

#: The rewards compared: our shaping presets, and TRL's reference-answer reward.
OUR_PRESETS = ("default", "binary", "strict_symbolic")
TRL_ACCURACY = "trl_accuracy"
REWARDS = (*OUR_PRESETS, TRL_ACCURACY)

#: Model and warm start of the full comparison (docs/training.md: what was tried).
MODEL_DIMS = dict(hidden_size=128, intermediate_size=384, num_hidden_layers=4,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512)
SFT = dict(steps=300, batch_size=32, lr=4e-3, warmup_steps=20)


# ---------------------------------------------------------------------------------------
# curriculum
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """One integral: the integrand as the prompt shows it (SymPy syntax), the
    antiderivative in equivalent LaTeX forms (no constant), and the single
    reference a reference-answer reward compares against."""

    family: str
    params: tuple[int, ...]
    integrand: str
    forms: tuple[str, ...]
    reference: str


def _lin(b: int) -> str:
    """``b x`` in LaTeX: ``x``, ``-x``, ``3x``."""
    return "x" if b == 1 else "-x" if b == -1 else f"{b}x"


def _lin_sym(b: int) -> str:
    return "x" if b == 1 else "-x" if b == -1 else f"{b}*x"


def _scaled(q: Fraction, body: str) -> list[str]:
    """LaTeX forms of ``q * body``: ``\\frac{p}{r}body`` and ``\\frac{p body}{r}``."""
    sign = "-" if q < 0 else ""
    p, r = abs(q.numerator), q.denominator
    if r == 1:
        return [f"{sign}{'' if p == 1 else p}{body}"]
    return [f"{sign}\\frac{{{p}}}{{{r}}}{body}", f"{sign}\\frac{{{'' if p == 1 else p}{body}}}{{{r}}}"]


def _join(*terms: str) -> str:
    """Terms of a sum, ``a - b`` rather than ``a + -b``."""
    out = terms[0]
    for term in terms[1:]:
        out += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return out


def _scaled_int(c: int, sym: str) -> str:
    return sym if c == 1 else f"{c}*{sym}"


def _power(c: int, n: int) -> tuple[str, list[str], str]:
    m = n + 1
    xn = "x" if n == 1 else f"x**{n}"
    body = f"x^{{{m}}}"
    unreduced = f"\\frac{{{'' if c == 1 else c}{body}}}{{{m}}}"
    forms = [unreduced, f"\\frac{{{c}}}{{{m}}}{body}", *_scaled(Fraction(c, m), body)]
    return _scaled_int(c, xn), forms, _scaled(Fraction(c, m), body)[-1]


def _exp(a: int, b: int) -> tuple[str, list[str], str]:
    body = f"e^{{{_lin(b)}}}"
    forms = _scaled(Fraction(a, b), body)
    if abs(b) > 1:  # unreduced, as written before simplifying
        forms.append(f"{'-' if b < 0 else ''}\\frac{{{a}}}{{{abs(b)}}}{body}")
    return _scaled_int(a, f"exp({_lin_sym(b)})"), forms, _scaled(Fraction(a, b), body)[-1]


def _trig(a: int, b: int, fn: str) -> tuple[str, list[str], str]:
    # d/dx sin = cos, d/dx cos = -sin
    other, sign = ("cos", -1) if fn == "sin" else ("sin", 1)
    bodies = [f"\\{other}({_lin(b)})", f"\\{other}{{\\left({_lin(b)} \\right)}}",
              f"\\{other} {_lin(b)}"]
    q = Fraction(sign * a, b)
    forms = [f for body in bodies for f in _scaled(q, body)]
    return _scaled_int(a, f"{fn}({_lin_sym(b)})"), forms, _scaled(q, bodies[0])[-1]


def _x_exp(a: int) -> tuple[str, list[str], str]:
    e = f"e^{{{_lin(a)}}}"
    factored = f"\\frac{{({_lin(a)} - 1){e}}}{{{a * a}}}"
    expanded = [_join(t1, t2) for t1, t2 in zip(_scaled(Fraction(1, a), "x" + e),
                                                 _scaled(Fraction(-1, a * a), e), strict=True)]
    inner = _join(_scaled(Fraction(1, a), "x")[-1], f"-\\frac{{1}}{{{a * a}}}")
    forms = [factored, *expanded, f"{e}\\left({inner}\\right)"]
    return f"x*exp({_lin_sym(a)})", forms, factored


def _x_trig(b: int, fn: str) -> tuple[str, list[str], str]:
    # x sin(bx) -> sin(bx)/b^2 - x cos(bx)/b;  x cos(bx) -> cos(bx)/b^2 + x sin(bx)/b
    other = "cos" if fn == "sin" else "sin"
    sign = -1 if fn == "sin" else 1
    own_t = _scaled(Fraction(1, b * b), f"\\{fn}({_lin(b)})")
    other_t = _scaled(Fraction(sign, b), f"x\\{other}({_lin(b)})")
    forms = [_join(own_t[0], other_t[0]), _join(own_t[-1], other_t[-1]),
             _join(other_t[-1], own_t[-1])]
    return f"x*{fn}({_lin_sym(b)})", forms, forms[1]


def _log(c: int, a: int) -> tuple[str, list[str], str]:
    arg = f"x + {a}" if a > 0 else f"x - {-a}"
    coef = "" if c == 1 else str(c)
    forms = [f"{coef}\\ln|{arg}|", f"{coef}\\ln({arg})", f"{coef}\\ln\\left|{arg}\\right|"]
    # SymPy's integrate() writes log(x + a), without the absolute value
    return f"{c}/({arg})", forms, f"{coef}\\ln({arg})"


_NONZERO = [b for b in range(-4, 7) if b != 0]
_FAMILIES: dict[str, tuple[Callable[..., tuple[str, list[str], str]], list[tuple[int, ...]]]] = {
    "power": (_power, [(c, n) for c in range(1, 10) for n in range(1, 8)]),
    "exp": (_exp, [(a, b) for a in range(1, 7) for b in _NONZERO]),
    "sin": (lambda a, b: _trig(a, b, "sin"), [(a, b) for a in range(1, 6) for b in range(1, 10)]),
    "cos": (lambda a, b: _trig(a, b, "cos"), [(a, b) for a in range(1, 6) for b in range(1, 10)]),
    "x_exp": (_x_exp, [(a,) for a in _NONZERO]),
    "x_sin": (lambda b: _x_trig(b, "sin"), [(b,) for b in range(1, 8)]),
    "x_cos": (lambda b: _x_trig(b, "cos"), [(b,) for b in range(1, 8)]),
    "log": (_log, [(c, a) for c in range(1, 6) for a in range(-9, 10) if a != 0]),
}
#: Families whose instances are summed in pairs (the "sum" family).
_SUMMANDS = ("power", "exp", "sin", "cos", "log")


def build_curriculum(*, seed: int = 0, held_out_fraction: float = 0.2,
                     n_sums: int = 300) -> tuple[list[Problem], list[Problem]]:
    """The train and held-out problems.

    Held-out is a ``held_out_fraction`` of each family's parameter tuples, drawn
    with ``seed``; a sum of two problems from different families is held out
    when either summand is, so a held-out summand is never seen in
    training, alone or in a sum.
    Deterministic for a given ``seed``.
    """
    rng = random.Random(seed)
    train: list[Problem] = []
    held: list[Problem] = []
    by_family: dict[str, list[tuple[Problem, bool]]] = {}
    for family, (make, grid) in _FAMILIES.items():
        grid = list(grid)
        n_held = max(1, round(held_out_fraction * len(grid)))
        held_params = set(rng.sample(grid, n_held))
        for params in grid:
            integrand, forms, reference = make(*params)
            problem = Problem(family, params, integrand, tuple(dict.fromkeys(forms)), reference)
            is_held = params in held_params
            (held if is_held else train).append(problem)
            by_family.setdefault(family, []).append((problem, is_held))
    seen: set[str] = set()
    while n_sums > 0:
        fa, fb = rng.sample(_SUMMANDS, 2)
        (pa, ha), (pb, hb) = rng.choice(by_family[fa]), rng.choice(by_family[fb])
        integrand = f"{pa.integrand} + {pb.integrand}"
        if integrand in seen:
            continue
        seen.add(integrand)
        n_sums -= 1
        forms = [_join(a, b) for a in pa.forms for b in pb.forms]
        forms = rng.sample(forms, min(4, len(forms)))
        problem = Problem("sum", pa.params + pb.params, integrand, tuple(forms),
                          _join(pa.reference, pb.reference))
        (held if ha or hb else train).append(problem)
    return train, held


def eval_set(held_out: Sequence[Problem], size: int, *, seed: int = 0) -> list[Problem]:
    """``size`` held-out problems, families taken in turn (so the few instances of a
    small family are all in, and sums do not crowd out the rest)."""
    rng = random.Random(seed)
    by_family: dict[str, list[Problem]] = {}
    for p in held_out:
        by_family.setdefault(p.family, []).append(p)
    for problems in by_family.values():
        rng.shuffle(problems)
    chosen: list[Problem] = []
    while len(chosen) < min(size, len(held_out)):
        for problems in by_family.values():
            if problems and len(chosen) < size:
                chosen.append(problems.pop())
    return chosen


def sft_targets(problem: Problem) -> list[str]:
    """The completions the warm start is fitted on: every form, with and without
    ``+ C``, in a box (a third of them with ``+ C``, as real models mix)."""
    return [f"\\boxed{{{form}{c}}}" for form in problem.forms for c in ("", "", " + C")]


# ---------------------------------------------------------------------------------------
# the independent judge
# ---------------------------------------------------------------------------------------
#: LaTeX commands the judge reads, and the SymPy function each one is.
_FUNCTIONS = {"sin": "sin", "cos": "cos", "tan": "tan", "cot": "cot", "sec": "sec", "csc": "csc",
              "ln": "log", "log": "log", "exp": "exp", "arctan": "atan", "arcsin": "asin",
              "arccos": "acos", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh"}
# A function name without its backslash (``4cos(3x)``) is read as the function, as a
# human grader reads it; longest names first, so ``sinh`` is not ``sin`` + ``h``.
_BARE = "|".join(sorted(_FUNCTIONS, key=len, reverse=True))
_TOKEN = re.compile(rf"\s*(\\[a-zA-Z]+|\\[,;:! ]|\d+(?:\.\d+)?|(?:{_BARE})(?![a-zA-Z])|[a-zA-Z]"
                    r"|[-+*/^(){}\[\]|])")
_TIMES = {"\\cdot", "\\times", "*"}
_IGNORED = {"\\left", "\\right", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\displaystyle"}


class _LatexReader:
    """A small recursive-descent reader of the LaTeX a calculus answer is written
    in (numbers, letters, ``+ - \\cdot /``, juxtaposition, ``^``, ``\\frac``,
    ``\\sqrt``, ``| |``, ``\\sin x`` / ``\\sin(3x)`` / ``\\sin{\\left(3x\\right)}``), written
    for the judge so that it shares no parser with the rewards it judges. It emits
    SymPy syntax built from its own whitelisted tokens; anything else is an error.
    """

    def __init__(self, text: str) -> None:
        tokens, pos = [], 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"unreadable at {text[pos:pos + 10]!r}")
            pos = m.end()
            token = m.group(1)
            if token not in _IGNORED:
                tokens.append(f"\\{token}" if token in _FUNCTIONS else token)
        self.tokens, self.i = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected!r}, got {token!r}")
        self.i += 1
        return token

    def read(self) -> str:
        out = self.expr(closers=())
        if self.peek() is not None:
            raise ValueError(f"trailing {self.peek()!r}")
        return out

    def expr(self, closers: tuple[str, ...]) -> str:
        parts = []
        if self.peek() in ("+", "-"):
            parts.append(self.take())
        parts.append(self.term(closers))
        while self.peek() in ("+", "-"):
            parts.append(self.take())
            parts.append(self.term(closers))
        return "(" + " ".join(parts) + ")"

    def term(self, closers: tuple[str, ...], *, argument: bool = False) -> str:
        out = self.power(closers)
        while True:
            token = self.peek()
            if token in _TIMES or token == "/":
                self.take()
                out += "/" if token == "/" else "*"
                out += self.power(closers)
            elif token is None or token in ("+", "-", ")", "}", "]", *closers):
                return out
            elif argument and token.startswith("\\") and token[1:] in _FUNCTIONS:
                return out  # \sin x \cos x: the argument stops at the next function
            else:
                out += "*" + self.power(closers)  # juxtaposition

    def power(self, closers: tuple[str, ...]) -> str:
        base = self.atom(closers)
        if self.peek() == "^":
            self.take()
            exponent = self.group_or_single(closers)
            if not re.search(r"[a-zA-Z]", base) and ("**" in exponent
                                                      or re.search(r"\d{4}", exponent)):
                raise ValueError("numeric power tower")  # 9^{9^{9}} would never finish
            return f"({base})**({exponent})"
        return base

    def group_or_single(self, closers: tuple[str, ...]) -> str:
        if self.peek() == "{":
            self.take("{")
            out = self.expr(closers=("}",))
            self.take("}")
            return out
        token = self.take()
        if token.isdigit() and len(token) > 1:  # x^23 is x^{2} 3, \frac12 is \frac{1}{2}
            self.tokens.insert(self.i, token[1:])
            token = token[0]
        return self._simple(token)

    def _simple(self, token: str) -> str:
        if re.fullmatch(r"\d+(\.\d+)?", token):
            return token
        if re.fullmatch(r"[a-zA-Z]", token):
            return "E" if token == "e" else "x" if token == "x" else f"K_{token}"
        raise ValueError(f"unexpected {token!r}")

    def atom(self, closers: tuple[str, ...]) -> str:
        token = self.take()
        if token in ("(", "{", "["):
            close = {"(": ")", "{": "}", "[": "]"}[token]
            out = self.expr(closers=(close,))
            self.take(close)
            return out
        if token == "|":
            out = self.expr(closers=("|",))
            self.take("|")
            return f"Abs{out}"
        if token in ("\\frac", "\\dfrac", "\\tfrac"):
            num = self.group_or_single(closers)
            return f"(({num})/({self.group_or_single(closers)}))"
        if token == "\\sqrt":
            return f"sqrt({self.group_or_single(closers)})"
        if token.startswith("\\") and token[1:] in _FUNCTIONS:
            name = _FUNCTIONS[token[1:]]
            exponent = None
            if self.peek() == "^":  # \sin^{2}(x)
                self.take()
                exponent = self.group_or_single(closers)
            if self.peek() in ("(", "{", "["):
                argument = self.atom(closers)
            else:  # \sin 3x, \ln x
                argument = self.term(closers, argument=True)
            out = f"{name}({argument})"
            return f"({out})**({exponent})" if exponent else out
        if token == "-":  # a sign inside a product: 3 \cdot -2
            return f"(-{self.power(closers)})"
        return self._simple(token)


def latex_to_sympy_text(latex: str) -> str:
    r"""SymPy syntax of a LaTeX expression (:class:`_LatexReader`); ValueError if
    it is not one the judge reads.

    >>> latex_to_sympy_text(r"-\frac{\cos 3x}{3} + 2\ln|x - 1| + C")
    '(- (((cos(3*x)))/((3))) + 2*log(Abs(x - 1)) + K_C)'
    """
    return _LatexReader(latex).read()


def _sympy_names() -> dict[str, Any]:
    import sympy

    names = {"Symbol", "Integer", "Float", "Rational", "Abs", "sqrt", *_FUNCTIONS.values()}
    return {name: getattr(sympy, name) for name in names}


class _JudgeTimeout(Exception):
    pass


@contextmanager
def _alarm(seconds: float):
    """SIGALRM deadline in the main thread (SymPy on model output can run long)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_timeout(signum, frame):
        raise _JudgeTimeout

    previous = signal.signal(signal.SIGALRM, raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def last_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (braces matched), or None."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth, i = 0, start + len("\\boxed")
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j]
    return None


class Judge:
    """Held-out grading that shares no code with the reward under test.

    ``judge(completion, integrand)`` is True when the last ``\\boxed{}`` of the
    completion, read by the judge's own :func:`latex_to_sympy_text` (``\\log`` is
    the natural log, as in calculus), has a SymPy derivative in the real variable that equals the
    integrand at ``points`` random real points in ``digits``-digit mpmath
    arithmetic (relative error below ``10^{-(digits-10)}``). Terms free of ``x``
    are the constant of integration (``+ C``, ``+ 6C``); a symbol other than ``x``
    anywhere else (``C x``, ``\\ln(n|x|)``) is wrong. Points where the integrand is not finite are skipped; at least
    3 must remain. Anything that fails to parse or to evaluate, or runs past
    ``timeout_s``, is wrong. Verdicts are cached by (answer, integrand).
    """

    def __init__(self, *, points: int = 6, digits: int = 50, timeout_s: float = 2.0,
                 max_chars: int = 400) -> None:
        self.points, self.digits, self.timeout_s, self.max_chars = points, digits, timeout_s, max_chars
        self._cache: dict[tuple[str, str], bool] = {}
        self._integrands: dict[str, Callable] = {}

    def __call__(self, completion: str, integrand: str) -> bool:
        answer = last_boxed(completion)
        if answer is None or not answer.strip() or len(answer) > self.max_chars:
            return False
        key = (answer, integrand)
        if key not in self._cache:
            try:
                with _alarm(self.timeout_s):
                    self._cache[key] = self._judge(answer, integrand)
            except _JudgeTimeout:
                self._cache[key] = False
            except Exception:  # noqa: BLE001 - any failure on model output is "wrong"
                self._cache[key] = False
        return self._cache[key]

    def _judge(self, answer: str, integrand: str) -> bool:
        import mpmath
        import sympy

        x = sympy.Symbol("x", real=True)
        # built by the reader from whitelisted tokens only, so parse_expr is safe here
        expr = sympy.parse_expr(latex_to_sympy_text(answer), local_dict={"x": x, "E": sympy.E},
                                global_dict=_sympy_names())
        # terms free of x are the constant of integration (C, 6C, C_1); a symbol
        # anywhere else (C x, \ln(n|x|)) makes the answer no function of x alone
        body = sympy.Add(*(t for t in sympy.Add.make_args(expr) if x in t.free_symbols))
        if body.free_symbols - {x}:
            return False
        derivative = sympy.diff(body, x)
        rng = random.Random(f"{answer}|{integrand}")
        f = self._integrand(integrand, x)
        d = sympy.lambdify(x, derivative, modules="mpmath")
        valid = 0
        with mpmath.workdps(self.digits):
            for _ in range(4 * self.points):
                if valid == self.points:
                    break
                point = mpmath.mpf(rng.uniform(-4.0, 4.0))
                try:
                    want = mpmath.mpc(f(point))
                except (ZeroDivisionError, ValueError):
                    continue
                if not mpmath.isfinite(want) or abs(want) > 1e12:
                    continue
                got = mpmath.mpc(d(point))
                valid += 1
                if not abs(got - want) <= mpmath.mpf(10) ** -(self.digits - 10) * max(1, abs(want)):
                    return False
        return valid >= 3

    def _integrand(self, integrand: str, x):
        if integrand not in self._integrands:
            import sympy

            expr = sympy.parse_expr(integrand, local_dict={"x": x})  # ours, trusted
            self._integrands[integrand] = sympy.lambdify(x, expr, modules="mpmath")
        return self._integrands[integrand]


# ---------------------------------------------------------------------------------------
# warm start and held-out evaluation
# ---------------------------------------------------------------------------------------
def tokenizer_corpus(problems: Sequence[Problem]) -> list[str]:
    """Text the tokenizer should cut short: the prompt and the train answers."""
    from rewards.prompts import SYSTEM_PROMPT, USER_TEMPLATE

    lines = [SYSTEM_PROMPT] * 20
    lines += [USER_TEMPLATE.format(integrand=p.integrand, symbol="x") for p in problems]
    lines += [target for p in problems for target in sft_targets(p)]
    return lines


def build_warm_start(out_dir: Path, train: Sequence[Problem], *, sft: dict, seed: int = 0,
                     log: Callable[[str], None] = print) -> tuple[Path, float]:
    """Tiny model + tokenizer fitted on the train split; returns (path, seconds)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    start = time.perf_counter()
    build_tiny_model(out_dir, seed=seed, answer_format_steps=0, dims=MODEL_DIMS,
                     extra_corpus=tokenizer_corpus(train))
    model = AutoModelForCausalLM.from_pretrained(out_dir)
    tokenizer = AutoTokenizer.from_pretrained(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"warm start: {n_params / 1e6:.2f}M parameters, SFT {sft}")
    losses = supervise(model, tokenizer, [(p.integrand, sft_targets(p)) for p in train],
                       seed=seed, **sft)
    log(f"SFT loss {statistics.mean(losses[:20]):.3f} -> {statistics.mean(losses[-20:]):.3f}")
    model.generation_config.max_new_tokens = 64
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir, time.perf_counter() - start


def evaluate(model, tokenizer, problems: Sequence[Problem], judge: Judge, *, samples: int,
             max_new_tokens: int, seed: int = 1234, batch: int = 128) -> dict[str, Any]:
    """Held-out accuracy: greedy, and the mean over ``samples`` draws at temperature 1
    (the distribution GRPO samples from). Same sampling seed at every evaluation,
    so two checkpoints are compared on the same random numbers."""
    import torch

    was_training = model.training
    model.eval()
    prompts = [tokenizer.apply_chat_template(make_prompt(p.integrand), add_generation_prompt=True,
                                             tokenize=False) for p in problems]
    pad = tokenizer.pad_token_id

    def generate(do_sample: bool, n: int) -> list[list[str]]:
        out: list[list[str]] = []
        for i in range(0, len(prompts), max(1, batch // n)):
            chunk = prompts[i:i + max(1, batch // n)]
            enc = tokenizer(chunk, return_tensors="pt", padding=True, add_special_tokens=False)
            with torch.no_grad():
                ids = model.generate(**enc, do_sample=do_sample, num_return_sequences=n,
                                     max_new_tokens=max_new_tokens, pad_token_id=pad,
                                     temperature=1.0 if do_sample else None, top_p=None,
                                     top_k=None)
            texts = tokenizer.batch_decode(ids[:, enc["input_ids"].shape[1]:],
                                           skip_special_tokens=True)
            out += [texts[j:j + n] for j in range(0, len(texts), n)]
        return out

    # A forked RNG: evaluating must not move the training run's random stream, so
    # runs that differ only in --eval-every or the held-out set train identically.
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        greedy = [g[0] for g in generate(False, 1)]
        sampled = generate(True, samples) if samples else [[] for _ in problems]
    if was_training:
        model.train()
    right = [judge(text, p.integrand) for text, p in zip(greedy, problems, strict=True)]
    right_s = [[judge(t, p.integrand) for t in texts] for texts, p in zip(sampled, problems,
                                                                          strict=True)]
    families: dict[str, list[bool]] = {}
    for ok, p in zip(right, problems, strict=True):
        families.setdefault(p.family, []).append(ok)
    return {
        "heldout_accuracy": sum(right) / len(right),
        "heldout_sampled_accuracy": (sum(map(sum, right_s)) / sum(map(len, right_s))
                                     if samples else None),
        "heldout_boxed": sum(last_boxed(t) is not None for t in greedy) / len(greedy),
        "heldout_by_family": {k: sum(v) / len(v) for k, v in sorted(families.items())},
        "examples": [{"integrand": p.integrand, "greedy": t, "correct": ok}
                     for p, t, ok in list(zip(problems, greedy, right, strict=True))[:6]],
    }


# ---------------------------------------------------------------------------------------
# GRPO runs
# ---------------------------------------------------------------------------------------
def _text(completion: Any) -> str:
    return completion[-1]["content"] if isinstance(completion, list) else str(completion)


class JudgedReward:
    """The reward under test, unchanged, plus the judge's view of the same batch.

    Returns exactly what ``inner`` returns (so training sees the reward alone) and
    logs through TRL's ``log_metric``: ``judge/train_accuracy`` (share of the
    batch's completions the judge accepts), ``judge/correct_unrewarded`` (of those,
    the share the reward gives no more than 0 or None: false rejects) and
    ``judge/wrong_rewarded`` (of the rest, the share rewarded above 0).
    """

    def __init__(self, inner: Callable, name: str, judge: Judge,
                 disagree: Callable[[dict], None] | None = None) -> None:
        self.inner, self.judge, self.__name__, self.disagree = inner, judge, name, disagree

    def __call__(self, prompts=None, completions=None, integrand=None, **kwargs):
        rewards = self.inner(prompts=prompts, completions=completions, integrand=integrand,
                             **kwargs)
        log_metric = kwargs.get("log_metric")
        if log_metric is not None:
            right = [self.judge(_text(c), i) for c, i in zip(completions, integrand, strict=True)]
            paid = [r is not None and r > 0 for r in rewards]
            state = kwargs.get("trainer_state")
            for c, i, r, ok, p in zip(completions, integrand, rewards, right, paid, strict=True):
                if ok != p and self.disagree is not None:
                    self.disagree({"reward": self.__name__, "step": getattr(state, "global_step", None),
                                   "integrand": i, "completion": _text(c), "reward_value": r,
                                   "judge": ok})
            n_right = sum(right)
            log_metric("judge/train_accuracy", n_right / len(right))
            log_metric("judge/correct_unrewarded",
                       sum(ok and not p for ok, p in zip(right, paid, strict=True)) / max(1, n_right))
            log_metric("judge/wrong_rewarded",
                       sum(p and not ok for ok, p in zip(right, paid, strict=True))
                       / max(1, len(right) - n_right))
        return rewards


def make_reward(name: str) -> Callable:
    """The reward under test by name; ours with one checker worker (2 shared cores)."""
    if name == TRL_ACCURACY:
        from trl.rewards import accuracy_reward

        return accuracy_reward
    from rewards import AntiderivativeReward

    return AntiderivativeReward(shaping=name, workers=1, integrand_column="integrand")


def train_dataset(problems: Sequence[Problem]):
    """Prompt, integrand (our reward) and ``$reference$`` (TRL's ``solution`` column)."""
    from datasets import Dataset

    return Dataset.from_list([{"prompt": make_prompt(p.integrand), "integrand": p.integrand,
                               "solution": f"${p.reference}$"} for p in problems])


def run_grpo(reward_name: str, seed: int, *, warm_start: Path, train: Sequence[Problem],
             held_out: Sequence[Problem], judge: Judge, steps: int, eval_every: int,
             eval_samples: int, before: dict[str, Any], work_dir: Path,
             emit: Callable[[dict], None], grpo_config: Path = GRPO_CONFIG,
             disagree: Callable[[dict], None] | None = None,
             log: Callable[[str], None] = print) -> dict[str, Any]:
    """One GRPO run; calls ``emit`` with one metrics record per step (held-out
    fields filled every ``eval_every`` steps and at the last) and ``disagree`` with
    each training completion the reward pays (> 0) and the judge rejects, or the
    other way round. Returns the final evaluation."""
    from transformers import AutoTokenizer, PrinterCallback, TrainerCallback
    from trl import GRPOTrainer

    args = build_grpo_config(grpo_config, overrides={
        "seed": seed, "max_steps": steps, "output_dir": str(work_dir / f"{reward_name}-{seed}")})
    tokenizer = AutoTokenizer.from_pretrained(warm_start)
    inner = make_reward(reward_name)
    reward = JudgedReward(inner, reward_name, judge,
                          lambda row: disagree({**row, "seed": seed}) if disagree else None)
    base = {"reward": reward_name, "seed": seed}
    emit({**base, "step": 0, "mean_reward": None, "zero_variance_share": None, "seconds": 0.0,
          **{k: before[k] for k in ("heldout_accuracy", "heldout_sampled_accuracy",
                                    "heldout_boxed")}})
    state = {"eval": {}, "eval_seconds": 0.0, "start": time.perf_counter(), "final": before}

    class Track(TrainerCallback):
        def on_step_end(self, targs, tstate, control, model=None, **kwargs):
            step = tstate.global_step
            if step % eval_every == 0 or step == tstate.max_steps:
                t0 = time.perf_counter()
                state["final"] = evaluate(model, tokenizer, held_out, judge, samples=eval_samples,
                                          max_new_tokens=args.max_completion_length)
                state["eval_seconds"] += time.perf_counter() - t0
                state["eval"][step] = state["final"]

        def on_log(self, targs, tstate, control, logs=None, **kwargs):
            logs = logs or {}
            if f"rewards/{reward_name}/mean" not in logs:
                return
            step = tstate.global_step
            held = state["eval"].get(step, {})
            record = {
                **base, "step": step,
                "mean_reward": logs.get(f"rewards/{reward_name}/mean"),
                "zero_variance_share": logs.get("frac_reward_zero_std"),
                "train_judge_accuracy": logs.get("judge/train_accuracy"),
                "correct_unrewarded": logs.get("judge/correct_unrewarded"),
                "wrong_rewarded": logs.get("judge/wrong_rewarded"),
                "completion_length": logs.get("completions/mean_length"),
                "heldout_accuracy": held.get("heldout_accuracy"),
                "heldout_sampled_accuracy": held.get("heldout_sampled_accuracy"),
                "heldout_boxed": held.get("heldout_boxed"),
                # training time only; held-out evaluation is reported apart
                "seconds": round(time.perf_counter() - state["start"] - state["eval_seconds"], 2),
                "eval_seconds": round(state["eval_seconds"], 2),
            }
            emit(record)
            if held:
                log(f"  {reward_name} seed {seed} step {step}: reward {record['mean_reward']:.3f} "
                    f"held-out {held['heldout_accuracy']:.3f} "
                    f"(sampled {held['heldout_sampled_accuracy']}) {record['seconds']:.0f}s")

    trainer = GRPOTrainer(model=str(warm_start), reward_funcs=[reward], args=args,
                          train_dataset=train_dataset(train), processing_class=tokenizer,
                          callbacks=[Track()])
    trainer.remove_callback(PrinterCallback)  # one line per evaluation is enough
    try:
        trainer.train()
    finally:
        close = getattr(inner, "close", None)
        if callable(close):
            close()
    return state["final"]


# ---------------------------------------------------------------------------------------
# summary and plot
# ---------------------------------------------------------------------------------------
def _spread(values: Sequence[float]) -> dict[str, float]:
    return {"mean": statistics.mean(values),
            "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "n": len(values)}


def summarize(records: Sequence[dict], before: dict[str, Any], finals: dict[tuple[str, int], dict],
              **extra: Any) -> dict[str, Any]:
    per_reward: dict[str, Any] = {}
    for name in dict.fromkeys(r["reward"] for r in records):
        seeds = sorted({r["seed"] for r in records if r["reward"] == name})
        after = [finals[(name, s)] for s in seeds]
        runs = [[r for r in records if r["reward"] == name and r["seed"] == s] for s in seeds]
        last_k = [[r for r in run if r["mean_reward"] is not None][-5:] for run in runs]
        per_reward[name] = {
            "seeds": seeds,
            "heldout_accuracy_after": _spread([a["heldout_accuracy"] for a in after]),
            "heldout_sampled_accuracy_after": (
                _spread([a["heldout_sampled_accuracy"] for a in after])
                if after[0]["heldout_sampled_accuracy"] is not None else None),
            "heldout_by_family_after": {
                fam: statistics.mean(a["heldout_by_family"][fam] for a in after)
                for fam in after[0]["heldout_by_family"]},
            "mean_reward_last5": _spread([statistics.mean(r["mean_reward"] for r in k)
                                          for k in last_k]),
            "train_judge_accuracy_last5": _spread([
                statistics.mean(r["train_judge_accuracy"] for r in k) for k in last_k]),
            "zero_variance_share_mean": _spread([
                statistics.mean(r["zero_variance_share"] for r in run
                                if r.get("zero_variance_share") is not None) for run in runs]),
            "correct_unrewarded_mean": _spread([
                statistics.mean(r["correct_unrewarded"] for r in run
                                if r.get("correct_unrewarded") is not None) for run in runs]),
            "train_seconds": _spread([run[-1]["seconds"] for run in runs]),
            "examples_seed0": after[0]["examples"],
        }
    return {
        "before": {k: before[k] for k in ("heldout_accuracy", "heldout_sampled_accuracy",
                                          "heldout_boxed", "heldout_by_family", "examples")},
        "rewards": per_reward,
        **extra,
    }


def markdown_table(summary: dict[str, Any]) -> str:
    """The summary's per-reward table in Markdown (docs/training.md holds one)."""
    def pm(stat: dict[str, float] | None, pct: bool = True) -> str:
        if stat is None:
            return "n/a"
        k = 100 if pct else 1
        return f"{k * stat['mean']:.1f} ± {k * stat['sd']:.1f}" if pct else (
            f"{stat['mean']:.3f} ± {stat['sd']:.3f}")

    before = summary["before"]
    sampled_before = before["heldout_sampled_accuracy"]
    lines = [
        "| reward | held-out greedy, before → after (%) | held-out T=1 samples, before → after (%) "
        "| training reward, last 5 steps | training completions judged right (%) "
        "| zero-variance groups (%) | judged right, reward ≤ 0 (%) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in summary["rewards"].items():
        lines.append(
            f"| {name} | {100 * before['heldout_accuracy']:.1f} → "
            f"{pm(r['heldout_accuracy_after'])} | "
            f"{'n/a' if sampled_before is None else f'{100 * sampled_before:.1f}'} → "
            f"{pm(r['heldout_sampled_accuracy_after'])} | {pm(r['mean_reward_last5'], False)} | "
            f"{pm(r['train_judge_accuracy_last5'])} | {pm(r['zero_variance_share_mean'])} | "
            f"{pm(r['correct_unrewarded_mean'])} |")
    return "\n".join(lines) + "\n"


def plot(records: Sequence[dict], path: Path, *, window: int = 10) -> None:
    """Held-out accuracy (greedy, sampled), training reward and the judge's view of
    the training completions against step; per reward the mean over seeds, shaded
    between the seeds' min and max. Per-step series (4 prompts a step are noisy) are
    averaged over the last ``window`` steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("heldout_accuracy", "held-out accuracy, greedy (independent judge)"),
              ("heldout_sampled_accuracy", "held-out accuracy, T=1 samples (judge)"),
              ("mean_reward", f"training reward, own scale ({window}-step mean)"),
              ("train_judge_accuracy", f"training completions judged right ({window}-step mean)")]
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    names = list(dict.fromkeys(r["reward"] for r in records))
    # Runs that retrace one another step for step (binary and strict_symbolic when
    # no answer is numeric-only) are drawn once, under both names.
    keys = ("seed", "step", *(key for key, _ in panels))
    trace = {name: [tuple(r.get(k) for k in keys) for r in records if r["reward"] == name]
             for name in names}
    labels: dict[str, str] = {}
    for name in names:
        twin = next((n for n in labels if trace[n] == trace[name]), None)
        if twin is None:
            labels[name] = name
        else:
            labels[twin] += f" = {name}"
    names = list(labels)
    for ax, (key, title) in zip(axes.flat, panels, strict=True):
        for name in names:
            runs: dict[int, dict[int, float]] = {}
            for r in records:
                if r["reward"] == name and r.get(key) is not None:
                    runs.setdefault(r["seed"], {})[r["step"]] = r[key]
            if not runs:
                continue
            if not key.startswith("heldout"):
                for seed, series in runs.items():
                    steps = sorted(series)
                    runs[seed] = {s: statistics.mean(series[t] for t in steps[max(0, i - window + 1):i + 1])
                                  for i, s in enumerate(steps)}
            steps = sorted(set.intersection(*(set(v) for v in runs.values())))
            values = [[series[s] for series in runs.values()] for s in steps]
            style = ["-", "--", ":", "-."][names.index(name) % 4]
            ax.plot(steps, [statistics.mean(v) for v in values], label=labels[name],
                    linestyle=style,
                    linewidth=1.6, marker="o" if key.startswith("heldout") else None,
                    markersize=3)
            ax.fill_between(steps, [min(v) for v in values], [max(v) for v in values], alpha=0.15)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("GRPO step")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    from PIL import Image  # matplotlib's own dependency

    with Image.open(path) as image:  # a 64-colour palette: a small file to commit
        image.convert("RGB").quantize(colors=64).save(path, optimize=True)


# ---------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: a short SFT, one reward, one seed, 3 steps (under a minute)")
    p.add_argument("--rewards", nargs="+", default=list(REWARDS), choices=REWARDS)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--grpo-config", type=Path, default=GRPO_CONFIG,
                   help="YAML of GRPOConfig fields (default: configs/grpo/learn_to_integrate.yaml)")
    p.add_argument("--steps", type=int, default=None, help="GRPO steps (default: the YAML's)")
    p.add_argument("--eval-every", type=int, default=20)
    p.add_argument("--eval-samples", type=int, default=4,
                   help="samples per held-out problem at temperature 1 (0: greedy only)")
    p.add_argument("--sft-steps", type=int, default=None,
                   help=f"warm-start SFT steps (default: {SFT['steps']}, 40 with --quick)")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--warm-start", type=Path, default=None,
                   help="reuse this warm-start checkpoint (from an earlier --out) instead of "
                        "building one")
    p.add_argument("--held-out-size", type=int, default=None,
                   help="held-out problems evaluated, families in turn (default: all, 32 with --quick)")
    args = p.parse_args(argv)
    if args.quick:
        args.rewards, args.seeds = args.rewards[:1], args.seeds[:1]
        args.steps, args.eval_every, args.eval_samples = 3, 3, 0
        args.held_out_size = args.held_out_size or 32  # an explicit size still holds
    if args.sft_steps is None:
        args.sft_steps = 40 if args.quick else SFT["steps"]
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    wall = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - wall:7.1f}s] {message}", flush=True)

    train, held_all = build_curriculum(seed=0)
    held_out = eval_set(held_all, args.held_out_size or len(held_all))
    log(f"curriculum: {len(train)} train, {len(held_all)} held-out problems "
        f"({len(held_out)} evaluated)")
    judge = Judge()
    sft = {**SFT, "steps": args.sft_steps}
    if args.quick:
        sft["warmup_steps"] = 4
    if args.warm_start is not None:
        warm_start, sft_seconds = args.warm_start, 0.0
        log(f"warm start reused from {warm_start}")
    else:
        warm_start, sft_seconds = build_warm_start(out / "warm_start", train, sft=sft, log=log)
        log(f"warm start built in {sft_seconds:.0f}s")
    grpo_args = build_grpo_config(args.grpo_config, overrides={"max_steps": args.steps,
                                                          "output_dir": str(out / "grpo")})
    steps = grpo_args.max_steps
    before = evaluate(AutoModelForCausalLM.from_pretrained(warm_start),
                      AutoTokenizer.from_pretrained(warm_start), held_out, judge,
                      samples=args.eval_samples, max_new_tokens=grpo_args.max_completion_length)
    log(f"before GRPO: held-out {before['heldout_accuracy']:.3f} greedy, "
        f"{before['heldout_sampled_accuracy']} sampled; by family {before['heldout_by_family']}")

    records: list[dict] = []
    disagreements: dict[str, dict[str, int]] = {}
    metrics_path = out / "metrics.jsonl"
    with metrics_path.open("w", encoding="utf-8") as fh, \
            (out / "disagreements.jsonl").open("w", encoding="utf-8") as dis:

        def emit(record: dict) -> None:
            records.append(record)
            fh.write(json.dumps(record) + "\n")
            fh.flush()

        def disagree(row: dict) -> None:
            kind = "judged_right_unpaid" if row["judge"] else "paid_judged_wrong"
            counts = disagreements.setdefault(row["reward"], {"paid_judged_wrong": 0,
                                                              "judged_right_unpaid": 0})
            counts[kind] += 1
            dis.write(json.dumps(row) + "\n")
            dis.flush()

        finals = {}
        for reward_name in args.rewards:
            for seed in args.seeds:
                t0 = time.perf_counter()
                finals[(reward_name, seed)] = run_grpo(
                    reward_name, seed, warm_start=warm_start, train=train, held_out=held_out,
                    judge=judge, steps=steps, eval_every=args.eval_every,
                    eval_samples=args.eval_samples, before=before, work_dir=out / "grpo",
                    emit=emit, grpo_config=args.grpo_config, disagree=disagree, log=log)
                log(f"{reward_name} seed {seed}: held-out "
                    f"{before['heldout_accuracy']:.3f} -> "
                    f"{finals[(reward_name, seed)]['heldout_accuracy']:.3f} "
                    f"in {time.perf_counter() - t0:.0f}s")

    wall_s = time.perf_counter() - wall
    summary = summarize(records, before, finals, wall_seconds=round(wall_s, 1),
                        sft_seconds=round(sft_seconds, 1),
                        command="python examples/learn_to_integrate.py " + " ".join(
                            sys.argv[1:] if argv is None else argv),
                        curriculum={"train": len(train), "held_out": len(held_all),
                                    "evaluated": len(held_out)},
                        model_dims=MODEL_DIMS, sft=sft, grpo_steps=steps,
                        eval_every=args.eval_every, eval_samples=args.eval_samples,
                        threads=args.threads, load_average=os.getloadavg(),
                        disagreements=disagreements)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "table.md").write_text(markdown_table(summary), encoding="utf-8")
    plot(records, out / "training.png")
    log(f"done in {wall_s:.0f}s: {metrics_path}, {out / 'summary.json'}, {out / 'training.png'}")
    return summary


if __name__ == "__main__":
    main()
