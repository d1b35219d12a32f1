r"""Families of answers that jump, or sit on another branch off the real domain
(issue 25, items 2 and 4).

* ``branch_log``: a complex logarithm of an argument that crosses the cut on
  the real line (``\frac{1}{2bi}\ln\frac{x - x_0 - bi}{x - x_0 + bi}`` for
  ``1/((x - x_0)^2 + b^2)``: real, F' = f, and a jump of pi/b at x_0), next to
  the written forms that do not cross (``\ln(x - x_0 - bi) - \ln(x - x_0 + bi)``,
  ``\ln\frac{b + i(x - x_0)}{b - i(x - x_0)}``), the arctan form and the crossing
  form joined by its sign term; the pole b, the shift x_0 and the coefficient
  drawn, with b a parameter in some draws.
* ``arctan_scale``: ``-A\arctan\frac{1}{c(x - x_0)}`` for the peak
  ``A c/(1 + c^2 (x - x_0)^2)`` of height A c, with c from 1 to 1e12 (and the
  ``\frac{1}{\varepsilon}\arctan\frac{\varepsilon}{x - x_0}`` form for
  ``1/((x - x_0)^2 + \varepsilon^2)``): a jump of pi A next to a peak that
  hides it at any fixed distance; the right ``A\arctan(c(x - x_0))``.
* ``off_domain_branch``: ``A\arcsin((x/c)^q)`` for ``A q/\sqrt{c^{2q} x^{2-2q} - x^2}``,
  real only on (0, c), where the complex screen disagrees (another branch off
  the axis) and the real reading decides; wrong answers right only on part
  of (0, c), jumping inside it, or with the arccos sign error.
"""
from __future__ import annotations

import random
from fractions import Fraction

from . import Case, Family


