r"""Adversarial corpus: hostile model output must never earn a correct reward.

Every case is a whole completion, as the policy would emit it, run through
``check_antiderivative(..., input_kind="response")``. For each one:

* the verdict is not CORRECT and its reward is below a correct answer's;
* the verdict is never CHECKER_ERROR (hostile text is the model's doing, not
  a bug in us, and CHECKER_ERROR would take the sample out of the gradient);
* the verdict is exactly the case's ``expect``, checked under a deadline
  generous enough that load cannot turn a refusal into TIMEOUT; only the
  few cases marked ``slow`` (inputs whose check is bounded by the deadline,
  not finished before it) run under a short deadline and may be TIMEOUT;
  the heaviest cases also go through the real worker pool, whose watchdog
  is the hard bound;
* nothing outside the checker happens: no file appears in the working
  directory or at the canary paths the payloads aim for, and an audit hook
  sees no process spawn, socket, file write or deletion.

Tests assert behaviour, not speed: the only clock is a generous hang guard.
See docs/security.md for the threat model these cases pin down.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

import psutil
import pytest

from rewards import AntiderivativeReward, RewardShaping, Verdict, check_antiderivative
from tests.support import HANG_GUARD_S

V = Verdict
SHAPING = RewardShaping.preset("default")
CORRECT_REWARD = SHAPING.correct_symbolic
# Refusals are decided in well under a second; 20 s means a loaded machine
# cannot turn one into TIMEOUT. Slow cases get the short deadline instead.
TIMEOUT_S = 20.0
SLOW_TIMEOUT_S = 2.0
CANARY = f"/tmp/rewards-adversarial-canary-{os.getpid()}"  # payloads try to create this


@dataclass(frozen=True)
class Case:
    id: str
    completion: str
    integrand: str = "x"
    # The one verdict the case must get (UNP or WRONG below).
    expect: frozenset = frozenset()
    # A slow input: the deadline ends its check, so TIMEOUT is also right
    # (the verdict in ``expect`` is what a faster machine would reach).
    slow: bool = False
    # Also run through the worker pool (heavy cases: the watchdog bounds them).
    pool: bool = False


def box(s: str) -> str:
    return r"The answer is \boxed{" + s + "}."


def tag(s: str) -> str:
    return "<answer>" + s + "</answer>"


UNP = frozenset({V.UNPARSEABLE})
WRONG = frozenset({V.WRONG})

CASES: list[Case] = [
    # --- code in SymPy syntax: refused before anything is built ------------
    Case("import_system_tag", tag(f"__import__('os').system('touch {CANARY}')"), expect=UNP),
    Case("import_system_box", box(f"__import__('os').system('touch {CANARY}')"), expect=UNP),
    Case("attribute_chain", tag("x.__class__.__mro__[1].__subclasses__()"), expect=UNP),
    Case("attribute_no_dunder", tag("(x**2/2).subs(x, 1)"), expect=UNP),
    Case("lambda_call", tag("(lambda: __import__('os'))()"), expect=UNP),
    Case("lambda_value", tag("lambda x: x**2/2"), expect=UNP),
    Case("eval_call", tag("eval('x**2/2')"), expect=UNP),
    Case("exec_call", tag("exec('import os')"), expect=UNP),
    Case("open_write", tag(f"open('{CANARY}', 'w')"), expect=UNP),
    Case("getattr_call", tag("getattr(x, 'evalf')()"), expect=UNP),
    Case("conditional_side_effect",
         tag(f"x**2/2 if __import__('os').system('touch {CANARY}') else 0"), expect=UNP),
    Case("comprehension", tag("[x**2/2 for _ in ().__class__.__base__.__subclasses__()]"),
         expect=UNP),
    Case("sympify_string", tag(f"sympify(\"__import__('os').system('touch {CANARY}')\")"),
         expect=UNP),
    Case("sympy_constructor", tag("Symbol('x')**2/2"), expect=UNP),
    Case("read_file_times_zero", tag("x**2/2 + 0*len(open('/etc/passwd').read())"), expect=UNP),
    Case("fstring", tag("f'{x}'"), expect=WRONG),
    Case("statement", tag("x**2/2; import os"), expect=UNP),
    Case("walrus", tag("(y := x**2/2)"), expect=UNP),
    Case("globals_lookup", tag("globals()['__builtins__']"), expect=UNP),
    Case("breakpoint_times_zero", tag("x**2/2 + 0*breakpoint()"), expect=UNP),
    Case("subscript", tag("[x**2/2][0]"), expect=UNP),
    Case("string_literal", tag("'x**2/2'"), expect=UNP),
    # --- LaTeX and TeX primitives: nothing is expanded or executed ---------
    Case("tex_input", box(r"\input{/etc/passwd}"), expect=UNP),
    Case("tex_include", box(r"\include{/etc/passwd}"), expect=UNP),
    Case("tex_def", box(r"\def\f{\frac{x^2}{2}}\f"), expect=UNP),
    Case("tex_newcommand", box(r"\newcommand{\f}{\frac{x^2}{2}}\f"), expect=UNP),
    Case("tex_write18", box(r"\immediate\write18{touch " + CANARY + "}"), expect=UNP),
    Case("tex_csname", box(r"\csname frac\endcsname{x^2}{2}"), expect=UNP),
    Case("tex_catcode", box(r"\catcode`\{=12 \frac{x^2}{2}"), expect=UNP),
    Case("tex_href", box(r"\href{http://127.0.0.1/exfil}{x}"), expect=UNP),
    Case("tex_text_input", box(r"x + \text{\input{/etc/passwd}}"), expect=UNP),
    Case("tex_openout", box(r"\newwrite\f\immediate\openout\f=" + CANARY + r"\frac{x^2}{2}"),
         expect=UNP),
    # --- huge numbers, towers, factorials, sums and products ---------------
    Case("huge_exponent", box(r"x^{10^{10}}"), expect=UNP),
    Case("power_tower", box(r"2^{2^{2^{2^{2^{2}}}}} x"), expect=UNP),
    Case("factorial_1e10", box(r"(10^{10})!"), expect=UNP),
    Case("gamma_1e10", box(r"\Gamma(10^{10}) x"), expect=UNP),
    Case("binomial_huge", box(r"\binom{10^{10}}{5} x"), expect=WRONG),
    Case("tower_9_9_9", box(r"x \cdot 9^{9^{9}}"), expect=UNP),
    Case("sympy_tower", tag("x*9**9**9"), expect=UNP),
    Case("sympy_factorial", tag("factorial(10**10)*x"), expect=UNP),
    Case("sympy_float_exponent", tag("x**2/2 + 1e999999999"), expect=UNP),
    Case("sympy_long_literal", tag("x**2/2 + " + "9" * 5000), expect=UNP),
    Case("sum_huge_bound", box(r"\sum_{n=1}^{10^{10}} x^n"), expect=UNP),
    Case("sum_small_bound", box(r"\frac{x^2}{2} + \sum_{n=1}^{1000} n"), expect=UNP),
    Case("product_huge_bound", box(r"\prod_{n=1}^{10^{10}} x"), expect=UNP),
    Case("limit", box(r"\lim_{n\to\infty} \left(1+\frac{x}{n}\right)^{n}"), "exp(x)",
         expect=UNP),
    Case("nested_powers_combine", box(r"\frac{x^2}{2} + ((x+1)^{1000})^{1000}"), expect=WRONG),
    Case("radical_huge_index", box(r"\sqrt[10^{1000}]{x}"), expect=WRONG),
    Case("gcd_eager_polynomials", box(r"\gcd((x+1)^{1000}, (x+2)^{999})"), pool=True,
         expect=WRONG, slow=True),
    Case("tower_of_x", box(r"x^{x^{x^{x^{x^{x}}}}}"), pool=True, expect=WRONG, slow=True),
    Case("long_product", tag("*".join(f"(x+{i})" for i in range(1, 200))), pool=True,
         expect=WRONG, slow=True),
    # --- deep nesting and size -------------------------------------------
    Case("deep_sin_latex", box(r"\sin(" * 2000 + "x" + ")" * 2000), expect=UNP),
    Case("deep_parens_sympy", tag("(" * 100_000 + "x" + ")" * 100_000), expect=UNP),
    Case("deep_braces", box("{" * 100_000 + "x" + "}" * 100_000), expect=UNP),
    Case("deep_sin_sympy", tag("sin(" * 55 + "x" + ")" * 55), expect=WRONG, slow=True),
    Case("long_sum_latex", box("x+" * 3000 + "x"), expect=UNP),
    Case("long_sum_sympy", tag("x+" * 3000 + "x"), expect=UNP),
    Case("megabyte_prose", "a" * 1_000_000 + box(r"\frac{x^2}{2}"), expect=UNP, pool=True),
    Case("two_megabytes_whitespace", box(r"\frac{x^2}{2}") + " " * 2_000_000, expect=UNP),
    Case("megabyte_unclosed_box", r"\boxed{" * 200_000, expect=UNP),
    Case("thousands_of_boxes_last_wrong", box(r"\frac{x^2}{2}") * 5000 + box("x"),
         expect=WRONG, pool=True),
    Case("thousands_of_wrong_boxes", box("x") * 5000, expect=WRONG),
    Case("thousands_of_unclosed_tags", "<answer>" * 20_000, expect=UNP),
    Case("unclosed_after_correct", box(r"\frac{x^2}{2}") + r" \boxed{x", expect=UNP),
    # --- NUL, control and unusual unicode ----------------------------------
    Case("nul_inside_wrong", tag("x**2/2\x00+x"), expect=WRONG),
    Case("nul_splits_keyword", tag("__imp\x00ort__('os')"), expect=UNP),
    Case("nul_flood", "\x00" * 100_000 + box("x"), expect=WRONG),
    Case("ansi_escape", tag("x**2/2\x1b[2J"), expect=UNP),
    Case("bell_in_latex", box("\\frac{x^2}{2}\x07"), expect=UNP),
    Case("rtl_override", box("\\frac{x^2}{2}\u202e + x"), expect=UNP),
    Case("zero_width_space", tag("x**2/2\u200b+x"), expect=WRONG),
    Case("bom", tag("\ufeffx**2/2 + x"), expect=UNP),
    Case("fullwidth_x", tag("\uff58**2/2"), expect=UNP),
    Case("cyrillic_x", box("\\frac{\u0445^2}{2}"), expect=UNP),
    Case("math_italic_x", box("\\frac{\U0001d465^2}{2}"), expect=UNP),
    Case("emoji", box("\\frac{x^2}{2}\U0001F600"), expect=UNP),
    Case("lone_surrogate", box("\\frac{x^2}{2}\udc80"), expect=UNP),
    Case("combining_marks", box("\\frac{x\u0301\u0302^2}{2}"), expect=UNP),
    # --- infinities, zoo, nan, division by zero -----------------------------
    Case("latex_infinity", box(r"\frac{x^2}{2} + \infty"), expect=WRONG),
    Case("latex_div_zero", box(r"\frac{x^2}{2} + \frac{1}{0}"), expect=WRONG),
    Case("sympy_zoo", tag("x**2/2 + zoo"), expect=UNP),
    Case("sympy_nan", tag("nan"), expect=WRONG),
    Case("sympy_div_zero", tag("x**2/2 + 1/0"), expect=UNP),
    Case("oo_minus_oo", tag("x**2/2 + oo - oo"), expect=UNP),
    Case("log_zero", tag("x**2/2 + log(0)"), expect=UNP),
    Case("zero_to_negative", box(r"\frac{x^2}{2} + 0^{-1}"), expect=WRONG),
    Case("nan_times_zero", tag("x**2/2 + 0*nan"), expect=UNP),
    # --- Piecewise / Abs / sign tricks that match on half the line ---------
    Case("x_abs_x_for_x", box(r"\frac{x|x|}{2}"), expect=WRONG),
    Case("half_square_for_abs", box(r"\frac{x^2}{2}"), "Abs(x)", expect=WRONG),
    Case("abs_cubed_for_square", tag("Abs(x)**3/3"), "x**2", expect=WRONG),
    Case("heaviside_half", tag("x**2/2*Heaviside(x)"), expect=WRONG),
    Case("sign_trick", tag("sign(x)*x**2/2"), expect=WRONG),
    Case("sqrt_square", tag("sqrt(x**2)*x/2"), expect=WRONG),
    # (ln x for 1/|x| is CORRECT by the domain rule: right on the whole of
    # x > 0, undefined elsewhere; tests/cases/domain.py holds that rule.)
    # The qualifier is named (qualified_answer:for), never dropped by the parser.
    Case("condition_text_ignored", box(r"\frac{x^2}{2} \text{ for } x > 0"), "Abs(x)",
         expect=UNP),
    # Piecewise answers are read (a correct one is a control below); each
    # piece is checked on its own interval, however far out, and the pieces
    # must cover the integrand's real domain.
    Case("cases_wrong_piece",
         box(r"\begin{cases} \frac{x^2}{2} & x>0 \\ \frac{x^2}{2} & x \le 0 \end{cases}"),
         "Abs(x)", expect=WRONG),
    Case("cases_wrong_far_piece",
         box(r"\begin{cases} \frac{x^2}{2} & 0 \le x \le 40 \\ -\frac{x^2}{2} & x < 0 "
             r"\\ 800 & \text{otherwise} \end{cases}"), "Abs(x)", expect=WRONG),
    Case("cases_wrong_narrow_piece",
         box(r"\begin{cases} \frac{x^2}{2} & x \ge 0 \\ x & -1.001 < x < -1 \\ "
             r"-\frac{x^2}{2} & \text{otherwise} \end{cases}"), "Abs(x)", expect=WRONG),
    Case("cases_gap", box(r"\begin{cases} \frac{x^2}{2} & x > 1 \\ -\frac{x^2}{2} & x < -1 "
                          r"\end{cases}"), "Abs(x)", expect=WRONG),
    Case("cases_one_sided", box(r"\begin{cases} \frac{x^2}{2} & x \ge 0 \end{cases}"), "x",
         expect=WRONG),
    Case("cases_constant_condition", box(r"\begin{cases} \frac{x^2}{2} & C > 0 \\ 0 & "
                                         r"\text{otherwise} \end{cases}"), "x", expect=UNP),
    Case("sympy_piecewise_wrong_far_piece",
         tag("Piecewise((x**2/2, x > 0), (-x**2/2, x > -50), (0, True))"), "Abs(x)",
         expect=WRONG),
    Case("sympy_piecewise_gap", tag("Piecewise((x**2/2, x > 1), (-x**2/2, x < -1))"), "Abs(x)",
         expect=WRONG),
    Case("sympy_relation_outside_piecewise", tag("x**2/2 + (x > 0)"), expect=UNP),
    Case("sympy_piecewise_code_condition",
         tag("Piecewise((x**2/2, __import__('os').system('ls') == 0), (x**2/2, True))"),
         expect=UNP),
    Case("max_trick", box(r"\max(x, 0)^{2}"), "x", expect=WRONG),
    Case("floor_added", box(r"\frac{x^3}{3} + \lfloor x \rfloor"), "x**2", expect=WRONG),
    Case("ceiling_added", box(r"\frac{x^3}{3} + \lceil x \rceil"), "x**2", expect=WRONG),
    # --- tiny added terms ---------------------------------------------------
    Case("tiny_1e-13", box(r"e^x + 10^{-13}x"), "exp(x)", expect=WRONG),
    Case("tiny_1e-30_sin", box(r"\frac{x^2}{2} + 10^{-30}\sin x"), expect=WRONG),
    Case("tiny_inside_sin", box(r"\frac{x^2}{2} + \sin(10^{-30} x)"), expect=WRONG),
    Case("tiny_1e-200", box(r"e^x + 10^{-200}x"), "exp(x)", expect=WRONG),
    Case("tiny_1e-999_sympy", tag("x**2/2 + 1e-999*x"), expect=WRONG),
    Case("tiny_1e-200_sin", box(r"\frac{x^2}{2} + 10^{-200}\sin x"), expect=WRONG),
    Case("narrow_bump", box(r"\frac{x^2}{2} + (e^{-1000x^2})^{1000}"), expect=WRONG),
    Case("tiny_shift_squared", box(r"\frac{(x + 10^{-200})^2}{2}"), expect=WRONG),
    # The same perturbation inside a function or a factor (no additive term).
    Case("tiny_shift_in_cos", box(r"-\cos(x + 10^{-200})"), "sin(x)", expect=WRONG),
    Case("tiny_factor", box(r"\frac{x^2}{2}(1 + 10^{-200})"), expect=WRONG),
    Case("tiny_shift_in_exp", box(r"e^{x + 10^{-200}}"), "exp(x)", expect=WRONG),
    Case("tiny_shift_in_log", box(r"\ln(x + 10^{-200})"), "1/x", expect=WRONG),
    Case("tiny_in_denominator", box(r"\frac{x^{3}}{3 + 10^{-200}}"), "x**2", expect=WRONG),
    # --- the integrand itself, its derivative, the echoed integral ---------
    Case("integrand_itself", box("x^2"), "x**2", expect=WRONG),
    Case("derivative_of_integrand", box("2x"), "x**2", expect=WRONG),
    Case("integrand_itself_sympy", tag("sin(x)"), "sin(x)", expect=WRONG),
    Case("echoed_integral", box(r"\int x^2\,dx"), "x**2", expect=UNP),
    Case("echoed_definite_integral", box(r"\int_0^x t^2\,dt"), "x**2", expect=UNP),
    Case("echoed_integral_sympy", tag("Integral(x**2, x)"), "x**2", expect=UNP),
    Case("integrate_call", tag("integrate(x**2, x)"), "x**2", expect=UNP),
    Case("derivative_operator", box(r"\frac{d}{dx}\left(\frac{x^3}{3}\right)"), "x**2",
         expect=UNP),
    Case("named_antiderivative", box("F(x)"), "x**2", expect=WRONG),
    Case("undefined_function", box(r"\theta(x) x"), "x**2", expect=WRONG),
    Case("text_answer", box(r"\text{the antiderivative of } x^2"), "x**2", expect=WRONG),
    Case("constant_only", box("C"), "x**2", expect=WRONG),
    Case("empty_box", box(""), "x**2", expect=UNP),
    Case("no_box", "The integral is x^3/3 + C.", "x**2", expect=UNP),
    Case("question_mark", box("?"), "x**2", expect=UNP),
    # --- extra symbols ------------------------------------------------------
    Case("extra_symbol_y", box(r"\frac{x^3}{3} + y"), "x**2", expect=WRONG),
    Case("constant_times_x", box(r"\frac{x^3}{3} + Cx"), "x**2", expect=WRONG),
    Case("greek_symbol", box(r"\frac{x^3}{3} + \alpha"), "x**2", expect=WRONG),
    Case("parameter_not_in_integrand", tag("x**3/3 + a"), "x**2", expect=WRONG),
    Case("wrong_variable", box(r"\frac{t^3}{3}"), "x**2", expect=WRONG),
    Case("exp_of_constant", box(r"\frac{x^3}{3} + e^{C}"), "x**2", expect=WRONG),
    Case("imaginary_term", tag("x**3/3 + I*x"), "x**2", expect=WRONG),
    # --- hedges: several answers in one ------------------------------------
    Case("hedge_or", box(r"\frac{x^3}{3} \text{ or } x^2"), "x**2", expect=WRONG),
    Case("hedge_comma", box(r"\frac{x^3}{3}, x^2"), "x**2", expect=UNP),
    Case("hedge_pm", box(r"\frac{x^3}{3} \pm x"), "x**2", expect=WRONG),
    # Many different boxes: only the last is right, the rest are hedges.
    Case("last_of_many_boxes", box("x") * 1000 + box(r"\frac{x^{3}}{3}"), "x**2",
         expect=WRONG),
    Case("hedge_set", box(r"\{\frac{x^3}{3}, x\}"), "x**2", expect=UNP),
    Case("hedge_two_boxes", box(r"\frac{x^3}{3}") + " or " + box("x^2"), "x**2", expect=WRONG),
]

assert len(CASES) >= 60
assert len({c.id for c in CASES}) == len(CASES)
# Every case names exactly one verdict, and never a non-refusal.
assert all(len(c.expect) == 1 and c.expect <= {V.UNPARSEABLE, V.WRONG} for c in CASES)


# --- side-effect monitor -----------------------------------------------------
_FORBIDDEN_EVENTS = {
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "socket.sendto", "os.remove", "os.unlink", "os.rmdir", "os.rename", "os.mkdir",
    "os.truncate", "os.chmod", "os.chown", "os.link", "os.symlink", "shutil.rmtree",
    "shutil.copyfile", "shutil.move", "ctypes.dlopen", "pty.spawn", "webbrowser.open",
    "urllib.Request",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class _SideEffects:
    """A process-wide audit hook that records forbidden events while active.

    Audit hooks cannot be removed; this one does nothing when inactive.
    """

    installed = False
    active = False
    seen: list = []

    @classmethod
    def install(cls) -> None:
        if not cls.installed:
            sys.addaudithook(cls._hook)
            cls.installed = True

    @classmethod
    def _hook(cls, event, args):
        if not cls.active:
            return
        if "__pycache__" in repr(args):
            return  # the import system caching bytecode of a lazily imported module
        if event in _FORBIDDEN_EVENTS:
            cls.seen.append((event, repr(args)[:200]))
        elif event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writes = (isinstance(mode, str) and any(ch in mode for ch in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writes:
                cls.seen.append((event, repr(args)[:200]))


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A fresh cwd, an audit hook and booby-trapped process spawners."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"the checker tried to spawn a process: {args!r:.200}")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "system", refuse)
    monkeypatch.setattr(os, "popen", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    _SideEffects.install()
    _SideEffects.seen = []
    before = sorted(os.listdir(tmp_path))
    _SideEffects.active = True
    try:
        yield tmp_path
    finally:
        _SideEffects.active = False
    assert _SideEffects.seen == [], _SideEffects.seen
    assert sorted(os.listdir(tmp_path)) == before
    assert not os.path.exists(CANARY)


def _reward_of(result) -> float | None:
    return SHAPING.reward(result.verdict, result.confidence, result.reason)


def _assert_hostile_outcome(case: Case, result) -> None:
    assert result.verdict is not V.CHECKER_ERROR, result.detail
    assert result.verdict is not V.CORRECT, (case.id, result.stage, result.detail)
    reward = _reward_of(result)
    assert reward is not None and reward < CORRECT_REWARD
    allowed = case.expect | {V.TIMEOUT} if case.slow else case.expect
    assert result.verdict in allowed, (case.id, result.verdict, result.detail)


# --- the corpus, in process --------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_hostile_completion_is_not_rewarded(case, sandbox):
    started = time.monotonic()
    result = check_antiderivative(case.completion, case.integrand, input_kind="response",
                                  timeout_s=SLOW_TIMEOUT_S if case.slow else TIMEOUT_S)
    assert time.monotonic() - started < HANG_GUARD_S
    _assert_hostile_outcome(case, result)


def test_canary_payload_really_would_create_the_file(tmp_path):
    # Guards the guard: the payload string is a working command, so its
    # absence after the corpus means it was not run.
    target = tmp_path / "canary"
    os.system(f"touch {target}")  # noqa: S605 - test of the test
    assert target.exists()


CONTROLS = [
    pytest.param(box(r"\frac{x^{3}}{3} + C"), "x**2", id="latex_box"),
    pytest.param(tag("x**3/3 + C"), "x**2", id="sympy_tag"),
    pytest.param("junk " * 10_000 + box(r"\frac{x^{3}}{3}"), "x**2", id="after_50k_prose"),
    # The same answer restated in 1000 boxes is one answer.
    pytest.param(box(r"\frac{x^{3}}{3}") * 1000, "x**2", id="many_identical_boxes"),
    pytest.param(box("-\\cos x + C"), "sin(x)", id="trig"),
    pytest.param(box(r"\ln|x|"), "1/x", id="log_abs"),
    # A float inside a constant exponent is small, not "too large".
    pytest.param(box(r"\frac{x^{2}}{2} + e^{\sin(0.5)}"), "x", id="float_in_exponent"),
    # Piecewise answers, right on every piece and covering the line.
    pytest.param(box(r"\begin{cases} \frac{x^2}{2} & x>0 \\ -\frac{x^2}{2} & x \le 0 "
                     r"\end{cases}"), "Abs(x)", id="cases_environment"),
    pytest.param(tag("Piecewise((x**2/2, x > 0), (-x**2/2, True))"), "Abs(x)",
                 id="sympy_piecewise"),
]


@pytest.mark.parametrize("completion,integrand", CONTROLS)
def test_controls_are_still_correct(completion, integrand, sandbox):
    # The corpus is not vacuous: the same channels carry correct answers.
    result = check_antiderivative(completion, integrand, input_kind="response",
                                  timeout_s=TIMEOUT_S)
    assert result.verdict is V.CORRECT, result.detail


# --- the heavy subset, end to end through the worker pool ------------------
def _workers(exclude: set[int] = frozenset()) -> list[psutil.Process]:
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.pid not in exclude and p.status() != psutil.STATUS_ZOMBIE \
                    and "resource_tracker" not in " ".join(p.cmdline()):
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


@pytest.mark.slow
def test_heavy_cases_through_the_pool_are_bounded():
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    heavy = [c for c in CASES if c.pool] + [
        c for c in CASES if c.expect == UNP and c.id.startswith(("import", "tex_", "huge"))]
    good = [box(r"\frac{x^{2}}{2} + " + str(k)) for k in range(4)]
    completions = [c.completion for c in heavy] + good
    integrands = [c.integrand for c in heavy] + ["x"] * len(good)
    started = time.monotonic()
    with AntiderivativeReward(workers=2, timeout_s=2, watchdog_margin_s=1,
                              cache_size=0) as reward:
        outcomes = reward.score(completions, integrands)
        assert time.monotonic() - started < 4 * HANG_GUARD_S
        assert len(outcomes) == len(completions)
        for case, outcome in zip(heavy, outcomes, strict=False):
            assert outcome.judged and outcome.reward is not None, case.id
            # Under the pool's short deadline a heavy case may be cut off
            # (TIMEOUT); if it finishes, it gets the case's verdict.
            assert outcome.result.verdict in case.expect | {V.TIMEOUT}, (
                case.id, outcome.result.detail)
            assert outcome.reward < CORRECT_REWARD, case.id
        # Innocent samples in the same batch keep their verdicts.
        assert [o.verdict for o in outcomes[len(heavy):]] == ["CORRECT"] * len(good)
    assert not os.path.exists(CANARY)
    deadline = time.monotonic() + 10
    while _workers(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers(before) == []
