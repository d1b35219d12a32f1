"""The peers, re-implemented faithfully as baselines, behind one worker entry point.

Each peer is what a user would otherwise plug into GRPO for integration:

``trl_math_verify``
    TRL's ``trl.rewards.accuracy_reward`` itself (math-verify ``parse`` of the
    reference and of the completion, then ``verify``), called as TRL calls it.
    It needs a reference answer and ``\\boxed{}``/LaTeX anchors in the
    completion; its own signal timeouts (10 s parse, 5 s verify) are kept.
``reasoning_gym``
    reasoning-gym's ``simple_integration``/``intermediate_integration``
    ``score_answer``: last ``<answer>`` tag, ``parse_expr`` with ``C`` allowed,
    accept iff ``simplify(diff(F) - f) == 0``.
``rlve_numeric``
    RLVE's ``Integral_Environment.scorer``: ``sympify``; extra free symbols are
    a format error; answers over 4x the reference's ``count_ops`` are wrong;
    ``expr.is_zero`` decides when it can; else accept iff
    ``|F' - f| <= 1e-5`` at every finite point of 1024 evenly spaced points
    in [-2, 2], with at least a quarter of them finite.
``ladder_numeric``
    LADDER-style numeric verification (our reading of the paper, which ships
    no scorer): compare ``F(b) - F(a)`` with ``scipy.integrate.quad`` of ``f``
    on 5 random intervals with endpoints in [-10, 10] (up to 20 draws to find
    5 where both are real and finite), relative tolerance 1e-2.
``seed_design``
    The user's reference design (``seed_design.py``), sequential.

RLVE and LADDER ask the model for ``F(x)`` without a constant, so a trailing
``+ C`` is stripped for them (charitable: otherwise RLVE rejects every answer
with a constant as a format error).

All peers run in the bench's worker processes with a per-sample SIGALRM
deadline (TRL keeps its own alarms, which would override ours); any sample
whose in-worker time exceeds the deadline counts as TIMEOUT, and the pool's
watchdog kills a worker stuck where signals cannot reach.
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import threading
import time
import zlib
from contextlib import contextmanager
from typing import Any

from rewards.check.request import CheckRequest
from rewards.check.result import CheckResult, StageRecord, Verdict

PEER_METHODS = ("trl_math_verify", "reasoning_gym", "rlve_numeric", "ladder_numeric",
                "seed_design")

_TRAILING_C = re.compile(r"\s*\+\s*C\s*$")
_ANSWER_TAG = re.compile(r"<answer>\s?(.*?)\s?</answer>", re.DOTALL)


class PeerTimeout(BaseException):
    """Raised by the bench's alarm. A BaseException, so that a peer's bare
    ``except Exception`` does not turn the deadline into a verdict (a bare
    ``except:`` still can: the ``fired`` flag catches that case)."""


def payload(f: str | None, *, ref: str | None = None, ref_latex: str | None = None,
            syntax: str = "sympy") -> str:
    """The per-sample data a peer needs besides the candidate text, as the
    ``integrand`` field of a pool job (a job is (candidate, integrand, symbol)).

    >>> json.loads(payload("x", ref="x**2/2"))["ref"]
    'x**2/2'
    """
    return json.dumps({"f": f, "ref": ref, "ref_latex": ref_latex, "syntax": syntax})


def strip_constant(text: str) -> str:
    """Drop a trailing ``+ C`` (for peers whose format has no constant).

    >>> strip_constant("x**2/2 + C")
    'x**2/2'
    """
    return _TRAILING_C.sub("", text)


def rgym_extract_answer(completion: str | None) -> str | None:
    """reasoning-gym's ``extract_answer``: the last ``<answer>...</answer>``.

    >>> rgym_extract_answer("a <answer>1</answer> b <answer> x**2 </answer>")
    'x**2'
    """
    if completion is None:
        return None
    matches = list(_ANSWER_TAG.finditer(completion))
    if not matches:
        return None
    return matches[-1].group(1).strip()


def _hwm_mb() -> float:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("nan")


@contextmanager
def _alarm(seconds: float, state: dict):
    usable = threading.current_thread() is threading.main_thread() and seconds > 0
    if not usable:
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        state["fired"] = True
        raise PeerTimeout()

    previous = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --------------------------------------------------------------------------
# The peers. Each returns (verdict, reason).
# --------------------------------------------------------------------------

def _sympy_to_latex(text: str, symbol: str) -> str:
    import sympy

    x = sympy.Symbol(symbol)
    expr = sympy.parse_expr(strip_constant(text), local_dict={symbol: x})
    return sympy.latex(expr) + " + C"


def _dollars(latex: str) -> str:
    latex = latex.strip()
    return latex if latex.startswith("$") or "\\boxed" in latex else f"${latex}$"


def _trl(candidate: str, data: dict, symbol: str, timeout_s: float) -> tuple[Verdict, str]:
    from trl.rewards import accuracy_reward

    # The reference, as math-verify can read it: LaTeX in $...$ (bare LaTeX
    # or SymPy syntax parse to nothing or to a stray number), with "+ C" as
    # the answers have one (math-verify keeps C as a symbol).
    if data.get("ref_latex"):
        ref = strip_constant(data["ref_latex"])
        gold = _dollars(ref + " + C")
    elif data.get("ref"):
        try:
            gold = _dollars(_sympy_to_latex(data["ref"], symbol))
        except Exception:  # noqa: BLE001
            return Verdict.CHECKER_ERROR, "reference_unparseable"
    else:
        return Verdict.CHECKER_ERROR, "no_reference"
    # The completion: a real response as it is; a bare answer boxed. A
    # SymPy-syntax answer is first printed as LaTeX (charitable: math-verify
    # reads x**2 or asin(x) as garbage and accepts none of them).
    syntax = data.get("syntax")
    if syntax == "response":
        content = candidate
    elif syntax == "sympy":
        try:
            content = "\\boxed{" + _sympy_to_latex(candidate, symbol) + "}"
        except PeerTimeout:
            raise
        except Exception:  # noqa: BLE001
            return Verdict.UNPARSEABLE, "answer_unparseable"
    else:
        content = "\\boxed{" + candidate + "}"
    logged: dict[str, list] = {}
    reward = accuracy_reward([[{"role": "assistant", "content": content}]], [gold],
                             log_extra=lambda key, values: logged.__setitem__(key, values))[0]
    if reward is None:
        return Verdict.CHECKER_ERROR, "reference_unparseable"
    if reward >= 1.0:
        return Verdict.CORRECT, "verified"
    if logged.get("answer_parsed", ["?"])[0] == "[unparseable]":
        return Verdict.UNPARSEABLE, "answer_unparseable"
    return Verdict.WRONG, "not_equal"


def _reasoning_gym(candidate: str, data: dict, symbol: str,
                   timeout_s: float) -> tuple[Verdict, str]:
    import sympy

    # reasoning-gym's score_answer, split only to report which step failed
    # (its bare except makes every failure a 0.0 reward).
    answer = rgym_extract_answer(candidate) if data.get("syntax") == "response" else candidate
    if answer is None:
        return Verdict.UNPARSEABLE, "no_answer"
    x = sympy.Symbol(symbol)
    try:
        user_expr = sympy.parse_expr(answer, local_dict={symbol: x, "C": sympy.Symbol("C")})
    except PeerTimeout:
        raise
    except:  # noqa: E722 - faithful: reasoning-gym catches everything
        return Verdict.UNPARSEABLE, "parse_expr_error"
    try:
        derivative = sympy.diff(user_expr, x)
        integrand = sympy.parse_expr(data["f"], local_dict={symbol: x})
        if sympy.simplify(derivative - integrand) == 0:
            return Verdict.CORRECT, "simplify_zero"
    except PeerTimeout:
        raise
    except:  # noqa: E722
        return Verdict.WRONG, "exception"
    return Verdict.WRONG, "simplify_nonzero"


def _rlve(candidate: str, data: dict, symbol: str, timeout_s: float) -> tuple[Verdict, str]:
    import sympy

    answer = rgym_extract_answer(candidate) if data.get("syntax") == "response" else candidate
    if answer is None:
        return Verdict.UNPARSEABLE, "no_answer"
    answer = strip_constant(answer.strip())
    # RLVE's _process
    if len(answer) > 10000:
        return Verdict.UNPARSEABLE, "too_long"
    try:
        processed = sympy.sympify(answer)
    except PeerTimeout:
        raise
    except:  # noqa: E722
        return Verdict.UNPARSEABLE, "sympify_error"
    if not isinstance(processed, sympy.Expr):
        return Verdict.UNPARSEABLE, "not_an_expression"
    # RLVE's scorer
    x = sympy.symbols(symbol)
    if processed.free_symbols - {x}:
        return Verdict.WRONG, "extra_symbols"
    ref = data.get("ref")
    if ref:
        try:
            ref_expr = sympy.sympify(strip_constant(ref))
            if sympy.count_ops(processed) > 4 * sympy.count_ops(ref_expr):
                return Verdict.WRONG, "too_complex"
        except PeerTimeout:
            raise
        except:  # noqa: E722
            return Verdict.UNPARSEABLE, "reference_error"
    try:
        expr = sympy.diff(processed, x) - sympy.sympify(data["f"], locals={symbol: x})
        if sympy.count_ops(expr) > 5000:
            return Verdict.WRONG, "too_complex"
    except PeerTimeout:
        raise
    except:  # noqa: E722
        return Verdict.UNPARSEABLE, "diff_error"
    eq = expr.is_zero
    if eq is not None:
        return (Verdict.CORRECT, "is_zero") if eq else (Verdict.WRONG, "is_zero_false")
    try:
        compute = sympy.lambdify(x, expr, modules=["math"])
    except PeerTimeout:
        raise
    except:  # noqa: E722
        return Verdict.WRONG, "lambdify_error"
    zero_count = 0
    points = [-2 + 4 * i / 1023 for i in range(1024)]
    for pt in points:
        try:
            val = float(compute(pt))
        except PeerTimeout:
            raise
        except:  # noqa: E722
            continue
        if not math.isfinite(val):
            continue
        if abs(val) > 1e-5:
            return Verdict.WRONG, "numeric_mismatch"
        zero_count += 1
    if zero_count >= len(points) // 4:
        return Verdict.CORRECT, "numeric_zero"
    return Verdict.WRONG, "too_few_finite_points"


def _ladder(candidate: str, data: dict, symbol: str, timeout_s: float) -> tuple[Verdict, str]:
    import sympy
    from scipy.integrate import quad

    answer = rgym_extract_answer(candidate) if data.get("syntax") == "response" else candidate
    if answer is None:
        return Verdict.UNPARSEABLE, "no_answer"
    answer = strip_constant(answer.strip())
    x = sympy.Symbol(symbol)
    try:
        F = sympy.sympify(answer, locals={symbol: x})
        f = sympy.sympify(data["f"], locals={symbol: x})
    except PeerTimeout:
        raise
    except Exception:  # noqa: BLE001
        return Verdict.UNPARSEABLE, "sympify_error"
    if not isinstance(F, sympy.Expr):
        return Verdict.UNPARSEABLE, "not_an_expression"
    if F.free_symbols - {x}:
        return Verdict.WRONG, "extra_symbols"
    try:
        F_num = sympy.lambdify(x, F, modules=["math"])
        f_num = sympy.lambdify(x, f, modules=["math"])
    except PeerTimeout:
        raise
    except Exception:  # noqa: BLE001
        return Verdict.WRONG, "lambdify_error"

    def real(fn, t):
        value = float(fn(t))
        if not math.isfinite(value):
            raise ValueError("not finite")
        return value

    rng = random.Random(zlib.crc32(f"{answer}|{data['f']}".encode()))
    agree = 0
    for _ in range(100):
        a = rng.uniform(-10, 10)
        b = a + rng.uniform(0.05, 1.0)
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                integral, _err = quad(lambda t: real(f_num, t), a, b, limit=100)
            difference = real(F_num, b) - real(F_num, a)
        except PeerTimeout:
            raise
        except Exception:  # noqa: BLE001 - outside the domain: draw another interval
            continue
        if not (math.isfinite(integral) and math.isfinite(difference)):
            continue
        if abs(difference - integral) > 1e-2 * max(1.0, abs(integral)):
            return Verdict.WRONG, "quadrature_mismatch"
        agree += 1
        if agree == 5:
            return Verdict.CORRECT, "quadrature_match"
    return Verdict.WRONG, "too_few_intervals"


def _seed(candidate: str, data: dict, symbol: str, timeout_s: float) -> tuple[Verdict, str]:
    from .seed_design import check_antiderivative

    kind = data.get("syntax") or "latex"
    if kind == "response":
        kind = "response"
    result = check_antiderivative(candidate, data["f"], symbol=symbol, timeout_s=timeout_s,
                                  input_kind=kind, integrand_kind="sympy",
                                  use_subprocess=False)
    reason = str(result.detail.get("reason") or result.stage)
    error = str(result.detail.get("error", ""))
    if "PeerTimeout" in error:
        return Verdict.TIMEOUT, "deadline"
    return Verdict(result.verdict.value), reason


_PEERS = {
    "trl_math_verify": _trl,
    "reasoning_gym": _reasoning_gym,
    "rlve_numeric": _rlve,
    "ladder_numeric": _ladder,
    "seed_design": _seed,
}
# Peers that set SIGALRM themselves: our alarm would be overridden.
_OWN_ALARMS = {"trl_math_verify"}


def _preimport(method: str) -> None:
    # Imports are paid once per worker, outside the timed region.
    import sympy  # noqa: F401

    if method == "trl_math_verify":
        import trl.rewards  # noqa: F401
    elif method == "ladder_numeric":
        import scipy.integrate  # noqa: F401
    elif method == "seed_design":
        from . import seed_design  # noqa: F401


def bench_check(candidate: str, integrand: str, request: CheckRequest, *, method: str,
                **_: Any) -> CheckResult:
    """Worker-side entry point with ``check_antiderivative``'s signature, for
    :class:`rewards.reward.pool.CheckPool` (``check_fn``, bound to a ``method`` with
    :func:`functools.partial`). ``integrand`` is a :func:`payload`; ``method``
    one of :data:`PEER_METHODS`; the request gives the variable and deadline.
    """
    symbol, timeout_s = request.symbol or request.default_symbol, request.timeout_s
    data = json.loads(integrand)
    peer = _PEERS[method]
    _preimport(method)
    state: dict[str, bool] = {"fired": False}
    started = time.perf_counter()
    try:
        if data.get("f") is None and method != "trl_math_verify":
            verdict, reason = Verdict.CHECKER_ERROR, "integrand_unavailable"
        elif method in _OWN_ALARMS:
            verdict, reason = peer(candidate, data, symbol, timeout_s)
        else:
            with _alarm(timeout_s, state):
                verdict, reason = peer(candidate, data, symbol, timeout_s)
    except PeerTimeout:
        verdict, reason = Verdict.TIMEOUT, "deadline"
    except RecursionError:
        verdict, reason = Verdict.UNPARSEABLE, "recursion"
    except MemoryError:
        verdict, reason = Verdict.UNPARSEABLE, "memory"
    except Exception as exc:  # noqa: BLE001 - a peer's crash is its verdict, not ours
        verdict, reason = Verdict.CHECKER_ERROR, f"{type(exc).__name__}"
    elapsed_ms = (time.perf_counter() - started) * 1000
    if state["fired"] or elapsed_ms > timeout_s * 1000:
        verdict, reason = Verdict.TIMEOUT, "deadline"
    return CheckResult(verdict, method, [StageRecord(method, ms=elapsed_ms)],
                       {"reason": reason, "total_ms": round(elapsed_ms, 3),
                        "rss_hwm_mb": round(_hwm_mb(), 1), "pid": os.getpid()})


__all__ = ["PEER_METHODS", "bench_check", "payload", "rgym_extract_answer", "strip_constant"]