def _frac_latex(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    sign = "-" if q < 0 else ""
    return rf"{sign}\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"


def _frac_sympy(q: Fraction) -> str:
    return f"({q.numerator}/{q.denominator})" if q.denominator != 1 else f"({q.numerator})"


def _shift_latex(x0: Fraction) -> str:
    """``x - x_0`` in LaTeX."""
    if x0 == 0:
        return "x"
    return rf"x - {_frac_latex(x0)}" if x0 > 0 else rf"x + {_frac_latex(-x0)}"


def _times(k: int) -> str:
    """The coefficient k in front of a function: ``""``, ``"-"`` or ``"k"``."""
    return {1: "", -1: "-"}.get(k, str(k))


def _coefficient(rng: random.Random) -> int:
    return rng.choice([1, 1, 2, 3, 5, -1, -2, -3])


# --- branch_log --------------------------------------------------------------------

def _branch_log(rng: random.Random) -> list[Case]:
    x0 = Fraction(rng.randint(-6, 6), rng.choice([1, 1, 2, 3]))
    A = _coefficient(rng)
    parameter = rng.random() < 0.3
    if parameter:
        b_tex, b_py = "a", "a"
    else:
        b = Fraction(rng.randint(1, 9), rng.choice([1, 1, 2, 4]))
        b_tex, b_py = _frac_latex(b), _frac_sympy(b)
    t = _shift_latex(x0)
    t_py = f"(x - {_frac_sympy(x0)})"
    integrand = f"({A})/({t_py}**2 + {b_py}**2)"
    bi = "ai" if parameter else (rf"{b_tex}i" if b_tex != "1" else "i")
    # The coefficient A/(2bi) (and its i/(2b) spelling).
    if parameter:
        over = rf"\frac{{{A}}}{{2ai}}"
        over_i = rf"\frac{{{A}i}}{{2a}}"
        pi_over = rf"\frac{{{A}\pi}}{{2a}}"
    else:
        over = rf"\frac{{{A}}}{{2\cdot {b_tex} i}}"
        over_i = rf"\frac{{{A}i}}{{2\cdot {b_tex}}}"
        pi_over = rf"\frac{{{A}\pi}}{{2\cdot {b_tex}}}"
    crossing = rng.choice([
        (rf"{over}\ln\frac{{{t} - {bi}}}{{{t} + {bi}}}", "ln((t-bi)/(t+bi)) crosses the cut at t=0"),
        (rf"{over_i}\ln\frac{{{t} + {bi}}}{{{t} - {bi}}}", "ln((t+bi)/(t-bi)) crosses the cut at t=0"),
        (rf"{over}\ln\left(\frac{{{t} - {bi}}}{{{t} + {bi}}}\right) + {rng.randint(1, 9)}",
         "the crossing form plus a constant"),
        (rf"{over}\ln\frac{{\left({t} - {bi}\right)^2}}{{\left({t}\right)^2 + {b_tex}^2}}",
         "the same argument written as (t-bi)^2/(t^2+b^2)"),
        (rf"2\cdot {over}\ln\sqrt{{\frac{{{t} - {bi}}}{{{t} + {bi}}}}}",
         "the square root and the log both cross at t=0"),
    ])
    cases = [Case(crossing[0], integrand, "wrong",
                  f"{crossing[1]}: F jumps by pi A/b at x0={x0}")]
    right = rng.choice([
        (rf"{over}\left(\ln({t} - {bi}) - \ln({t} + {bi})\right)",
         "each log's argument stays off the cut: continuous"),
        (rf"{over_i}\ln\frac{{{bi} + ({t})}}{{{bi} - ({t})}}",
         "the argument is 1 at t=0: off the cut"),
        (rf"\frac{{{A}}}{{{b_tex}}}\arctan\frac{{{t}}}{{{b_tex}}}", "the real arctan form"),
    ])
    cases.append(Case(right[0], integrand, "correct", right[1]))
    if parameter:
        # Parameters are generic: a sign term that joins the pieces for every
        # a (pi A / 2|a|), and one that adds a jump for a < 0 only.
        cases.append(Case(rf"{over}\ln\frac{{{t} - {bi}}}{{{t} + {bi}}} + "
                          rf"\frac{{{A}\pi}}{{2\lvert a\rvert}}\operatorname{{sgn}}({t})",
                          integrand, "correct", "the jump compensated for every sign of a"))
        cases.append(Case(rf"\frac{{{A}}}{{a}}\arctan\frac{{{t}}}{{a}} + \frac{{{A}\pi}}{{2a}}"
                          rf"(1 - \operatorname{{sgn}} a)\operatorname{{sgn}}({t})", integrand,
                          "wrong", "jumps at x0 for a < 0 only"))
    if not parameter and b > 0:
        # The crossing form made continuous by its sign term (b > 0: the log
        # drops by 2 pi i at x0, F by pi A/b).
        cases.append(Case(rf"{over}\ln\frac{{{t} - {bi}}}{{{t} + {bi}}} + {pi_over}"
                          rf"\operatorname{{sgn}}({t})", integrand, "correct",
                          "the jump compensated by (pi A/2b) sgn(t)"))
    return cases


# --- arctan_scale ------------------------------------------------------------------

def _arctan_scale(rng: random.Random) -> list[Case]:
    exponent = rng.randint(0, 12)
    mantissa = rng.choice([1, 1, 2, 3, 5])
    x0 = Fraction(rng.randint(-9, 9), rng.choice([1, 2, 3, 7]))
    A = _coefficient(rng)
    t = _shift_latex(x0)
    t_py = f"(x - {_frac_sympy(x0)})"
    c_tex = rf"{mantissa}\cdot 10^{{{exponent}}}"
    c_py = f"({mantissa}*10**{exponent})"
    if rng.random() < 0.5:
        integrand = f"{A}*{c_py}/(1 + {c_py}**2*{t_py}**2)"
        wrong = rf"{_times(-A)}\arctan\frac{{1}}{{{c_tex}\left({t}\right)}}"
        right = rf"{_times(A)}\arctan\left({c_tex}\left({t}\right)\right)"
    else:
        # 1/(t^2 + eps^2) with eps = 1/c: the peak is c^2 high, the jump pi c.
        integrand = f"{A}/({t_py}**2 + {c_py}**(-2))"
        wrong = rf"{-A}\cdot {c_tex}\arctan\frac{{1}}{{{c_tex}\left({t}\right)}}"
        right = rf"{A}\cdot {c_tex}\arctan\left({c_tex}\left({t}\right)\right)"
    extra = rng.choice(["", " + x^2", " - 3"])
    if extra == " + x^2":
        integrand = f"{integrand} + 2*x"
    return [Case(wrong + extra, integrand, "wrong",
                 f"jumps by pi at x0={x0}, next to a peak at scale 1e{exponent}"),
            Case(right + extra, integrand, "correct", "the continuous arctan")]


# --- off_domain_branch -------------------------------------------------------------

_POWERS = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(3, 2), Fraction(5, 2))


