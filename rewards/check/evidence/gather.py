"""The numeric side of one check: where to look (complex points, or the real
line with the domain rule), the comparisons there, and the domain refusal."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..function_facts import may_branch
from ..result import StageRecord, ms_since
from ..timebox import Deadline
from .continuity import can_jump, find_jump
from .domain import DomainReport, analyze, real_points_of, restricts_domain, spread_sample
from .first_look import agree
from .numeric import LEVELS, NumericComparer, sampling_mode
from .points import (
    Point,
    complex_points,
    far_points,
    feature_points,
    natural_scale,
    parameter_sign_sets,
    parameter_values,
    seed_for,
)

# Points per gap between breakpoints when the real domain is a short piece
# of the line and the usual sample put too few points there.
FILL_PER_GAP = 8


@dataclass(frozen=True)
class Pair:
    """What one check's evidence compares: the answer and the integrand as
    parsed (the domain rule reads them as written: e^{2 ln x} is undefined
    for x < 0) and as rebound to the real variable ``x``, F', and the
    integrand's parameters."""

    written: sp.Expr
    parsed_integrand: sp.Expr
    symbol: str
    derivative: sp.Expr
    integrand: sp.Expr
    x: sp.Symbol
    params: tuple[sp.Symbol, ...]


class Evidence:
    """The numeric side of one check: points drawn for this (answer,
    integrand) pair, the comparisons on them, and the domain rule.

    Randomness is seeded by the answer and the integrand as parsed (see
    :mod:`.points`), one stream per use, so each is reproducible alone.
    ``param_values`` fixes the parameters (else drawn, positive).
    """

    def __init__(self, pair: Pair, deadline: Deadline,
                 param_values: list[str] | None = None) -> None:
        self.pair = pair
        self.written, self.parsed_integrand, self.symbol = (pair.written, pair.parsed_integrand,
                                                            pair.symbol)
        self.derivative, self.integrand, self.x = pair.derivative, pair.integrand, pair.x
        self.params = list(pair.params)
        self.deadline = deadline
        # Seeded by the derivative: F and F + 7 are one answer and get the
        # same points (and one memo entry).
        self.seed = seed_for(self.derivative, self.integrand, sp.Symbol(self.symbol))
        self.param_values = param_values if param_values is not None else \
            parameter_values(random.Random(self.seed ^ 2), len(self.params))
        self._domain: DomainReport | None = None
        # True once the evidence for F' = f comes from the real line rather
        # than from an identity of analytic functions (complex points).
        self.on_real_line = False
        # What the local screen covered (points next to features, past
        # switch points, the digits): the guarantee of a numeric-only accept.
        self.coverage: dict[str, Any] = {}
        self.scaled = False
        self._sample: tuple[list[Point], bool] | None = None

    def _parameters(self) -> dict[str, str]:
        return {p.name: v for p, v in zip(self.params, self.param_values, strict=True)}

    def domain(self) -> DomainReport:
        """The domain report of this pair (computed once, on first use)."""
        if self._domain is None:
            self._domain = analyze(self.written, self.parsed_integrand, self.symbol,
                                   self._parameters(), random.Random(self.seed ^ 1),
                                   self.deadline)
        return self._domain

    def _comparer(self, points, usable=None, real_only=True) -> NumericComparer:
        return NumericComparer(self.derivative, self.integrand, self.x, self.params,
                               self.deadline, points, usable=usable,
                               param_values=self.param_values, real_only=real_only)

    def _real_line_comparer(self, domain: DomainReport) -> NumericComparer:
        if domain.decision == "empty":
            # An integrand real nowhere on the line (sqrt(-csch(x)^2)): its
            # complex values are compared as they are, on every point.
            return self._comparer(domain.points, real_only=False)
        return self._comparer(domain.points, domain.usable)

    def _complex_sample(self) -> tuple[list[Point], bool]:
        """The screen's complex points, and whether some are scaled."""
        if self._sample is None:
            self._sample = self._draw_complex_sample()
        return self._sample

    def _draw_complex_sample(self) -> tuple[list[Point], bool]:
        points = complex_points(random.Random(self.seed))
        scale = natural_scale([self.derivative, self.integrand], self.x)
        if scale is None:
            return points, False
        # e^{2016 x}: the generic points are where its values carry no
        # information; these are where they do.
        return points + complex_points(random.Random(self.seed ^ 6), scale=scale), True

    def agrees_in_doubles(self) -> int:
        """How many complex points the screen would use, when F' and f agree
        in doubles there (:func:`.first_look.agree`: at every one of them, or
        for single-valued expressions at those within ``first_look.NEAR`` of
        the origin); else 0.
        Then the screen would find no difference and stay on those points
        (no turn to the real line, no domain rule): a proof may come first.
        Always 0 for expressions sampled on the real line."""
        if sampling_mode(self.derivative, self.integrand) == "real":
            return 0
        points, _ = self._complex_sample()
        try:
            values = [complex(float(re_), float(im_)) for re_, im_ in points]
            params = [float(v) for v in self.param_values]
        except (OverflowError, ValueError):
            return 0
        single_valued = not (may_branch(self.derivative) or may_branch(self.integrand))
        return len(points) if agree(self.derivative, self.integrand, (self.x, *self.params),
                                    values, params, single_valued=single_valued) else 0

    def screen(self) -> tuple[NumericComparer, dict[str, Any]]:
        """The cheap first comparison, on complex points for analytic
        expressions and on the real line (domain rule applied) otherwise."""
        if sampling_mode(self.derivative, self.integrand) == "real":
            domain = self.domain()
            comparer = self._real_line_comparer(domain)
            self.on_real_line = True
            return comparer, self._real_screen(comparer, domain)
        points, self.scaled = self._complex_sample()
        comparer = self._comparer(list(points))
        branching = may_branch(self.derivative) or may_branch(self.integrand)
        spread_looked = False
        if branching and comparer.differs_in_doubles():
            # Where a branch may explain a difference at the complex points,
            # one there sends the screen to the real line below whatever its
            # digits confirm. When doubles already show one, the real line's
            # first look comes first: a wrong answer is rejected there without
            # the complex points' 30- and 60-digit values. Only when it is
            # not does the complex screen run, and everything after it as before.
            rejected = self._spread_rejection()
            if rejected is not None:
                return comparer, {"mode": "complex", "decision": "nonzero",
                                  "worst_rel_residual": rejected["worst_rel_residual"],
                                  "real_fallback": "nonzero", "real_spread": rejected,
                                  "complex_screen": "not run: doubles differ"}
            spread_looked = True
        screen = comparer.screen()
        if screen["decision"] in ("nonzero", "inconclusive") and (
                not screen.get("near_point") or branching):
            # A correct real-line answer can sit on another branch of sqrt/log
            # than the integrand off the real axis: judge it on the real line,
            # where both are real (breakpoints and both sides of them sampled).
            # Single-valued expressions that differ at a point near the origin
            # differ on the line too; far out, the difference may be a
            # cancellation the screen's digits did not resolve (1 - tanh(z)^2
            # at Re z = 300 needs 260 of them).
            rejected = None if spread_looked else self._spread_rejection()
            if rejected is not None:
                screen["real_fallback"] = "nonzero"
                return comparer, {**screen, "decision": "nonzero", "real_spread": rejected}
            quick = analyze(self.written, self.parsed_integrand, self.symbol,
                            self._parameters(), random.Random(self.seed ^ 3), self.deadline,
                            spread_only=True)
            if quick.decision != "empty":
                quick_screen = self._real_line_comparer(quick).screen()
                if quick_screen["decision"] == "nonzero":
                    screen["real_fallback"] = "nonzero"
                    return comparer, {**screen, "decision": "nonzero",
                                      "real_spread": quick_screen}
            domain = self.domain()
            real = self._real_line_comparer(domain)
            real_screen = self._real_screen(real, domain)
            if real_screen["decision"] == "inconclusive" and domain.decision == "ok" \
                    and len(domain.usable) < len(domain.points):
                # The integrand is real on only part of the line ((0, 1) for
                # 1/sqrt(x sqrt x - x^2)), and few of the points fell there:
                # sample inside its pieces before giving up on the real line.
                domain = self._domain = analyze(
                    self.written, self.parsed_integrand, self.symbol, self._parameters(),
                    random.Random(self.seed ^ 1), self.deadline, fill=FILL_PER_GAP)
                real = self._real_line_comparer(domain)
                real_screen = self._real_screen(real, domain)
            screen["real_fallback"] = real_screen["decision"]
            if real_screen["decision"] in ("zero", "zero_low"):
                # The complex points saw a difference: a branch off the axis,
                # or a term the real sample stepped over (a steep step inside
                # the domain). Next to the features of F' and f first.
                features = self._local_screen()
                if features is not None and features["decision"] == "nonzero":
                    screen["real_fallback"] = "nonzero_localized"
                    return comparer, {**screen, "decision": "nonzero",
                                      "real_localized": features}
                self.on_real_line = True
                return real, {**real_screen, "complex_decision": screen["decision"]}
        return comparer, screen

    def _spread_rejection(self) -> dict[str, Any] | None:
        """The real line's first look: generic real points, where a wrong
        answer (the usual reason for a complex mismatch) fails without the
        breakpoint search, and mostly on the first point tried where F and f
        are real (the domain rule is applied at that point alone before at
        all of them). The rejection record, or ``None``."""
        spread, owed = spread_sample(self.written, self.parsed_integrand, self.symbol,
                                     self._parameters(), random.Random(self.seed ^ 3),
                                     self.deadline)
        return self._comparer(spread).first_look_rejection(owed)

    @staticmethod
    def _real_screen(comparer: NumericComparer, domain: DomainReport) -> dict[str, Any]:
        screen = {**comparer.screen(), "domain": domain.to_dict()}
        if domain.truncated and screen["decision"] in ("zero", "zero_low"):
            # Agreement on a sample that skipped some pieces is no evidence
            # for them: only a proof may accept (padding an answer with
            # harmless kinks must not hide a wrong piece).
            screen["decision"] = "inconclusive"
            screen["note"] = "too many breakpoints to sample every piece"
        return screen

    def localized_refusal(self, stages: list[StageRecord]) -> dict[str, Any] | None:
        """``None`` when F' and f also agree where a term of them may peak or
        switch on; else the WRONG detail. A steep step added to a right
        answer (``\\tanh(200(x - x_0))``) changes F' only within 1/k of x_0,
        and ``\\sin(x + e^{-1000} e^x)`` only beyond x = 1000: below every
        working precision at the generic points. They are looked for next to
        the zeros and critical points of the arguments in F' and f
        (:func:`.points.feature_points`) and past the switch points of their
        exponential terms (:func:`.points.far_points`), where both sides are
        real, with the digits the values there need (:meth:`_local_screen`).
        Features or switches beyond what a check probes leave part of the
        line unseen: then no numeric-only accept."""
        start = time.perf_counter()
        screen = self._local_screen()
        if screen is None:
            return None
        failed = screen["decision"] == "nonzero"
        unseen = screen.get("truncated", False)
        stages.append(StageRecord("localized", "fail" if failed or unseen else "ok",
                                  ms_since(start), screen))
        if failed:
            return {"reason": "localized_terms", "worst_point": screen["worst_point"],
                    "message": "F' differs from the integrand next to a feature of them"}
        if unseen:
            return {"reason": "unverifiable",
                    "message": "more features or switch points than a check probes, "
                               "and no proof"}
        return None

    def _local_screen(self) -> dict[str, Any] | None:
        """F' against f next to the zeros and critical points of the
        arguments in them and past their switch points, where both sides are
        real; ``None`` when there is no such point.

        The strict levels (:meth:`.NumericComparer.confirm_zero`), raised by
        the size of the values seen there: a 50-term polynomial at x = 37 is
        10^78, and a unit bump beside it is a relative 10^-78, hidden at the
        screen's digits."""
        fixed = {p: sp.Rational(v) for p, v in zip(self.params, self.param_values, strict=True)}
        exprs = [self.derivative, self.integrand]
        features = feature_points(exprs, self.x, self.deadline, random.Random(self.seed ^ 5),
                                  fixed)
        far = far_points(exprs, self.x, self.deadline, random.Random(self.seed ^ 7), fixed)
        points = list(dict.fromkeys([*features, *far]))
        usable = real_points_of(self.written, self.parsed_integrand, self.symbol,
                                self._parameters(), points, self.deadline)
        if not usable:
            return None
        comparer = self._comparer(points, usable)
        comparer.raise_to_sizes(LEVELS[0])
        screen = comparer.confirm_zero()
        screen.update(features=len(features), far=len(far))
        self.coverage = {"feature_points": len(features), "far_points": len(far),
                         "local_levels": screen["levels"]}
        if features.truncated or far.truncated:
            screen["truncated"] = True
        return screen

    def guarantee(self, confirm: dict[str, Any]) -> dict[str, Any]:
        """What a numeric-only accept rests on (docs/domain.md, "What a
        numeric-only accept guarantees"): the reading, the strict levels and
        points of the confirmation, and what the local screen covered."""
        return {"guarantee": "real_line_sample" if self.on_real_line else "complex_sample",
                "levels": confirm["levels"], "points": confirm["n_usable"],
                "scaled_points": self.scaled, **self.coverage}

    def jump_refusal(self, stages: list[StageRecord]) -> dict[str, Any] | None:
        """``None`` when F is continuous wherever the integrand is; else the
        WRONG detail (:mod:`.continuity`). Only answers with steps, kinks,
        pieces, bounded functions of a pole or (written with ``i``) branch
        cuts can jump: others pay nothing. Parameters are generic: an answer
        that jumps only for a < 0 (``\\operatorname{sgn}(x)(1 - \\operatorname{sgn} a)``)
        is looked at with every sign pattern the parameter screen uses."""
        if not can_jump(self.written):
            return None
        start = time.perf_counter()
        patterns = [self.param_values]
        if self.params:
            patterns += parameter_sign_sets(random.Random(self.seed ^ 4), self.param_values)
        jump, looked_at, values = None, 0, {}
        for pattern in patterns:
            values = {p.name: v for p, v in zip(self.params, pattern, strict=True)}
            jump, looked_at = find_jump(self.written, self.parsed_integrand, self.symbol,
                                        values, self.deadline)
            if jump is not None:
                break
        data = {"points": looked_at, **({"jump": jump.to_dict()} if jump else {})}
        if jump is not None and values:
            data["values"] = values
        stages.append(StageRecord("continuity", "fail" if jump else "ok", ms_since(start), data))
        if jump is None:
            return None
        return {"reason": "discontinuous", **jump.to_dict(),
                **({"values": values} if values else {}),
                "message": "the answer jumps where the integrand is continuous"}

    def parameter_refusal(self, stages: list[StageRecord]) -> dict[str, Any] | None:
        """``None`` when F' = f holds for the other signs of the parameters
        too; else the WRONG detail. Parameters are generic: the evidence so
        far took them positive, and an answer right only there (``|a|``,
        ``\\sqrt{a^2}`` for ``a``) must not pass. Each other sign pattern is
        screened like the first; a stable difference at any one refuses."""
        if not self.params:
            return None
        start = time.perf_counter()
        tried = []
        for values in parameter_sign_sets(random.Random(self.seed ^ 4), self.param_values):
            other = Evidence(self.pair, self.deadline, values)
            _, screen = other.screen()
            named = {p.name: v for p, v in zip(self.params, values, strict=True)}
            tried.append({"values": named, "decision": screen["decision"]})
            if screen["decision"] == "nonzero":
                stages.append(StageRecord("parameters", "fail", ms_since(start),
                                          {"tried": tried}))
                return {"reason": "parameter_values", "values": named,
                        "message": "F' differs from the integrand for these parameter values"}
        stages.append(StageRecord("parameters", "ok", ms_since(start), {"tried": tried}))
        return None

    def domain_refusal(self, stages: list[StageRecord]) -> dict[str, Any] | None:
        """``None`` when the answer may be accepted; else the WRONG detail.

        An identity of analytic functions (a structural zero, a proof, or
        agreement at complex points) needs no look: F' = f then holds for the
        principal branches everywhere, the reading of a computer algebra
        system. Evidence from the real line counts only where both sides are
        real, so it also needs F real on the whole of a component of the
        integrand's real domain; an answer real wherever the integrand is (no
        logarithm, radical or bounded inverse in it) has that already."""
        if not self.on_real_line or not restricts_domain(self.written):
            return None
        start = time.perf_counter()
        domain = self.domain()
        ok = domain.decision in ("ok", "empty")
        stages.append(StageRecord("domain", "ok" if ok else "fail", ms_since(start),
                                  domain.to_dict()))
        if ok:
            return None
        return {"reason": "partial_domain",
                "message": "the answer is real on no whole interval of the integrand's "
                           "real domain"}
