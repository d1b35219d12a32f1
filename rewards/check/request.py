"""What one check needs besides the two texts, in one frozen object.

A :class:`CheckRequest` is built once (by :meth:`RewardConfig.check_request
<rewards.reward.config.RewardConfig.check_request>` for the reward, from
keyword arguments for a direct call), sent as is to the worker processes,
and handed to every stage: the variable, how the answer and the integrand
are written, the answer policy, and the time limits. The defaults here are
the project's defaults; :class:`~rewards.reward.config.RewardConfig` reads
them from this class rather than restating them.

>>> CheckRequest().timeout_s
5.0
>>> CheckRequest.build(symbol="t", box_policy="first").answer_policy.box_policy.value
'first'
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, Literal

from .extract import DEFAULT_POLICY, AnswerPolicy, BoxPolicy
from .parse.names import valid_variable_name
from .proof.ladder import LADDER_BUDGET_S

AnswerSyntax = Literal["auto", "latex", "sympy"]
IntegrandKind = Literal["sympy", "latex"]
ANSWER_SYNTAXES: tuple[str, ...] = ("auto", "latex", "sympy")
INTEGRAND_KINDS: tuple[str, ...] = ("sympy", "latex")


@dataclass(frozen=True)
class CheckRequest:
    """The settings of one check (and of every check of a reward).

    Args:
        symbol: the integration variable. ``None`` infers it from the
            integrand (:mod:`rewards.check.prepare.variable`): its single free
            symbol; with several, ``x``, then ``default_symbol``, then the
            first name alphabetically (recorded in the verdict's detail).
        default_symbol: the variable when the integrand has none (``1``,
            ``pi``), and the second preference among several.
        answer_syntax: how an extracted answer is read: ``latex``, ``sympy``
            (Python syntax, never evaluated) or ``auto`` (SymPy syntax when it
            has no backslash or brace, else LaTeX).
        integrand_kind: how the integrand is written: ``sympy`` (the
            ``chenpanli/integrals`` dataset) or ``latex``.
        answer_policy: which part of a completion is the final answer
            (:class:`~rewards.check.extract.AnswerPolicy`).
        timeout_s: seconds one check may take, in the worker or in-process.
        proof_budget_s: seconds the symbolic ladder may take once the strict
            numeric test passed (it then only decides symbolic vs numeric-only).
        memory_limit_mb: memory one check may add to the process running it
            (``RLIMIT_AS``, :mod:`rewards.check.memory`); ``None``: no cap, for
            hosts that manage memory themselves (the reward's workers are
            capped once, by their pool).
        trace_accepted: keep the expressions of a proved answer's stage
            trace (``out``: the parsed answer, F'); they are printed for every
            other verdict and for numeric-only accepts. Off: printing them was
            a twentieth of a check, and the reward traces only rejected and
            numeric-only answers.
        trace_rejected: print the expressions of every other answer's stage
            trace (rejected, numeric-only). The reward turns it off when it
            writes no trace (no ``trace_path``): nothing else reads them, and
            printing them was 3% of the hard batch's checks.
    """

    symbol: str | None = None
    default_symbol: str = "x"
    answer_syntax: AnswerSyntax = "auto"
    integrand_kind: IntegrandKind = "sympy"
    answer_policy: AnswerPolicy = DEFAULT_POLICY
    timeout_s: float = 5.0
    proof_budget_s: float = LADDER_BUDGET_S
    memory_limit_mb: int | None = 3072
    trace_accepted: bool = False
    trace_rejected: bool = True

    def __post_init__(self) -> None:
        # Configuration errors fail here, at construction, never as a verdict.
        if self.answer_syntax not in ANSWER_SYNTAXES:
            raise ValueError(f"answer_syntax must be one of {ANSWER_SYNTAXES}, "
                             f"not {self.answer_syntax!r}")
        if self.integrand_kind not in INTEGRAND_KINDS:
            raise ValueError(f"integrand_kind must be one of {INTEGRAND_KINDS}, "
                             f"not {self.integrand_kind!r}")
        if not valid_variable_name(self.default_symbol):
            raise ValueError(f"default_symbol must be a variable name, "
                             f"not {self.default_symbol!r}")
        if not isinstance(self.answer_policy, AnswerPolicy):
            raise TypeError(f"answer_policy must be an AnswerPolicy, "
                            f"not {type(self.answer_policy).__name__}")
        if not float(self.timeout_s) > 0:
            raise ValueError(f"timeout_s must be positive, not {self.timeout_s!r}")
        # 0 skips the ladder: an unproven answer is then numeric-only at once.
        if not float(self.proof_budget_s) >= 0:
            raise ValueError(f"proof_budget_s must not be negative, not {self.proof_budget_s!r}")
        object.__setattr__(self, "timeout_s", float(self.timeout_s))
        object.__setattr__(self, "proof_budget_s", float(self.proof_budget_s))

    @classmethod
    def build(cls, request: CheckRequest | None = None, *, box_policy: BoxPolicy | str | None = None,
              math_fallback: bool | None = None, **changes: Any) -> CheckRequest:
        """``request`` (or the defaults) with ``changes`` applied; ``box_policy``
        and ``math_fallback`` change those fields of its answer policy.
        An unknown name is a ``TypeError`` naming the valid ones."""
        request = request or cls()
        unknown = sorted(set(changes) - {f.name for f in fields(cls)})
        if unknown:
            raise TypeError(f"unknown check option(s) {unknown}; valid: "
                            f"{', '.join(f.name for f in fields(cls))}, box_policy, "
                            f"math_fallback")
        policy = changes.pop("answer_policy", None) or request.answer_policy
        if box_policy is not None:
            policy = policy.replace(box_policy=BoxPolicy(box_policy))
        if math_fallback is not None:
            policy = policy.replace(math_fallback=bool(math_fallback))
        if changes or policy is not request.answer_policy:
            return dataclasses.replace(request, answer_policy=policy, **changes)
        return request

    def replace(self, **changes: Any) -> CheckRequest:
        """A copy with ``changes`` applied (validated)."""
        return dataclasses.replace(self, **changes)


__all__ = ["ANSWER_SYNTAXES", "INTEGRAND_KINDS", "AnswerSyntax", "CheckRequest",
           "IntegrandKind"]