def _power_latex(q: Fraction, base: str) -> str:
    if q == Fraction(1, 2):
        return rf"\sqrt{{{base}}}"
    if q == Fraction(1, 4):
        return rf"\sqrt[4]{{{base}}}"
    return rf"\left({base}\right)^{{{_frac_latex(q)}}}"


def _off_domain_branch(rng: random.Random) -> list[Case]:
    q = rng.choice(_POWERS)
    root_c = rng.choice([Fraction(1), Fraction(1), Fraction(2), Fraction(3), Fraction(1, 2)])
    c = root_c ** 2
    A = rng.choice([1, 2, 3, 4, -1, -2])
    # f = A q / sqrt(c^{2q} x^{2 - 2q} - x^2): (x/c)^{q-1}/c / sqrt(1 - (x/c)^{2q}) times A q.
    c_2q = root_c ** int(4 * q)
    integrand = f"{A}*{_frac_sympy(q)}/sqrt({_frac_sympy(c_2q)}*x**{_frac_sympy(2 - 2 * q)} - x**2)"
    base = "x" if c == 1 else rf"\frac{{x}}{{{_frac_latex(c)}}}"
    inner = _power_latex(q, base)
    right = rng.choice([
        (rf"{_times(A)}\arcsin {inner}" if q in (Fraction(1, 2), Fraction(1, 4))
         else rf"{_times(A)}\arcsin\left({inner}\right)", "arcsin of a root, real on (0, c)"),
        (rf"{_times(-A)}\arccos\left({inner}\right) + {rng.randint(1, 5)}",
         "-arccos: the same up to a constant"),
    ])
    m = c * Fraction(rng.randint(2, 8), 10)
    m_tex = _frac_latex(m)
    wrong = rng.choice([
        (rf"{right[0]} + \left(x - {m_tex} + \left\lvert x - {m_tex}\right\rvert\right)^2",
         f"right only on (0, {m}) of the component (0, {c})"),
        (rf"{right[0]} + \operatorname{{sgn}}\left(x - {m_tex}\right)", f"jumps at {m} inside (0, {c})"),
        (rf"{_times(A)}\arccos\left({inner}\right)", "arccos with the wrong sign: F' = -f"),
        (rf"{_times(A + (1 if A > 0 else -1))}\arcsin\left({inner}\right)", "the wrong coefficient"),
    ])
    return [Case(right[0], integrand, "correct", right[1]),
            Case(wrong[0], integrand, "wrong", wrong[1])]


FAMILIES = (
    Family("branch_log", "complex logs whose argument crosses the cut on the line, and the "
           "forms that do not", _branch_log),
    Family("arctan_scale", "arctan of a pole next to a peak of height 1 to 1e24", _arctan_scale),
    Family("off_domain_branch", "arcsin/arccos of roots real only on (0, c): the real reading "
           "decides", _off_domain_branch),
)
