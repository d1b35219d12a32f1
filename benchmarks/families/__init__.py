r"""Generated adversarial families (issue 25): wrong answers that differ from
an antiderivative only somewhere, next to the right answers they imitate.

A *family* draws cases from a seeded ``random.Random``: each case is an
(answer, integrand) pair with the label an antiderivative by the definition
of docs/domain.md would give it. The same generators serve two callers:

* ``tests/test_families.py`` runs every family with a few fixed seeds in CI
  (a failure names the family, the seed and the case);
* ``python -m benchmarks families --seeds N`` runs many seeds and prints a
  table of false accepts and false rejects per family.

The families are written against the *classes* of attack (a smooth bump with
no root in any argument, a switch far out on the line, a difference below
the working precision, a logarithm crossing its cut, ...), with every size,
place and written form drawn at random, so that passing them means the
evidence covers the class, not a listed pattern.

Each module below defines ``FAMILIES``: a tuple of :class:`Family`.
"""
from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

# The modules that define families; each adds its own name here.
MODULES: tuple[str, ...] = ("jumps", "sampling")


@dataclass(frozen=True)
class Case:
    """One generated case: answer and integrand as the checker reads them."""

    answer: str
    integrand: str
    # "correct" or "wrong", by the definition of docs/domain.md.
    label: str
    # Why the label holds (where the difference sits, what the right form is).
    why: str
    answer_syntax: str = "latex"
    integrand_kind: str = "sympy"
    variable: str = "x"

    def __post_init__(self) -> None:
        if self.label not in ("correct", "wrong"):
            raise ValueError(f"label must be 'correct' or 'wrong', not {self.label!r}")


@dataclass(frozen=True)
class Family:
    """A named generator of cases: ``draw(rng)`` returns a few related cases
    (typically one wrong answer and the right one it imitates)."""

    name: str
    summary: str
    draw: Callable[[random.Random], list[Case]] = field(repr=False)

    def cases(self, seed: int) -> list[Case]:
        return self.draw(random.Random(f"{self.name}:{seed}"))


def all_families() -> list[Family]:
    """Every family of every module in :data:`MODULES`, in order."""
    families: list[Family] = []
    for name in MODULES:
        families.extend(importlib.import_module(f"{__name__}.{name}").FAMILIES)
    return families


def judge(case: Case, timeout_s: float = 10.0):
    """The checker's result for one case, as the reward would ask for it."""
    from rewards import check_antiderivative

    return check_antiderivative(case.answer, case.integrand, input_kind=case.answer_syntax,
                                integrand_kind=case.integrand_kind, symbol=case.variable,
                                timeout_s=timeout_s)


__all__ = ["MODULES", "Case", "Family", "all_families", "judge"]
