"""From a validated Python AST to a SymPy expression, node by node, through
guarded constructors: pass 1 checks the whole tree against the allowlist,
pass 2 builds it."""
from __future__ import annotations

import ast
import builtins
import re

import sympy

from ...errors import ParseFailure
from ...limits import ANSWER, CAPS, INTEGRAND, Limits
from ...walk import swap_leaves
from ..names import (
    GREEK_NAMES,
    is_constant_name,
)
from .functions import _FUNCTIONS, _INTEGRAL_NAMES, _RELATIONS, _apply, _is_piecewise
from .guards import (
    _NEG_ONE,
    _Bounds,
    _check_built,
    _check_constant_args,
    _check_exponent_atoms,
    _check_nonfinite_mix,
    _mag,
    _radical_digits_in_product,
    _radicand_digits,
    passed_nodes,
)
from .text import _FLOAT_LITERAL_RE

# --- names -----------------------------------------------------------------
# Integration constants (C, c, K, C1, C_1, c_2, K12, const, constant) are
# whatever the checker's normalizer calls a constant name, so the two never
# disagree; they become plain Symbols with that name.

_CONSTANTS = {
    "pi": sympy.pi,
    "E": sympy.E,
    "e": sympy.E,
    "I": sympy.I,
    "oo": sympy.oo,
    "zoo": sympy.zoo,
    "nan": sympy.nan,
}

# Any other identifier of this shape becomes a plain Symbol (``y``, ``a1``,
# ``k_2``) so that stray symbols reach the checker as WRONG, not UNPARSEABLE.
_SHORT_SYMBOL_RE = re.compile(r"[A-Za-z](?:_?[A-Za-z0-9]{1,3})?\Z")

# Names that are refused even though they might match the short-symbol shape:
# nothing is ever looked up, but an answer naming these is an attack attempt
# and gets a clear reason in the traces.
_DENIED_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_")) | frozenset({
    "eval", "exec", "compile", "open", "input", "globals", "locals", "vars",
    "getattr", "setattr", "delattr", "dir", "type", "object", "breakpoint",
    "exit", "quit", "help", "print", "id", "hash", "memoryview", "super",
    "os", "sys", "subprocess", "shutil", "importlib", "builtins", "socket",
    "sympy", "sp", "np", "numpy", "math", "cmath", "mpmath", "torch",
    "Symbol", "Symbols", "symbols", "Dummy", "Wild", "var", "sympify",
    "parse_expr", "lambdify", "Lambda", "Function", "srepr", "evalf",
    "Integer", "Rational", "Float", "Add", "Mul", "Pow", "Eq", "Ne", "Rel",
    "integrate", "Integral", "diff", "Derivative", "simplify", "solve",
    "self", "cls", "lambda", "import",
})



# Operator families: chains inside one family are flattened (``a+b-c+d`` is a
# single n-ary Add) so a long sum does not count as deep nesting.
_FAMILY = {ast.Add: "add", ast.Sub: "add", ast.Mult: "mul", ast.Div: "mul", ast.Pow: "pow"}



def _fail_syntax(node: ast.AST, what: str | None = None) -> ParseFailure:
    return ParseFailure("forbidden_syntax", f"{what or type(node).__name__} is not allowed")


# --- the builder -----------------------------------------------------------
# Expressions built from a call's or an operation's text, by builder bounds
# (see _Builder.build): a few sets of bounds are in use at once (answers and
# integrands, a variable or two).
_BUILT: dict[tuple, dict[str, sympy.Expr]] = {}
_BOUND_SETS_KEPT = 8


def _built_under(key: tuple) -> dict[str, sympy.Expr]:
    built = _BUILT.get(key)
    if built is None:
        if len(_BUILT) >= _BOUND_SETS_KEPT:
            _BUILT.clear()
        built = _BUILT[key] = {}
    return built


