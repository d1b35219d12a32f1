"""The normal form's polynomial rings: integer polynomials in numbered slots.

python-flint's ``fmpz_mpoly`` (C, the ``[fast]`` extra) where it is
installed, SymPy's sparse ``PolyElement`` otherwise (no python-flint wheels
for Linux aarch64). Products and sums of these polynomials were half of the
time of a normal-form proof in SymPy's pure-Python dictionaries; flint's are
3-10x faster per operation on the same polynomials.

Both backends compute the same polynomials exactly: a proof is the same
proof on either. Only the canonical choices of the normal form (which
leading coefficient is positive, a polynomial's dictionary key) are each
backend's own, and a conversion uses one backend throughout.
``tests/test_normal_form.py`` runs every case on both.
"""
from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.polys.domains import ZZ
from sympy.polys.rings import ring as sympy_ring

try:
    from flint import fmpz_mpoly_ctx
except ImportError:  # pragma: no cover - exercised where python-flint is missing
    fmpz_mpoly_ctx = None

# A polynomial of either backend (PolyElement or fmpz_mpoly).
Poly = Any


class SympyRing:
    """ZZ[_nf0, ..., _nf{n-1}] on SymPy's PolyElement."""

    backend = "sympy"

    def __init__(self, nvars: int) -> None:
        self._ring = sympy_ring([sp.Symbol(f"_nf{i}") for i in range(nvars)], ZZ)[0]
        self.nvars = nvars
        self.gens = tuple(self._ring.gens)
        self.zero, self.one = self._ring.zero, self._ring.one
        self._zero_monom = self._ring.zero_monom

    def const(self, n: int) -> Poly:
        return self._ring(n)

    def from_dict(self, terms: dict[tuple[int, ...], int]) -> Poly:
        return self._ring.from_dict(terms)

    def is_one(self, p: Poly) -> bool:
        return len(p) == 1 and dict.get(p, self._zero_monom) == 1

    @staticmethod
    def key(p: Poly) -> frozenset:
        # PolyElement's own cached hash can go stale (an equal element may
        # hash differently), so dict keys use its terms.
        return frozenset(p.items())

    @staticmethod
    def terms(p: Poly) -> list[tuple[tuple[int, ...], int]]:
        return p.terms()

    @staticmethod
    def monoms(p: Poly) -> Any:
        return p.itermonoms()

    @staticmethod
    def degree(p: Poly, slot: int) -> int | float:
        return p.degree(slot)

    @staticmethod
    def primitive(p: Poly) -> tuple[int, Poly]:
        return p.primitive()

    @staticmethod
    def lc(p: Poly) -> int:
        return p.LC

    @staticmethod
    def is_ground(p: Poly) -> bool:
        return p.is_ground

    @staticmethod
    def exquo(p: Poly, q: Poly) -> Poly:
        return p.exquo(q)


class FlintRing:
    """ZZ[_nf0, ..., _nf{n-1}] on python-flint's fmpz_mpoly (lex order)."""

    backend = "flint"

    def __init__(self, nvars: int) -> None:
        self._ctx = fmpz_mpoly_ctx.get(tuple(f"_nf{i}" for i in range(nvars)), "lex")
        self.nvars = nvars
        self.gens = tuple(self._ctx.gens())
        self.zero, self.one = self._ctx.constant(0), self._ctx.constant(1)

    def const(self, n: int) -> Poly:
        return self._ctx.constant(n)

    def from_dict(self, terms: dict[tuple[int, ...], int]) -> Poly:
        return self._ctx.from_dict(terms)

    @staticmethod
    def is_one(p: Poly) -> bool:
        return p.is_one()

    @staticmethod
    def key(p: Poly) -> str:
        # fmpz_mpoly is not hashable; its printed form is canonical within
        # one ring (terms in the ring's order).
        return p.str()

    @staticmethod
    def terms(p: Poly) -> Any:
        return p.terms()

    @staticmethod
    def monoms(p: Poly) -> list[tuple[int, ...]]:
        return p.monoms()

    @staticmethod
    def degree(p: Poly, slot: int) -> int:
        return p.degrees()[slot]

    @staticmethod
    def primitive(p: Poly) -> tuple[Any, Poly]:
        return p.primitive()

    @staticmethod
    def lc(p: Poly) -> Any:
        return p.leading_coefficient()

    @staticmethod
    def is_ground(p: Poly) -> bool:
        return p.is_constant()

    @staticmethod
    def exquo(p: Poly, q: Poly) -> Poly:
        # Exact division: raises (never truncates) when q does not divide p.
        return p / q


# The backend new rings use; tests set it to run a case on each.
BACKEND = "flint" if fmpz_mpoly_ctx is not None else "sympy"
_RINGS: dict[tuple[str, int], SympyRing | FlintRing] = {}


def ring(nvars: int) -> SympyRing | FlintRing:
    """The ring with ``nvars`` slots of the current :data:`BACKEND`, built
    once per process (a SymPy ring is costly to build)."""
    key = (BACKEND, nvars)
    hit = _RINGS.get(key)
    if hit is None:
        hit = _RINGS[key] = (FlintRing if BACKEND == "flint" else SympyRing)(nvars)
    return hit
