"""Walks of SymPy trees: each distinct node once, and symbols swapped as built.

A derivative repeats its inner functions (the chain rule writes u and u'
next to every f'(u)), and a group's answers share subtrees with their
integrand. A walk that only collects or tests nodes, and whose answer does
not depend on how often or in what order it meets them, need not descend
into a subtree it has already seen; ``sympy.preorder_traversal`` does.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

import sympy as sp


def distinct_nodes(expr: sp.Basic) -> Iterator[sp.Basic]:
    """Every distinct node of ``expr`` once, in no promised order.

    >>> x = sp.Symbol("x")
    >>> sorted(map(str, distinct_nodes(sp.sin(x) ** 2 + sp.sin(x))))
    ['2', 'sin(x)', 'sin(x)**2', 'sin(x)**2 + sin(x)', 'x']
    """
    seen: set[sp.Basic] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(node.args)
        yield node


# Nodes a swap rebuilds without evaluating (the rest go through their
# constructor, as ``xreplace`` rebuilds them).
_AS_BUILT = (sp.Add, sp.Mul, sp.Pow, sp.Function)


def swap_leaves(expr: sp.Basic, swap: Callable[[sp.Basic], sp.Basic],
                memo: dict[sp.Basic, sp.Basic]) -> sp.Basic:
    """``expr`` with each leaf replaced by ``swap(leaf)`` (the leaf itself
    where nothing changes), and every sum, product, power and function above
    a changed leaf rebuilt without evaluating it again; other nodes
    (Piecewise, relations) through their constructor. ``memo`` holds the
    nodes swapped before (the same ``swap``), and receives these.

    The parser builds over real symbols and hands out plain ones
    (``parse.sympy_text.builder._to_plain``); the checker rebinds the
    variable to the real symbol (``prepare.real.bind_real``): one tree, as
    it was built, both ways.

    >>> x, r = sp.Symbol("x"), sp.Symbol("x", real=True)
    >>> swap_leaves(sp.sin(-x, evaluate=False), lambda s: r if s == x else s, {})
    sin(-x)
    """
    def rebuild(node: sp.Basic) -> sp.Basic:
        done = memo.get(node)
        if done is not None:
            return done
        if not node.args:
            out = swap(node)
        else:
            args = tuple(rebuild(a) for a in node.args)
            if all(new is old for new, old in zip(args, node.args, strict=True)):
                out = node
            elif isinstance(node, _AS_BUILT):
                out = node.func(*args, evaluate=False)
            else:
                out = node.func(*args)
        memo[node] = out
        return out

    return rebuild(expr)