class _Builder:
    def __init__(self, text: str, symbol: str, max_depth: int, max_nodes: int,
                 max_exponent: int = ANSWER.exponent, answer: bool = True,
                 notes: list[str] | None = None, limits: Limits = ANSWER) -> None:
        self.text = text
        self.symbol = symbol
        # Real while building (see _to_plain): SymPy's assumption queries on
        # a complex symbol expand (re(x) + I*im(x))**n and can take seconds.
        self.var = sympy.Symbol(symbol, real=True)
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.bounds = _Bounds(self.var, max_exponent, ANSWER.exponent_coefficient if answer
                              else INTEGRAND.exponent_coefficient, integrand=not answer,
                              limits=limits)
        self.limits = limits
        self.answer = answer
        self.notes = notes
        # The nodes known to pass _check_built under these bounds (kept across
        # parses), and this parse's _mag estimates.
        self._checked = passed_nodes(self.bounds)
        self._mags: dict[sympy.Expr, float] = {}
        # Calls and operations built before from the same text under the same
        # bounds (see build); their text is a slice of this one when every
        # AST offset (UTF-8 bytes, line 1) is a character index.
        self._built = _built_under(self.bounds.key() + (answer,)) \
            if text.isascii() and "\n" not in text and "\r" not in text else None

    def _post(self, expr: sympy.Expr, deep: bool) -> sympy.Expr:
        """:func:`_check_built` with this parse's bounds and passed nodes."""
        return _check_built(expr, deep, self.bounds, self._checked)

    # -- pass 1: validate the whole tree before building anything ----------
    def validate(self, root: ast.expr) -> None:
        """Iterative walk (no Python recursion) over the AST: node types, names,
        arities, nesting depth and node count. Nothing is built yet, so hostile
        structure is refused before SymPy sees any of it."""
        stack: list[tuple[ast.expr, int, bool]] = [(root, 1, False)]
        count = 0
        bars = False
        while stack:
            node, depth, condition = stack.pop()
            count += 1
            if count > self.max_nodes:
                raise ParseFailure("too_many_nodes",
                                   f"more than {self.max_nodes} expression nodes")
            if depth > self.max_depth:
                raise ParseFailure("too_deep", f"nesting deeper than {self.max_depth}")
            if condition:
                stack.extend(self._condition_children(node, depth))
            elif _is_piecewise(node):
                stack.extend(self._piecewise_children(node, depth))
            elif isinstance(node, ast.Constant):
                self._check_constant(node)
            elif isinstance(node, ast.Name):
                self._check_value_name(node.id)
            elif isinstance(node, ast.UnaryOp):
                if not isinstance(node.op, (ast.UAdd, ast.USub)):
                    raise _fail_syntax(node, type(node.op).__name__)
                stack.append((node.operand, depth + 1, False))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
                # |x| is LaTeX's absolute value, not Python's "or": once the
                # whole tree passed every other check, a syntax error (so the
                # auto mode reads the text as LaTeX), never a content refusal.
                bars = True
                stack.append((node.left, depth + 1, False))
                stack.append((node.right, depth + 1, False))
            elif isinstance(node, ast.BinOp):
                family = _FAMILY.get(type(node.op))
                if family is None:
                    raise _fail_syntax(node, f"operator {type(node.op).__name__}")
                left = node.left
                same = (family != "pow" and isinstance(left, ast.BinOp)
                        and _FAMILY.get(type(left.op)) == family)
                stack.append((left, depth if same else depth + 1, False))
                stack.append((node.right, depth + 1, False))
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute):
                    raise ParseFailure("forbidden_attribute", "attribute access is not allowed")
                if not isinstance(func, ast.Name):
                    raise ParseFailure("not_callable", "only named functions can be called")
                self._check_call(func.id)
                if node.keywords:
                    raise ParseFailure("forbidden_keyword_arg", "keyword arguments are not allowed")
                arities = _FUNCTIONS[func.id][0]
                if len(node.args) not in arities:
                    raise ParseFailure("bad_arity", f"{func.id} takes "
                                       f"{'/'.join(map(str, sorted(arities)))} argument(s)")
                for arg in node.args:
                    stack.append((arg, depth + 1, False))
            elif isinstance(node, ast.Attribute):
                raise ParseFailure("forbidden_attribute", "attribute access is not allowed")
            elif isinstance(node, (ast.JoinedStr, ast.FormattedValue)):
                raise ParseFailure("forbidden_string", "f-strings are not allowed")
            else:
                raise _fail_syntax(node)
        if bars:
            raise ParseFailure("syntax_error", "'|' bars are LaTeX's absolute value, not Python")

    @staticmethod
    def _piecewise_children(node: ast.Call,
                            depth: int) -> list[tuple[ast.expr, int, bool]]:
        """``Piecewise((expr, cond), ...)``: pairs only, at most ANSWER.pieces."""
        if node.keywords:
            raise ParseFailure("forbidden_keyword_arg", "keyword arguments are not allowed")
        if not 1 <= len(node.args) <= ANSWER.pieces:
            raise ParseFailure("bad_arity", f"Piecewise takes 1 to {ANSWER.pieces} pieces")
        out = []
        for pair in node.args:
            if not isinstance(pair, ast.Tuple) or len(pair.elts) != 2:
                raise ParseFailure("bad_arity", "Piecewise takes (expression, condition) pairs")
            out.append((pair.elts[0], depth + 1, False))
            out.append((pair.elts[1], depth + 1, True))
        return out

    @staticmethod
    def _condition_children(node: ast.expr,
                            depth: int) -> list[tuple[ast.expr, int, bool]]:
        """A Piecewise condition: comparisons (chains too), ``True``, and
        ``&``/``|``/``And(...)``/``Or(...)`` of conditions. Relations are
        allowed nowhere else."""
        if isinstance(node, ast.Constant) and node.value is True:
            return []
        if isinstance(node, ast.Compare):
            if not all(type(op) in _RELATIONS for op in node.ops):
                raise ParseFailure("bad_condition", "only <, <=, >, >=, ==, != compare")
            return [(n, depth + 1, False) for n in (node.left, *node.comparators)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            return [(node.left, depth + 1, True), (node.right, depth + 1, True)]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("And", "Or") and node.args and not node.keywords):
            return [(a, depth + 1, True) for a in node.args]
        raise ParseFailure("bad_condition",
                           "a Piecewise condition must compare the variable (x >= 0, "
                           "0 < x < 1, ... & ..., True)")

    def _check_constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, (str, bytes)):
            raise ParseFailure("forbidden_string", "string literals are not allowed")
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            raise ParseFailure("bad_constant", f"{value!r} is not a number")
        if isinstance(value, int) and abs(value) >= 10 ** self.limits.literal_digits:
            raise ParseFailure("number_too_large",
                               f"integer literals are limited to {self.limits.literal_digits} digits")

    def _check_value_name(self, name: str) -> None:
        if name == self.symbol or name in _CONSTANTS or is_constant_name(name):
            return
        if name.startswith("_"):
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if name in _FUNCTIONS:
            raise ParseFailure("function_as_value", f"{name} must be called with arguments")
        if name in _DENIED_NAMES:
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if not (_SHORT_SYMBOL_RE.match(name) or name in GREEK_NAMES):
            raise ParseFailure("unknown_name", f"unknown name {name!r}")

    def _check_call(self, name: str) -> None:
        if name in _INTEGRAL_NAMES:
            # An answer that still asks for the integral is not an answer; it
            # is never evaluated (that would solve the problem for the model).
            raise ParseFailure("echoed_integral", f"the answer still holds {name}(...)")
        if name.startswith("_") or (name in _DENIED_NAMES and name not in _FUNCTIONS
                                    and name != self.symbol):
            raise ParseFailure("forbidden_name", f"name {name!r} is not allowed")
        if name == self.symbol or name not in _FUNCTIONS:
            raise ParseFailure("not_callable", f"{name!r} is not a known function")

    # -- pass 2: build ------------------------------------------------------
    def build_root(self, node: ast.expr) -> sympy.Expr:
        """The whole answer: like :meth:`build`, but an additive constant of
        the top-level sum too large to evaluate (``x**2/2 + 10**10**10``) is
        dropped unbuilt when the answer is an answer (it vanishes under d/dx)
        and other terms hold the variable."""
        if not (self.answer and isinstance(node, ast.BinOp)
                and _FAMILY.get(type(node.op)) == "add"):
            return self.build(node)
        items = []
        while isinstance(node, ast.BinOp) and _FAMILY.get(type(node.op)) == "add":
            items.append((node.op, node.right))
            node = node.left
        items.append((ast.Add(), node))
        terms: list[sympy.Expr] = []
        failure: ParseFailure | None = None
        for op, operand in reversed(items):
            try:
                value = self.build(operand)
            except ParseFailure as exc:
                if (exc.reason not in ("number_too_large", "exponent_too_large")
                        or not self._droppable(operand)):
                    raise
                failure = failure or exc
                continue
            terms.append(self.mul([_NEG_ONE, value]) if isinstance(op, ast.Sub) else value)
        if failure is not None:
            if not any(self.var in t.free_symbols for t in terms):
                raise failure
            if self.notes is not None:
                self.notes.append("huge_constant_dropped")
        return self.add(terms)

    def _droppable(self, node: ast.expr) -> bool:
        """A constant term that is too large because of what evaluating it
        makes (a power, exp of small literals), not because a literal in it
        is itself too large to read (``1e999999999``: refused)."""
        if not self._constant_node(node):
            return False
        powered = False
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) or (isinstance(sub, ast.BinOp)
                                             and isinstance(sub.op, ast.Pow)):
                powered = True
            elif isinstance(sub, ast.Constant):
                try:
                    self.number(sub)
                except ParseFailure:
                    return False
        return powered

    def _constant_node(self, node: ast.expr) -> bool:
        """No name in the subtree but pi, E, e, I (and no call of a name
        that is the variable)."""
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Name) or sub.id == self.symbol:
                if isinstance(sub, ast.Name):
                    return False
                continue
            # validate() refused function names used as values, so a
            # function name here is the callee of a call.
            if sub.id not in _CONSTANTS and sub.id not in _FUNCTIONS:
                return False
        return True

    def condition(self, node: ast.expr) -> sympy.Basic:
        """A validated Piecewise condition, over the variable only."""
        if isinstance(node, ast.Constant):
            return sympy.true
        if isinstance(node, ast.BinOp):
            parts = [self.condition(node.left), self.condition(node.right)]
            return sympy.And(*parts) if isinstance(node.op, ast.BitAnd) else sympy.Or(*parts)
        if isinstance(node, ast.Call):
            parts = [self.condition(a) for a in node.args]
            return sympy.And(*parts) if node.func.id == "And" else sympy.Or(*parts)
        assert isinstance(node, ast.Compare)
        sides = [self.build(n) for n in (node.left, *node.comparators)]
        for side in sides:
            if side.free_symbols - {self.var}:
                raise ParseFailure("bad_condition", "a Piecewise condition may only hold the "
                                   "variable")
            if side.has(sympy.I):
                raise ParseFailure("bad_condition", "a Piecewise condition compares reals")
        relations = [_RELATIONS[type(op)](a, b)
                     for op, a, b in zip(node.ops, sides[:-1], sides[1:], strict=True)]
        return sympy.And(*relations)

    def build(self, node: ast.expr) -> sympy.Expr:
        """The SymPy expression of ``node``. A call or an operation whose text
        was built before under the same bounds is that expression: a GRPO
        group's answers share their terms and the functions in them (F, 2F,
        -F, F + x), and building is SymPy's evaluation, a sixth of a check.
        The build of a node depends on its text and the bounds alone (names
        and constants are fixed tables; notes are the root's)."""
        if self._built is None or not isinstance(node, (ast.Call, ast.BinOp)):
            return self._build(node)
        text = self.text[node.col_offset:node.end_col_offset]  # type: ignore[attr-defined]
        built = self._built.get(text)
        if built is None:
            built = self._build(node)
            if len(self._built) >= CAPS.built_subterms:
                self._built.clear()
            self._built[text] = built
        return built

    def _build(self, node: ast.expr) -> sympy.Expr:
        if _is_piecewise(node):
            assert isinstance(node, ast.Call)
            pairs = [(self.build(pair.elts[0]), self.condition(pair.elts[1]))
                     for pair in node.args]  # type: ignore[attr-defined]
            return self._post(sympy.Piecewise(*pairs), deep=True)
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand)
            return self.mul([_NEG_ONE, operand]) if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            family = _FAMILY[type(node.op)]
            if family == "pow":
                return self.pow(self.build(node.left), self.build(node.right))
            # Unroll the left spine of a same-family chain without recursion.
            items = []
            while isinstance(node, ast.BinOp) and _FAMILY.get(type(node.op)) == family:
                items.append((node.op, node.right))
                node = node.left
            first = self.build(node)
            if family == "add":
                terms = [first]
                for op, right in reversed(items):
                    value = self.build(right)
                    terms.append(self.mul([_NEG_ONE, value]) if isinstance(op, ast.Sub) else value)
                return self.add(terms)
            factors = [first]
            for op, right in reversed(items):
                value = self.build(right)
                factors.append(self.pow(value, _NEG_ONE) if isinstance(op, ast.Div) else value)
            return self.mul(factors)
        if isinstance(node, ast.Call):
            args = [self.build(a) for a in node.args]
            name = node.func.id
            _check_constant_args(name, args, self.bounds)
            built = _FUNCTIONS[name][1](self, args)
            # Every argument was checked as it was built: only what the call
            # made of them is new (exp(1000*log(x)) is x**1000), unless it
            # kept them as they are (sin(x + 1)).
            kept = isinstance(built, sympy.Function) and built.args == tuple(args)
            return self._post(built, deep=not kept)
        raise _fail_syntax(node)  # unreachable after validate(); kept as a backstop

    def name(self, name: str) -> sympy.Expr:
        if name == self.symbol:
            return self.var
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        return sympy.Symbol(name, real=True)

    def number(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if isinstance(value, int):
            return sympy.Integer(value)
        segment = ast.get_source_segment(self.text, node) or repr(value)
        if isinstance(value, complex):
            # ``2.5j`` -> 5/2*I; the real part of a complex literal is always 0.
            return self.mul([self._decimal(segment.rstrip("jJ")), sympy.I])
        return self._decimal(segment)

    def _decimal(self, literal: str) -> sympy.Rational:
        """Exact value of a decimal literal, with its exponent bounded *before*
        any power of ten is computed (``1e999999999`` must not hang)."""
        m = _FLOAT_LITERAL_RE.match(literal.replace("_", ""))
        if m is None:
            raise ParseFailure("syntax_error", f"unsupported number literal {literal[:40]!r}")
        int_part, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "0"
        if len(exp.lstrip("+-")) > 5:
            raise ParseFailure("number_too_large", "float exponent too large")
        mantissa = int_part + frac
        if not mantissa or len(mantissa.lstrip("0")) > self.limits.literal_digits:
            raise ParseFailure("number_too_large",
                               f"float literals are limited to {self.limits.literal_digits} digits")
        shift = int(exp) - len(frac)
        if abs(shift) > self.limits.number_digits + self.limits.literal_digits:
            raise ParseFailure("number_too_large", "float exponent too large")
        n = int(mantissa)
        value = sympy.Rational(n * 10 ** shift) if shift >= 0 else sympy.Rational(n, 10 ** -shift)
        return self._post(value, deep=False)

    def add(self, terms: list[sympy.Expr]) -> sympy.Expr:
        _check_nonfinite_mix(terms)
        if sum(_mag(t, self._mags) for t in terms) > 2 * self.limits.number_digits:
            raise ParseFailure("number_too_large", "sum would produce too large numbers")
        return self._post(sympy.Add(*terms), deep=False)

    def mul(self, factors: list[sympy.Expr]) -> sympy.Expr:
        _check_nonfinite_mix(factors)
        if sum(_mag(f, self._mags) for f in factors) > 2 * self.limits.number_digits:
            raise ParseFailure("number_too_large", "product would produce too large numbers")
        if sum(_radical_digits_in_product(f) for f in factors) > ANSWER.radicand_digits:
            raise ParseFailure("number_too_large", "product of radicals too large")
        return self._post(sympy.Mul(*factors), deep=False)

    def pow(self, base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
        # All checks happen BEFORE sympy.Pow, which evaluates eagerly.
        _check_nonfinite_mix([base, exponent])
        if not exponent.is_Rational:
            _check_exponent_atoms(exponent, self.bounds)
        if exponent.is_Rational:
            size = abs(float(exponent))
            if base.free_symbols:
                limit = self.bounds.power_limit(base)
                if size > limit:
                    raise ParseFailure("exponent_too_large", "power of a symbolic expression "
                                       f"too large (at most {limit} here)")
            elif size > (self.bounds.constant_exponent_limit(exponent) if base is sympy.E
                          else self.limits.constant_exponent):
                raise ParseFailure("exponent_too_large",
                                   f"exponent of a constant above {self.limits.constant_exponent}")
            # A power of a sum in the variable is never expanded by SymPy;
            # a power of a number or a product computes its coefficient.
            if _mag(base, self._mags) * size > self.limits.number_digits and not (base.is_Add
                                                              and base.free_symbols):
                raise ParseFailure("number_too_large",
                                   f"power would exceed about 10**{self.limits.number_digits}")
            if not exponent.is_Integer and _radicand_digits(base) > ANSWER.radicand_digits:
                raise ParseFailure("number_too_large", "radicand too large")
        elif exponent.free_symbols:
            # A symbolic exponent makes Pow ask whether it is an integer, even,
            # real... of the exponent (and of the base), which can expand powers
            # for seconds, like function arguments do (see _apply). Built
            # unevaluated; E**u is spelled exp(u) so it prints and compares
            # like SymPy's own exp.
            if base is sympy.E:
                return self._post(_apply(sympy.exp, [exponent]), deep=False)
            return self._post(sympy.Pow(base, exponent, evaluate=False), deep=False)
        elif not base.free_symbols:
            # 2**sqrt(2), pi**pi, E**c: a constant tower like a function call.
            _check_constant_args("pow", [base, exponent])
        return self._post(sympy.Pow(base, exponent), deep=False)

    def exp(self, arg: sympy.Expr) -> sympy.Expr:
        # exp(c*log(a)) evaluates to a**c, so the argument is an exponent.
        _check_exponent_atoms(arg, self.bounds)
        return _apply(sympy.exp, [arg])


_PLAIN: dict[sympy.Basic, sympy.Basic] = {}


def _to_plain(expr: sympy.Expr) -> sympy.Expr:
    """Swap the real symbols used while building for plain ``Symbol(name)``.

    Everything is built with real symbols because SymPy's evaluation asks
    assumption questions (is this zero, finite, positive?) that, for a complex
    symbol, split powers into real and imaginary parts and expand them:
    ``-x**100/acot(E))**(-sech(x**100))*log2(...)`` took 14 s with a plain x
    and 0.02 s with a real one. The checker treats the variable as real and
    rebinds it anyway, so nothing is lost; callers still receive the plain
    symbols the rest of the package uses.

    The nodes are rebuilt with explicit ``evaluate=False`` (they are already
    evaluated): not ``xreplace`` (which would evaluate again, for the plain
    symbols, at full cost) and not the global ``evaluate(False)`` switch,
    whose results would land in SymPy's shared cache under the keys of
    ordinary evaluated calls.
    """
    # Kept across parses, like the built terms (a group's answers share
    # them): each is swapped once. Cleared when full.
    if len(_PLAIN) > CAPS.plain_nodes:
        _PLAIN.clear()
    return swap_leaves(expr, _plain_symbol, _PLAIN)


def _plain_symbol(leaf: sympy.Basic) -> sympy.Basic:
    return sympy.Symbol(leaf.name) if leaf.is_Symbol else leaf

