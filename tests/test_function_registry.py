"""The function registry (:mod:`rewards.check.function_facts`) is the one table of
functions: both parsers read every entry the same way, and no module keeps a
second spelling table of its own.

Adding a function is one ``Function`` entry in the registry plus one row of
``ROWS`` below."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import sympy as sp

from rewards.check import function_facts as registry
from rewards.check.errors import ParseFailure
from rewards.check.function_facts import (
    FACTS,
    LATEX_CALLS,
    ORDER_CALLS,
    ORDER_SUBSCRIPTS,
    ORDERS,
    REGISTRY,
    SPELLINGS,
    TEXT_CALLS,
)
from rewards.check.parse.read import parse_latex_text
from rewards.check.parse.sympy_text import parse_sympy_text
from rewards.check.parse.sympy_text.functions import FUNCTION_NAMES

# One row per registry entry: (class, a LaTeX spelling, a SymPy-text spelling).
# None where that syntax has no spelling for it (the reason in a comment).
ROWS: list[tuple[type, str | None, str | None]] = [
    (sp.sin, r"\sin x", "sin(x)"),
    (sp.cos, r"\cos x", "cos(x)"),
    (sp.tan, r"\operatorname{tg} x", "tg(x)"),
    (sp.cot, r"\operatorname{ctg}(x)", "cot(x)"),
    (sp.sec, r"\sec x", "sec(x)"),
    (sp.csc, r"\operatorname{cosec}(x)", "csc(x)"),
    (sp.sinh, r"\sinh x", "sinh(x)"),
    (sp.cosh, r"\cosh x", "cosh(x)"),
    (sp.tanh, r"\tanh x", "tanh(x)"),
    (sp.coth, r"\coth x", "coth(x)"),
    (sp.sech, r"\operatorname{sech}(x)", "sech(x)"),
    (sp.csch, r"\operatorname{csch}(x)", "cosech(x)"),
    (sp.asin, r"\arcsin x", "asin(x)"),
    (sp.acos, r"\cos^{-1} x", "acos(x)"),
    (sp.atan, r"\arctan x", "arctan(x)"),
    (sp.acot, r"\operatorname{arccot}(x)", "acot(x)"),
    (sp.asec, r"\operatorname{arcsec}(x)", "asec(x)"),
    (sp.acsc, r"\operatorname{arccsc}(x)", "acsc(x)"),
    (sp.asinh, r"\sinh^{-1} x", "arsinh(x)"),
    (sp.acosh, r"\operatorname{arccosh}(x)", "acosh(x)"),
    (sp.atanh, r"\operatorname{artanh}(x)", "atanh(x)"),
    (sp.acoth, r"\operatorname{arcoth}(x)", "acoth(x)"),
    (sp.asech, r"\operatorname{arsech}(x)", "asech(x)"),
    (sp.acsch, r"\operatorname{arcsch}(x)", "acsch(x)"),
    (sp.exp, r"e^{x}", "exp(x)"),
    (sp.log, r"\ln x", "log(x)"),
    (sp.Pow, r"\sqrt[3]{x}", "cbrt(x)"),
    (sp.Abs, r"\left|x\right|", "abs(x)"),
    (sp.sign, r"\operatorname{sgn}(x)", "sign(x)"),
    (sp.Heaviside, r"H(x)", "Heaviside(x)"),
    (sp.floor, r"\lfloor x \rfloor", "floor(x)"),
    (sp.ceiling, r"\lceil x \rceil", "ceil(x)"),
    (sp.frac, r"\operatorname{frac}(x)", "frac(x)"),
    (sp.Min, r"\min(x, 1)", "min(x, 1)"),
    (sp.Max, r"\max(x, 1)", "Max(x, 1)"),
    (sp.Piecewise, r"\begin{cases} x & x > 0 \\ -x & x \le 0 \end{cases}",
     "Piecewise((x, x > 0), (-x, True))"),
    # re, im, arg, conjugate: the checker meets them in its own rewrites; no
    # answer may call them.
    (sp.re, None, None),
    (sp.im, None, None),
    (sp.arg, None, None),
    (sp.conjugate, None, None),
    (sp.erf, r"\operatorname{erf}(x)", "erf(x)"),
    (sp.erfc, r"\operatorname{erfc}(x)", "erfc(x)"),
    (sp.erfi, r"\operatorname{erfi}(x)", "erfi(x)"),
    (sp.Si, r"\operatorname{Si}(x)", "Si(x)"),
    (sp.Shi, r"\operatorname{Shi}(x)", "Shi(x)"),
    (sp.fresnels, r"S\left(x\right)", "fresnels(x)"),
    (sp.fresnelc, r"\operatorname{C}(x)", "fresnelc(x)"),
    (sp.Ei, r"\operatorname{Ei}(x)", "Ei(x)"),
    (sp.li, r"\operatorname{li}(x)", "li(x)"),
    (sp.Li, r"\operatorname{Li}(x)", "Li(x)"),
    (sp.Ci, r"\operatorname{Ci}(x)", "Ci(x)"),
    (sp.Chi, r"\operatorname{Chi}(x)", "Chi(x)"),
    (sp.LambertW, r"W_{-1}(x)", "LambertW(x, -1)"),
    # atan2: no LaTeX spelling (a model writes \arctan\frac{y}{x}).
    (sp.atan2, None, "atan2(x, 2)"),
    (sp.gamma, r"\Gamma(x)", "gamma(x)"),
    (sp.factorial, r"x!", "factorial(x)"),
    (sp.uppergamma, r"\Gamma(x, x^2)", "uppergamma(x, x**2)"),
    (sp.lowergamma, r"\gamma(x, x^2)", "lowergamma(x, x**2)"),
    (sp.polylog, r"\operatorname{Li}_{3}(x)", "polylog(3, x)"),
    # \zeta is a constant name in LaTeX answers (\zeta(3) reads as 3*zeta).
    (sp.zeta, None, "zeta(x)"),
    (sp.expint, r"E_{2}(x)", "expint(2, x)"),
    (sp.elliptic_k, r"K\left(x\right)", "elliptic_k(x)"),
    (sp.elliptic_f, r"F\left(x\middle| 2\right)", "elliptic_f(x, 2)"),
    (sp.elliptic_e, r"E\left(x\middle| 2\right)", "elliptic_e(x, 2)"),
    (sp.elliptic_pi, r"\Pi\left(2; x\middle| 3\right)", "elliptic_pi(2, x, 3)"),
]


def _holds(expr: sp.Basic, cls: type) -> bool:
    return any(isinstance(node, cls) for node in sp.preorder_traversal(expr))


def test_every_entry_has_one_row():
    assert [cls for cls, _, _ in ROWS] == [f.cls for f in REGISTRY]


@pytest.mark.parametrize(("cls", "latex", "text"), ROWS,
                         ids=[cls.__name__ for cls, _, _ in ROWS])
def test_both_parsers_read_the_entry_as_its_class(cls, latex, text):
    if latex is not None:
        assert _holds(parse_latex_text(latex, "x", [])[0], cls), latex
    if text is not None:
        assert _holds(parse_sympy_text(text), cls), text


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_every_shared_spelling_means_its_class_in_both_syntaxes(name):
    cls = SPELLINGS[name]
    assert _holds(parse_latex_text(rf"\operatorname{{{name}}}(x)", "x", [])[0], cls), name
    assert _holds(parse_sympy_text(f"{name}(x)"), cls), name


def test_text_parser_reads_exactly_the_registry_spellings():
    numbers = {"S", "Integer", "Rational"}  # exact numbers, not functions
    assert FUNCTION_NAMES - numbers == set(SPELLINGS) | set(TEXT_CALLS)


def test_facts_are_a_view_of_the_registry():
    assert FACTS == {f.cls: f.facts for f in REGISTRY if f.facts is not None}
    assert set(LATEX_CALLS.values()) <= {f.cls for f in REGISTRY}


_ROOT = Path(__file__).resolve().parents[1] / "rewards"
_REGISTRY_FILE = Path(registry.__file__).resolve()
_CLASS_NAMES = {f.cls.__name__ for f in REGISTRY}


def _spelling_tables(path: Path) -> list[str]:
    """Dict literals mapping strings to SymPy functions (a spelling table)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Dict):
            continue
        pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True)
                 if isinstance(k, ast.Constant) and isinstance(k.value, str)
                 and isinstance(v, ast.Attribute) and v.attr in _CLASS_NAMES]
        if pairs:
            found.append(f"{path.relative_to(_ROOT)}:{node.lineno}")
    return found


