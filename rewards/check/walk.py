"""Each distinct node of a SymPy tree, once.

A derivative repeats its inner functions (the chain rule writes u and u'
next to every f'(u)), and a group's answers share subtrees with their
integrand. A walk that only collects or tests nodes, and whose answer does
not depend on how often or in what order it meets them, need not descend
into a subtree it has already seen; ``sympy.preorder_traversal`` does.
"""
from __future__ import annotations

from collections.abc import Iterator

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
