"""The answer policy and what extraction returns: :class:`AnswerPolicy`,
:class:`Extraction` (with its :class:`Candidate` final answers) and the
status slugs. The rules themselves are described in :mod:`rewards.check.extract`."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from ..limits import CAPS


class ExtractionStatus(str, Enum):
    """Outcome of :func:`extract_answer`; values are stable verdict slugs."""

    OK = "ok"
    NO_ANSWER = "no_answer"
    EMPTY = "empty"
    UNBALANCED = "unbalanced"
    TOO_LONG = "too_long"
    AMBIGUOUS = "ambiguous"
    HEDGED = "hedged"
    QUALIFIED = "qualified_answer"
    # A bug in extraction, not the model's fault: map to CHECKER_ERROR.
    INTERNAL_ERROR = "extraction_error"


class BoxPolicy(str, Enum):
    """Which candidate to take when a response holds several boxes or tags."""

    FIRST = "first"
    LAST = "last"
    ONLY_IF_SINGLE = "only_if_single"


def _coerce_policy(policy: BoxPolicy | str) -> BoxPolicy:
    if isinstance(policy, BoxPolicy):
        return policy
    if isinstance(policy, str):
        try:
            return BoxPolicy(policy.strip().lower())
        except ValueError:
            pass
    allowed = ", ".join(p.value for p in BoxPolicy)
    raise ValueError(f"unknown box policy {policy!r}; expected one of: {allowed}")


SOURCE_BOXED = "boxed"
SOURCE_ANSWER_TAG = "answer_tag"
SOURCE_MATH_BLOCK = "math_block"

_REASONING_MODES = ("grade_after", "ignore_tags")
_HEDGE_MODES = ("reject", "pick")
_QUALIFIER_MODES = ("reject", "report")


@dataclass(frozen=True)
class AnswerPolicy:
    """Which part of a completion is its final answer; see the module docstring.

    reasoning -- ``grade_after``: grade only the text after the last
                 ``</think>``; ``ignore_tags``: think tags mean nothing.
    hedge     -- ``reject``: all final candidates must agree and none may
                 hedge; ``pick``: take the ``box_policy`` choice, report
                 hedges without acting on them.
    box_policy, math_fallback -- as before (see :func:`extract_answer`).
    qualifiers -- ``reject``: a conditional answer is QUALIFIED;
                  ``report``: OK, the words are listed.
    max_distinct_answers -- under ``reject``, more textually distinct final
                  answers than this is a hedge (also bounds the checker's
                  work: it checks each distinct answer).
    """

    reasoning: str = "grade_after"
    hedge: str = "reject"
    box_policy: BoxPolicy = BoxPolicy.LAST
    math_fallback: bool = False
    qualifiers: str = "reject"
    max_distinct_answers: int = 4

    def __post_init__(self) -> None:
        for name, allowed in (("reasoning", _REASONING_MODES), ("hedge", _HEDGE_MODES),
                              ("qualifiers", _QUALIFIER_MODES)):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"unknown {name} mode {value!r}; expected one of: "
                                 f"{', '.join(allowed)}")
        object.__setattr__(self, "box_policy", _coerce_policy(self.box_policy))
        if not isinstance(self.math_fallback, bool):
            raise ValueError(f"math_fallback must be a bool, got {self.math_fallback!r}")
        n = self.max_distinct_answers
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"max_distinct_answers must be a positive int, got {n!r}")

    def replace(self, **changes: Any) -> AnswerPolicy:
        """A copy with ``changes`` applied (validated)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The policy as plain values (traces, ``.meta.json``)."""
        return {"reasoning": self.reasoning, "hedge": self.hedge,
                "box_policy": self.box_policy.value, "math_fallback": self.math_fallback,
                "qualifiers": self.qualifiers,
                "max_distinct_answers": self.max_distinct_answers}

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.to_dict().items())


DEFAULT_POLICY = AnswerPolicy()


@dataclass(frozen=True)
class Candidate:
    """One final answer marker found in the graded text.

    ``index`` numbers the markers counted by :attr:`Extraction.n_matches`
    (with the math fallback only the last block is a candidate, so its index
    can be > 0); ``start``/``end`` are offsets in the input text (after bytes
    decoding). ``raw`` is the content as written (NUL removed, stripped,
    ``\boxed{\boxed{x}}`` unwrapped), ``text`` the part that is graded
    (:func:`.parse.equation.equation_rhs` of ``raw``), ``key`` the comparison key; all three
    are None when ``status`` is ``too_long``, and ``text``/``key`` when
    ``empty``.
    """

    source: str
    index: int
    start: int
    end: int
    status: str  # "ok" | "empty" | "too_long" | "substitution" (``u = x^2``)
    raw: str | None
    text: str | None
    key: str | None
    in_answer_tag: bool = False
    hedges: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()

    def to_dict(self, limit: int = 300) -> dict[str, Any]:
        """The candidate for a trace, texts cut at ``limit`` characters."""
        def cut(s: str | None) -> str | None:
            return s if s is None or len(s) <= limit else s[:limit] + "..."
        out = {"source": self.source, "index": self.index, "start": self.start,
               "status": self.status, "text": cut(self.text),
               "in_answer_tag": self.in_answer_tag, "hedges": list(self.hedges),
               "qualifiers": list(self.qualifiers)}
        if self.raw != self.text:
            out["raw"] = cut(self.raw)
        return out


@dataclass(frozen=True)
class Extraction:
    """Result of :func:`extract_answer`.

    ``n_matches`` counts the complete markers of the graded text (boxes and
    tags together; math blocks with the fallback); ``chosen_index`` is the
    index of the one ``box_policy`` picked, set also when it then failed
    (EMPTY, TOO_LONG, HEDGED, ...), so traces show which one. ``value`` is
    set exactly when the status is OK. ``candidates`` are the final answers
    in text order (see :attr:`distinct_texts` and
    :attr:`needs_agreement_check` for what the checker must do with them);
    ``policy`` is the policy that applied; ``reasoning`` is ``none``,
    ``closed``, ``unclosed`` or ``ignored`` and ``graded_from`` the offset
    where the graded text starts.
    """

    status: ExtractionStatus
    value: str | None
    n_matches: int
    chosen_index: int | None
    source: str | None
    detail: str = ""
    code: str = ""
    candidates: tuple[Candidate, ...] = ()
    agreement: str = "none"  # none | single | identical | differ
    hedges: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()
    policy: AnswerPolicy = field(default=DEFAULT_POLICY)
    reasoning: str = "none"
    graded_from: int = 0

    @property
    def ok(self) -> bool:
        """Whether an answer was extracted."""
        return self.status is ExtractionStatus.OK

    @property
    def reason(self) -> str:
        """Stable slug ``status`` or ``status:code`` for verdict reasons."""
        return f"{self.status.value}:{self.code}" if self.code else self.status.value

    @property
    def chosen(self) -> Candidate | None:
        """The candidate ``box_policy`` picked, if any."""
        for c in self.candidates:
            if c.index == self.chosen_index:
                return c
        return None

    @property
    def distinct_texts(self) -> tuple[str, ...]:
        """One graded text per distinct key, the chosen one first (empty if not OK)."""
        if not self.ok:
            return ()
        chosen = self.chosen
        out = [self.value] if self.value is not None else []
        seen = {chosen.key} if chosen is not None else set()
        for c in self.candidates:
            if c.status == "ok" and c.key not in seen:
                seen.add(c.key)
                out.append(c.text)
        return tuple(out)

    @property
    def needs_agreement_check(self) -> bool:
        """True when the policy rejects hedges and the final answers differ
        textually: the checker must check every :attr:`distinct_texts`."""
        return self.ok and self.agreement == "differ" and self.policy.hedge == "reject"

    def to_dict(self) -> dict[str, Any]:
        """The extraction as the ``candidate_extract`` stage records it."""
        return {
            "status": self.status.value,
            "reason": self.reason,
            "value": self.value,
            "n_matches": self.n_matches,
            "chosen_index": self.chosen_index,
            "source": self.source,
            "detail": self.detail,
            "agreement": self.agreement,
            "hedges": list(self.hedges),
            "qualifiers": list(self.qualifiers),
            "n_candidates": len(self.candidates),
            "candidates": [c.to_dict() for c in self.candidates[:CAPS.listed_candidates]],
            "policy": self.policy.to_dict(),
            "reasoning": self.reasoning,
            "graded_from": self.graded_from,
        }

    def describe(self) -> str:
        """A few human-readable lines for an ``explain`` command."""
        lines = [f"policy: {self.policy}",
                 f"reasoning: {self.reasoning}; graded text starts at offset {self.graded_from}",
                 f"candidates: {len(self.candidates)} of {self.n_matches} markers "
                 f"(agreement: {self.agreement})"]
        for c in self.candidates[:CAPS.listed_candidates]:
            mark = "*" if c.index == self.chosen_index else " "
            where = "boxed in <answer>" if c.in_answer_tag else c.source
            extra = "".join(f" {k}={list(v)}" for k, v in
                            (("hedges", c.hedges), ("qualifiers", c.qualifiers)) if v)
            shown = c.text if c.text is not None else f"<{c.status}>"
            lines.append(f" {mark}[{c.index}] {where} @{c.start}: {shown[:120]!r}{extra}")
        if len(self.candidates) > CAPS.listed_candidates:
            lines.append(f"  ... {len(self.candidates) - CAPS.listed_candidates} more")
        lines.append(f"result: {self.reason} -- {self.detail}")
        return "\n".join(lines)