def test_no_second_function_table():
    tables = [t for path in sorted(_ROOT.rglob("*.py")) if path != _REGISTRY_FILE
              for t in _spelling_tables(path)]
    assert tables == []
    source = "\n".join(p.read_text() for p in _ROOT.rglob("*.py") if p != _REGISTRY_FILE)
    for old in ("_HANDWRITTEN", "_LETTER_FUNC_NAMES", "_NAMED_FUNCTIONS", "def _plain(",
                "FACTS: dict", '"fresnelc"', '"LambertW"'):
        assert old not in source, old


@pytest.mark.parametrize(("spelling", "synonym"), [
    ("sgn(10**60)", "sign(10**60)"),
    ("arctg(10**60)", "atan(10**60)"),
    ("argsinh(10**60)", "asinh(10**60)"),
])
def test_slow_growth_is_a_fact_of_the_function_not_of_one_spelling(spelling, synonym):
    assert parse_sympy_text(spelling) == parse_sympy_text(synonym)


def test_fast_growth_keeps_its_bound_on_constant_arguments():
    with pytest.raises(ParseFailure):
        parse_sympy_text("sinh(10**60)")


# --- functions with an integer order (Li_3, polylog(3, x)) -------------------
# Every ordered function of the registry is tested from its entry alone: a new
# Order(subscript=...) entry needs no parser edit and no new test here.
_SUBSCRIPTED = sorted(ORDER_SUBSCRIPTS.items())
# (form, order): None is the registry's bound for the function.
_ORDER_FORMS = [
    (r"\operatorname{{{name}}}_{{{n}}}(x)", None),
    (r"\mathrm{{{name}}}_{n}(x)", 3),
    (r"\text{{{name}}} _ {{ {n} }}\left(x\right)", 2),
    (r"\operatorname{{{name}}}_{{{n}}} x", None),
]


@pytest.mark.parametrize(("form", "order"), _ORDER_FORMS)
@pytest.mark.parametrize(("name", "cls"), _SUBSCRIPTED, ids=[n for n, _ in _SUBSCRIPTED])
def test_an_order_written_as_a_subscript_is_the_first_argument(name, cls, form, order):
    n = ORDERS[cls].bound if order is None else order
    assert parse_latex_text(form.format(name=name, n=n), "x", [])[0] == cls(n, sp.Symbol("x"))


@pytest.mark.parametrize(("name", "cls"), sorted(ORDER_CALLS.items()), ids=sorted(ORDER_CALLS))
def test_an_order_call_means_the_same_in_both_syntaxes(name, cls):
    x = sp.Symbol("x")
    for latex in (rf"\operatorname{{{name}}}(3, x)", f"{name}(3, x)"):
        assert parse_latex_text(latex, "x", [])[0] == cls(3, x), latex
    assert parse_sympy_text(f"{name}(3, x)") == cls(3, x)


def _order_spellings(cls: type) -> list[tuple[str, str]]:
    """(LaTeX or "", SymPy text) calls of ``cls`` of order ``{n}``, from its
    registry entry: its calls that take the order first (``zeta(n)``, whose
    only argument is the order, too; not ``E1(x)``, whose order is fixed)."""
    calls = [(name, arities) for name, (c, arities) in TEXT_CALLS.items() if c is cls]
    text = [f"{name}({{n}}, x)" if 2 in arities else f"{name}({{n}})"
            for name, arities in calls if 2 in arities or len(calls) == 1]
    subscript = ORDERS[cls].subscript
    latex = rf"\operatorname{{{{{subscript}}}}}_{{{{{{n}}}}}}(x)" if subscript else ""
    return [(latex, t) for t in text]


_ORDER_BOUNDS = [(cls, latex, text) for cls in ORDERS for latex, text in _order_spellings(cls)]


@pytest.mark.parametrize(("cls", "latex", "text"), _ORDER_BOUNDS,
                         ids=[f"{cls.__name__}-{text.split('(')[0]}" for cls, _, text in _ORDER_BOUNDS])
def test_the_order_bound_is_the_registrys_in_both_syntaxes(cls, latex, text):
    bound = ORDERS[cls].bound
    at_bound = parse_sympy_text(text.format(n=bound))
    # zeta(n) of a number is a number (zeta(20) = c*pi**20): only a call of x stays a call
    assert _holds(at_bound, cls) if "x" in text else at_bound.is_number
    with pytest.raises(ParseFailure) as refused:
        parse_sympy_text(text.format(n=bound + 1))
    assert refused.value.reason == "number_too_large"
    if latex:
        assert _holds(parse_latex_text(latex.format(n=bound), "x", [])[0], cls)
        with pytest.raises(ParseFailure) as refused:
            parse_latex_text(latex.format(n=bound + 1), "x", [])
        assert refused.value.reason == "number_too_large"


def _string_literals(path: Path) -> set[str]:
    """String constants of a module, docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings}


def test_the_latex_parser_names_no_ordered_function():
    """The LaTeX parser reads Li_3 and polylog(3, x) from the registry, so
    none of its modules spells an ordered function's name or subscript."""
    names = {n for cls, order in ORDERS.items() if order.subscript
             for n in (cls.__name__, order.subscript, *(t for t, (c, _) in TEXT_CALLS.items() if c is cls))}
    assert names >= {"polylog", "Li"}
    found = {f"{path.relative_to(_ROOT)}: {literal!r}"
             for path in sorted((_ROOT / "check" / "parse" / "latex").glob("*.py"))
             for literal in _string_literals(path)
             if any(name in literal for name in names)}
    assert found == set()
