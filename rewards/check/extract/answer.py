r"""Find the final answer in an untrusted model completion.

The completion is adversarial text produced by a policy under RL pressure, so
this module is written as a parser for hostile input:

* every scan is a single forward pass (``re.search``/``finditer`` over a
  one-character class, fixed literals or letter runs), so run time is linear
  in the input even for 100k nested braces, 10k boxes or 10k ``<think>``
  tags; there is no recursion and no regex that can backtrack over more than
  one whitespace run; every per-answer check runs on one final answer, and
  the final answers never overlap, so all of them together stay linear;
* oversized input is rejected by length before any scanning, and each answer
  by length before it is analysed;
* :func:`extract_answer` never raises on model text; it reports what went
  wrong through :class:`ExtractionStatus`, and a bug of ours (any exception
  inside extraction) is the status ``INTERNAL_ERROR`` (slug
  ``extraction_error``), which callers map to CHECKER_ERROR (no reward, no
  gradient), never to "no answer".

Final-answer policy (:class:`AnswerPolicy`; :data:`DEFAULT_POLICY` is the RL
default, every field is configurable):

1. **Reasoning** (``reasoning="grade_after"``). Only the text after the last
   ``</think>`` is graded, as TRL's ``reasoning_accuracy_reward`` does. A
   ``<think>`` with no ``</think>`` after it is truncated reasoning: NO_ANSWER
   (reason ``no_answer:unclosed_reasoning``), whatever it holds. An answer
   marker that appears only before the last ``</think>`` is no answer
   (``no_answer:answer_only_in_reasoning``). Unlike TRL, a response with no
   think tag at all is graded whole (models that do not reason); a lone
   ``</think>`` (the chat template opened the block) ends the reasoning.
   Tags are matched like answer tags (case and spaces inside ``<...>`` are
   free). ``reasoning="ignore_tags"`` grades the whole text.
2. **Final candidates**: in the graded text, every top-level (outermost,
   complete) ``\boxed{}``/``\fbox{}`` and every complete ``<answer>`` tag that
   holds no box. A box inside an answer tag *is* that tag's answer (one
   candidate, source ``boxed``, ``in_answer_tag=True``); a tag inside a box
   belongs to the box. Only when there is none of either, and only with
   ``math_fallback=True``, the last ``$...$``/``$$...$$``/``\(...\)``/
   ``\[...\]`` block is the single candidate.
3. **Choice**: ``box_policy`` (first / last / only_if_single) picks
   ``value`` among the candidates in text order; an unclosed box or tag is
   UNBALANCED as before (it runs to the end of the text, so it is the last
   candidate). An unclosed ``<answer>`` followed by a complete box is
   ignored (the box is the answer).
4. **Agreement** (``hedge="reject"``): all final candidates must agree.
   Each candidate's ``key`` is its graded text with spacing (whitespace,
   ``\,`` ``\;`` ``\!`` ``\quad`` ``\left`` ``\right`` ...), trailing
   ``.,;`` and a trailing ``+ C`` removed. Equal keys: no question
   (``agreement`` ``single``/``identical``). Different keys: ``agreement ==
   "differ"`` and :attr:`Extraction.needs_agreement_check` is true; the
   status stays OK because equality up to a constant is the checker's
   question: it must check every text in :attr:`Extraction.distinct_texts`.
   More than ``max_distinct_answers`` distinct keys is HEDGED
   (``hedged:too_many_answers``). Empty candidates carry no claim and are
   ignored unless chosen; under ``reject`` every non-empty candidate must
   pass the checks below, not only the chosen one.
5. **Hedges** (status HEDGED under ``reject``; only reported under
   ``pick``), reason ``hedged:<code>``:

   * inside an answer (outside ``cases`` environments): the words ``or`` /
     ``either`` (bare or in ``\text{}``), ``\lor`` -> ``or``/``either``;
     ``\pm`` or ``±`` -> ``pm``; ``\mp`` or ``∓`` -> ``mp`` (a sign
     alternative is two answers);
   * ``\pm``/``\mp`` right before a marker (``$\pm\boxed{F}$``) ->
     ``pm``/``mp``;
   * two consecutive candidates with different keys whose joining text is
     short (at most 40 characters once ``$``/spaces are stripped) and holds
     ``or``/``either``/``\pm``, or starts with ``or``, or holds ``or`` in its
     first or last 60 characters with ``either`` (not "either way") just
     before the first of them -> ``or_between_answers``;
   * the last candidate immediately followed by ``or`` and then math
     (``$``, ``\(``, ``\[`` or a command) -> ``or_after_answer``.

   "or equivalently", "i.e.", "that is", "in other words", "simplif...",
   "rewrit..." in the joining text are restatements, not hedges. Prose
   elsewhere ("by substitution or by parts") is never read.
6. **Qualifiers** (``qualifiers="reject"``: status QUALIFIED, reason
   ``qualified_answer:<word>``; ``"report"``: OK with the words listed).
   Inside an answer and outside ``\begin{cases}...\end{cases}`` (also
   ``dcases``/``rcases``; a piecewise answer is passed through): the words
   where, for, if, otherwise, else, when, whenever, with, assuming,
   provided, unless, except, valid, such, here, and (bare or in ``\text{}``)
   and the relations ``\neq``/``\ne``/``≠`` (``neq``), ``<``/``\lt``
   (``lt``), ``>``/``\gt`` (``gt``), ``\leq``/``\le``/``≤`` (``leq``),
   ``\geq``/``\ge``/``≥`` (``geq``), ``\in``/``∈`` (``in``), ``\notin``
   (``notin``), ``\forall`` (``forall``). An antiderivative never contains
   them, so ``\sin x + C,\ \text{where } C = -x`` is not silently read as
   ``\sin x + C``.
7. **Right-hand side**: the graded text of a candidate is
   the right-hand side of its content (``\int f\,dx = F``, ``F(x) = F``,
   ``y = F`` give ``F``; the rule is :func:`.parse.equation.equation_rhs`,
   which the parsers share); qualifiers are looked for before, on the whole
   content. An integral left in the graded text is the parser's to refuse
   (reason ``echoed_integral``): it is never evaluated.

Order of the verdicts once a candidate is chosen: TOO_LONG or EMPTY (the
chosen one), TOO_LONG (any other final answer, under ``reject``), HEDGED,
QUALIFIED, then OK.

Reason slugs (:attr:`Extraction.reason`, ``status[:code]``; the part before
the colon is always ``status.value``): ``ok``, ``no_answer``,
``no_answer:unclosed_reasoning``, ``no_answer:answer_only_in_reasoning``,
``no_answer:unsupported_input``, ``empty``, ``unbalanced``, ``too_long``,
``ambiguous``, ``hedged:{or,either,pm,mp,or_between_answers,
or_after_answer,too_many_answers}``, ``qualified_answer:<word>``,
``extraction_error``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from ..parse.equation import equation_rhs

__all__ = [
    "DEFAULT_POLICY",
    "AnswerPolicy",
    "BoxPolicy",
    "Candidate",
    "Extraction",
    "ExtractionStatus",
    "answer_flags",
    "extract_answer",
]


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
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
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
    status: str  # "ok" | "empty" | "too_long"
    raw: str | None
    text: str | None
    key: str | None
    in_answer_tag: bool = False
    hedges: tuple[str, ...] = ()
    qualifiers: tuple[str, ...] = ()

    def to_dict(self, limit: int = 300) -> dict[str, Any]:
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
        return self.status is ExtractionStatus.OK

    @property
    def reason(self) -> str:
        """Stable slug ``status`` or ``status:code`` for verdict reasons."""
        return f"{self.status.value}:{self.code}" if self.code else self.status.value

    @property
    def chosen(self) -> Candidate | None:
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
            "candidates": [c.to_dict() for c in self.candidates[:_MAX_LISTED]],
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
        for c in self.candidates[:_MAX_LISTED]:
            mark = "*" if c.index == self.chosen_index else " "
            where = "boxed in <answer>" if c.in_answer_tag else c.source
            extra = "".join(f" {k}={list(v)}" for k, v in
                            (("hedges", c.hedges), ("qualifiers", c.qualifiers)) if v)
            shown = c.text if c.text is not None else f"<{c.status}>"
            lines.append(f" {mark}[{c.index}] {where} @{c.start}: {shown[:120]!r}{extra}")
        if len(self.candidates) > _MAX_LISTED:
            lines.append(f"  ... {len(self.candidates) - _MAX_LISTED} more")
        lines.append(f"result: {self.reason} -- {self.detail}")
        return "\n".join(lines)


_MAX_LISTED = 16

# A marker is (source, opener_start, content_start, content_end, end, in_tag).
_Marker = tuple[str, int, int, int, int, bool]

_BOX_COMMANDS = ("boxed", "fbox")
_BOX_SPECIALS = re.compile(r"[\\{}]")
_MATH_SPECIALS = re.compile(r"[\\$]")
# TeX ends a control word at the first non-letter, and only ASCII letters count;
# matching the whole word is what keeps \fboxsep or \boxedfoo from being a box.
_LETTERS = re.compile(r"[A-Za-z]*")
_SPACES = re.compile(r"\s*")
# Each \s* only ever spans one whitespace run after one '<', so the total
# backtracking over a hostile input is bounded by its length.
_TAG_OPEN = re.compile(r"<\s*answer\s*>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)

# \boxed{\boxed{x}} is unwrapped to x; the cap only matters for pathological
# input, and each round is linear in an answer already capped by length.
_MAX_UNWRAP = 8

# --- answer analysis tables -------------------------------------------------
# One token per match, left to right: a control word or symbol (so \\ eats
# both backslashes and \sin its letters), a maximal run of ASCII letters, or
# one special character. Each character is looked at once.
_TOKENS = re.compile("\\\\(?:[A-Za-z]+|.)|[A-Za-z]+|[<>\u00b1\u2213\u2260\u2264\u2265\u2208"
                     "\u2209\u2200]", re.DOTALL)
_HEDGE_WORDS = {"or": "or", "either": "either"}
_HEDGE_COMMANDS = {"lor": "or", "pm": "pm", "mp": "mp"}
_HEDGE_CHARS = {"\u00b1": "pm", "\u2213": "mp"}
_QUALIFIER_WORDS = frozenset({
    "where", "for", "if", "otherwise", "else", "when", "whenever", "with", "assuming",
    "provided", "unless", "except", "valid", "such", "here", "and",
})
_QUALIFIER_COMMANDS = {
    "neq": "neq", "ne": "neq", "lt": "lt", "gt": "gt", "leq": "leq", "le": "leq",
    "leqslant": "leq", "geq": "geq", "ge": "geq", "geqslant": "geq", "in": "in",
    "notin": "notin", "forall": "forall",
}
_QUALIFIER_CHARS = {"<": "lt", ">": "gt", "\u2260": "neq", "\u2264": "leq", "\u2265": "geq",
                    "\u2208": "in", "\u2209": "notin", "\u2200": "forall"}
_CASES = re.compile(r"\\(begin|end)\s*\{\s*[dr]?cases\*?\s*\}")

# Comparison key: spacing that never changes the value, then a trailing constant.
_KEY_NOISE = re.compile(r"\s+|\\[,;:! ]|\\(?:quad|qquad|displaystyle|textstyle|left|right)"
                        r"(?![A-Za-z])")
_KEY_CONSTANT = re.compile(r"\+(?:C|c|K|C_\{?\d{1,3}\}?|\\(?:mathrm|text|mathit)\{(?:C|const)\})$")

# Prose around markers (bounded windows only).
_HEDGE_PROSE = re.compile(r"(?<![A-Za-z])(?:or|either)(?![A-Za-z])", re.IGNORECASE)
# "either way" is prose, not the first half of an alternative.
_EITHER = re.compile(r"(?<![A-Za-z])either(?![A-Za-z])(?!\s*way)", re.IGNORECASE)
_OR = re.compile(r"(?<![A-Za-z])or(?![A-Za-z])", re.IGNORECASE)
_PM_PROSE = re.compile(r"\\(?:pm|mp)(?![A-Za-z])|[\u00b1\u2213]")
_RESTATEMENT = re.compile(r"equivalent|i\.\s?e\.|that is|in other words|simplif|rewrit",
                          re.IGNORECASE)
_LEADING_OR = re.compile(r"[\s$.,;:)\]]*(?:\\[)\]])?[\s$.,;:)]*or(?![A-Za-z])", re.IGNORECASE)
_MATH_AFTER = re.compile(r"\$|\\[(\[A-Za-z]")
_JOINER_NOISE = re.compile(r"[\s$]+|\\[()\[\]]")
_SHORT_JOINER = 40
_WINDOW = 60


def extract_answer(
    text: object,
    *,
    policy: AnswerPolicy | BoxPolicy | str = DEFAULT_POLICY,
    math_fallback: bool | None = None,
    max_chars: int = 200_000,
    max_answer_chars: int = 5_000,
) -> Extraction:
    r"""Extract the final answer from a model completion.

    >>> extract_answer(r"so \boxed{\frac{x^2}{2} + C}").value == r"\frac{x^2}{2} + C"
    True
    >>> r = extract_answer(r"\boxed{1} then \boxed{2}", policy="first")
    >>> (r.status.value, r.value, r.n_matches, r.chosen_index, r.source, r.agreement)
    ('ok', '1', 2, 0, 'boxed', 'differ')
    >>> r.needs_agreement_check, r.distinct_texts
    (True, ('1', '2'))
    >>> extract_answer(r"\boxed{1} then \boxed{2}", policy="only_if_single").status.value
    'ambiguous'
    >>> extract_answer(r"either \boxed{\sin x + C} or \boxed{-\sin x + C}").reason
    'hedged:or_between_answers'
    >>> extract_answer(r"\boxed{\sin x + C,\ \text{where } C = -x}").reason
    'qualified_answer:where'
    >>> extract_answer(r"<think>\boxed{x}</think> The answer is x.").reason
    'no_answer:answer_only_in_reasoning'
    >>> extract_answer(r"\boxed{\int 2x\,dx = x^2 + C}").value
    'x^2 + C'
    >>> extract_answer("<answer> x^3/3 </answer>").value
    'x^3/3'
    >>> extract_answer(r"\boxed{\frac{1}{2}").status.value
    'unbalanced'
    >>> extract_answer(r"It is $\sin x$.").status.value
    'no_answer'
    >>> extract_answer(r"It is $\sin x$.", math_fallback=True).value
    '\\sin x'

    ``policy`` is an :class:`AnswerPolicy`, or a :class:`BoxPolicy` (or its
    value) meaning :data:`DEFAULT_POLICY` with that box policy; an explicit
    ``math_fallback`` overrides the policy's. Box arguments are matched with a
    brace counter; ``\{``, ``\}`` and ``\\`` are text, as in TeX. Only the
    braced form ``\boxed{...}`` counts (spaces before the brace are fine); a
    bare ``\boxed x`` is not an answer. A box inside another box is not a
    separate candidate, and ``\boxed{\boxed{x}}`` yields ``x``. Values have
    NUL characters removed and surrounding whitespace stripped.

    Model text never makes this raise: ``None`` gives EMPTY, ``bytes`` are
    decoded as UTF-8 with replacement, any other non-string gives NO_ANSWER.
    An invalid policy is a configuration error and raises ``ValueError``.
    """
    chosen_policy = _resolve_policy(policy, math_fallback)
    try:
        return _extract(text, chosen_policy, max_chars, max_answer_chars)
    except Exception as exc:  # noqa: BLE001
        # A reward function that raises kills the training step for the whole
        # batch. This is our bug, not the model's: INTERNAL_ERROR, which the
        # caller maps to CHECKER_ERROR (no gradient), never to a penalty.
        return Extraction(
            ExtractionStatus.INTERNAL_ERROR, None, 0, None, None,
            f"internal error during extraction: {type(exc).__name__}: {str(exc)[:200]}",
            policy=chosen_policy,
        )


def _resolve_policy(policy: AnswerPolicy | BoxPolicy | str,
                    math_fallback: bool | None) -> AnswerPolicy:
    if not isinstance(policy, AnswerPolicy):
        policy = DEFAULT_POLICY.replace(box_policy=_coerce_policy(policy))
    if math_fallback is not None and bool(math_fallback) != policy.math_fallback:
        policy = policy.replace(math_fallback=bool(math_fallback))
    return policy


def _no_answer(detail: str, policy: AnswerPolicy, code: str = "", reasoning: str = "none",
               graded_from: int = 0) -> Extraction:
    return Extraction(ExtractionStatus.NO_ANSWER, None, 0, None, None, detail, code,
                      policy=policy, reasoning=reasoning, graded_from=graded_from)


def _extract(text: object, policy: AnswerPolicy, max_chars: int,
             max_answer_chars: int) -> Extraction:
    if text is None:
        return Extraction(ExtractionStatus.EMPTY, None, 0, None, None, "input is None",
                          policy=policy)
    if isinstance(text, (bytes, bytearray)):
        # UTF-8 needs at most 4 bytes per character, so anything longer cannot
        # decode to max_chars characters; refusing here avoids decoding megabytes.
        if len(text) > 4 * max_chars:
            return _too_long_input(len(text), max_chars, policy, unit="bytes")
        text = bytes(text).decode("utf-8", errors="replace")
    elif isinstance(text, str):
        if type(text) is not str:
            # A str subclass may override find/startswith/len; scan a plain copy.
            text = str.__str__(text)
    else:
        return _no_answer(f"unsupported input type: {type(text).__name__}", policy,
                          "unsupported_input")

    if len(text) > max_chars:
        return _too_long_input(len(text), max_chars, policy, unit="characters")

    if policy.reasoning == "grade_after":
        start, reasoning = _split_reasoning(text)
        if reasoning == "unclosed":
            return _no_answer(
                "a <think> block is never closed (truncated reasoning): no final answer",
                policy, "unclosed_reasoning", reasoning, start)
    else:
        start, reasoning = 0, "ignored"
    ctx = _Context(text, start, len(text), policy, max_answer_chars, reasoning)

    markers, unclosed, unclosed_source = _final_markers(text, start)
    if markers or unclosed is not None:
        return _decide(ctx, markers, unclosed, unclosed_source, policy.box_policy)

    if policy.math_fallback:
        blocks, unclosed = _scan_math(text, start)
        if blocks or unclosed is not None:
            # Only the last block is an answer candidate; the others are the
            # working, so they are counted but not compared.
            n = len(blocks)
            last = [(SOURCE_MATH_BLOCK, *blocks[-1], False)] if blocks else []
            return _decide(ctx, last, unclosed, SOURCE_MATH_BLOCK, BoxPolicy.LAST,
                           index_offset=max(0, n - 1), n_total=n)
    looked_for = ("\\boxed{}, <answer> tag or math block" if policy.math_fallback
                  else "\\boxed{} or <answer> tag")
    if reasoning == "closed":
        boxes, unclosed_box = _scan_boxes(text, 0, start)
        tags, unclosed_tag = _scan_tags(text, 0, start)
        if boxes or tags or unclosed_box is not None or unclosed_tag is not None:
            return _no_answer(
                f"an answer marker appears only inside the reasoning; no {looked_for} "
                f"after the last </think> (offset {start})",
                policy, "answer_only_in_reasoning", reasoning, start)
        return _no_answer(f"no {looked_for} after the last </think> (offset {start})",
                          policy, "", reasoning, start)
    return _no_answer(f"no {looked_for} found", policy, "", reasoning, start)


def _too_long_input(length: int, limit: int, policy: AnswerPolicy, *, unit: str) -> Extraction:
    return Extraction(
        ExtractionStatus.TOO_LONG, None, 0, None, None,
        f"input has {length} {unit}, limit is {limit} characters", policy=policy,
    )


def _split_reasoning(text: str) -> tuple[int, str]:
    """Return (offset where the graded text starts, reasoning state)."""
    last_close = None
    for m in _THINK_CLOSE.finditer(text):
        last_close = m.end()
    if last_close is None:
        return (0, "unclosed") if _THINK_OPEN.search(text) else (0, "none")
    if _THINK_OPEN.search(text, last_close):
        return last_close, "unclosed"
    return last_close, "closed"


# --- scanners ------------------------------------------------------------------


def _scan_boxes(text: str, pos: int = 0,
                endpos: int | None = None) -> tuple[list[tuple[int, int, int, int]], int | None]:
    """Return the outermost complete boxes and the start of the first unclosed one.

    Each box is (opener_start, content_start, content_end, end). Boxes closed
    while another box is still open are nested, never candidates: either the
    outer box closes later (and owns them) or it never closes, and then the
    unclosed outer box decides the outcome (see :func:`_choose`).
    """
    complete: list[tuple[int, int, int, int]] = []
    # (opener_start, content_start, brace depth just outside the box)
    open_boxes: list[tuple[int, int, int]] = []
    depth = 0
    n = len(text) if endpos is None else endpos
    search = _BOX_SPECIALS.search
    while True:
        m = search(text, pos, n)
        if m is None:
            break
        i = m.start()
        ch = text[i]
        if ch == "\\":
            word_end = _LETTERS.match(text, i + 1, n).end()
            if word_end == i + 1:
                # Control symbol (\{ \} \\ \, ...): the next character is text,
                # which is exactly what makes escaped braces not count.
                pos = i + 2
                continue
            # Length check first so a megabyte-long run of letters is not copied.
            if word_end - i - 1 in (4, 5) and text[i + 1:word_end] in _BOX_COMMANDS:
                j = _SPACES.match(text, word_end, n).end()
                if j < n and text[j] == "{":
                    open_boxes.append((i, j + 1, depth))
                    depth += 1
                    pos = j + 1
                    continue
            pos = word_end
        elif ch == "{":
            depth += 1
            pos = i + 1
        else:
            # A stray '}' at depth 0 is prose noise; clamping keeps it from
            # closing a box opened later.
            if depth:
                depth -= 1
                if open_boxes and open_boxes[-1][2] == depth:
                    start, content_start, _ = open_boxes.pop()
                    if not open_boxes:
                        complete.append((start, content_start, i, i + 1))
            pos = i + 1
    first_unclosed = open_boxes[0][0] if open_boxes else None
    return complete, first_unclosed


def _scan_tags(text: str, pos: int = 0,
               endpos: int | None = None) -> tuple[list[tuple[int, int, int, int]], int | None]:
    """Return complete ``<answer>`` spans and the start of a trailing unclosed one."""
    spans: list[tuple[int, int, int, int]] = []
    n = len(text) if endpos is None else endpos
    while True:
        opener = _TAG_OPEN.search(text, pos, n)
        if opener is None:
            return spans, None
        closer = _TAG_CLOSE.search(text, opener.end(), n)
        if closer is None:
            # No closer after this opener means none after any later opener
            # either; stopping here is what keeps 10k unclosed tags linear.
            return spans, opener.start()
        # "<answer> a <answer> b </answer>": the innermost opener pairs with the
        # closer, matching how a reader would read it. Every search moves
        # forward, so this stays linear.
        while True:
            inner = _TAG_OPEN.search(text, opener.end(), closer.start())
            if inner is None:
                break
            opener = inner
        spans.append((opener.start(), opener.end(), closer.start(), closer.end()))
        pos = closer.end()


def _scan_math(text: str, pos: int = 0) -> tuple[list[tuple[int, int, int, int]], int | None]:
    """Return complete inline/display math spans and the start of an unclosed one."""
    spans: list[tuple[int, int, int, int]] = []
    mode: str | None = None
    open_at = content_start = 0
    search = _MATH_SPECIALS.search
    while True:
        m = search(text, pos)
        if m is None:
            break
        i = m.start()
        if text[i] == "\\":
            nxt = text[i + 1:i + 2]
            if mode is None and nxt in ("(", "["):
                mode, open_at, content_start = "\\" + nxt, i, i + 2
            elif (mode == "\\(" and nxt == ")") or (mode == "\\[" and nxt == "]"):
                spans.append((open_at, content_start, i, i + 2))
                mode = None
            # Skipping two characters makes \$ and \\ text in every mode.
            pos = i + 2
            continue
        double = text.startswith("$$", i)
        if mode is None:
            mode = "$$" if double else "$"
            open_at, content_start = i, i + len(mode)
            pos = content_start
        elif mode == "$$" and double:
            spans.append((open_at, content_start, i, i + 2))
            mode = None
            pos = i + 2
        elif mode == "$":
            # Close on one '$' only: "$a$$b$" is two inline formulas in TeX.
            spans.append((open_at, content_start, i, i + 1))
            mode = None
            pos = i + 1
        else:
            # A lone '$' inside $$...$$ or \(...\) is malformed TeX; ignoring it
            # lets the proper closer still end the block.
            pos = i + 1
    return spans, (open_at if mode is not None else None)


def _final_markers(text: str, start: int) -> tuple[list[_Marker], int | None, str | None]:
    """Merge boxes and answer tags of the graded text into one ordered list.

    A tag holding boxes contributes those boxes (one candidate each, marked
    ``in_tag``) and not itself; a tag that starts inside a box belongs to it.
    Returns the markers, the earliest unclosed opener that counts, and its kind.
    """
    boxes, unclosed_box = _scan_boxes(text, start)
    tags, unclosed_tag = _scan_tags(text, start)
    markers: list[_Marker] = []
    bi, nb = 0, len(boxes)
    for t_start, t_cstart, t_cend, t_end in tags:
        covered = False
        while bi < nb and boxes[bi][0] < t_start:
            b = boxes[bi]
            covered = b[3] > t_start
            markers.append((SOURCE_BOXED, *b, False))
            bi += 1
        if covered:
            continue
        inside = False
        while bi < nb and boxes[bi][0] < t_cend:
            markers.append((SOURCE_BOXED, *boxes[bi], True))
            inside = True
            bi += 1
        if not inside:
            markers.append((SOURCE_ANSWER_TAG, t_start, t_cstart, t_cend, t_end, False))
    markers.extend((SOURCE_BOXED, *b, False) for b in boxes[bi:])

    if unclosed_tag is not None and boxes and (
            boxes[-1][0] > unclosed_tag
            or any(b[0] < unclosed_tag < b[3] for b in boxes)):
        # A complete box after (or around) a never-closed <answer> is the answer.
        unclosed_tag = None
    opened = [(p, s) for p, s in ((unclosed_box, SOURCE_BOXED), (unclosed_tag, SOURCE_ANSWER_TAG))
              if p is not None]
    if not opened:
        return markers, None, None
    unclosed, source = min(opened)
    return markers, unclosed, source


# --- decision ------------------------------------------------------------------


@dataclass
class _Context:
    text: str
    start: int
    end: int
    policy: AnswerPolicy
    max_answer_chars: int
    reasoning: str


def _choose(
    n_complete: int, first_complete_start: int | None, unclosed: int | None,
    policy: BoxPolicy,
) -> tuple[int | None, ExtractionStatus | None]:
    """Pick a candidate index, or say why none can be picked.

    An unclosed opener runs to the end of the text, so it is always the last
    top-level candidate and contains every complete one after it. Hence:
    LAST -> UNBALANCED whenever one exists (the model's final answer is
    broken; rewarding an earlier, abandoned answer would be wrong);
    FIRST -> UNBALANCED only if it starts before the first complete one;
    ONLY_IF_SINGLE -> UNBALANCED whenever one exists (nothing is cleanly single).
    """
    if policy is BoxPolicy.FIRST:
        if n_complete and (unclosed is None or first_complete_start < unclosed):
            return 0, None
        return None, ExtractionStatus.UNBALANCED
    if unclosed is not None:
        return None, ExtractionStatus.UNBALANCED
    if policy is BoxPolicy.ONLY_IF_SINGLE and n_complete > 1:
        return None, ExtractionStatus.AMBIGUOUS
    return n_complete - 1, None


_LABELS = {SOURCE_BOXED: "\\boxed{}", SOURCE_ANSWER_TAG: "<answer> tag",
           SOURCE_MATH_BLOCK: "math block"}


def _decide(ctx: _Context, markers: list[_Marker], unclosed: int | None,
            unclosed_source: str | None, box_policy: BoxPolicy, *, index_offset: int = 0,
            n_total: int | None = None) -> Extraction:
    policy = ctx.policy
    n = len(markers) if n_total is None else n_total
    cands = tuple(_analyze(ctx, m, index_offset + k) for k, m in enumerate(markers))
    first_start = cands[0].start if cands else None
    pick, failure = _choose(len(cands), first_start, unclosed, box_policy)
    common = {"candidates": cands, "policy": policy, "reasoning": ctx.reasoning,
              "graded_from": ctx.start}
    if failure is ExtractionStatus.UNBALANCED:
        return Extraction(failure, None, n, None, unclosed_source,
                          f"unclosed {_LABELS[unclosed_source]} starting at offset {unclosed} "
                          f"({n} complete, box_policy={box_policy.value})", **common)
    if failure is ExtractionStatus.AMBIGUOUS:
        return Extraction(failure, None, n, None, cands[-1].source,
                          f"{n} answer candidates but box_policy=only_if_single", **common)
    assert pick is not None
    chosen = cands[pick]
    index = chosen.index
    where = f"{_LABELS[chosen.source]} {index + 1} of {n} (box_policy={box_policy.value})"
    reject = policy.hedge == "reject"

    def result(status: ExtractionStatus, detail: str, code: str = "", value: str | None = None,
               **extra: Any) -> Extraction:
        return Extraction(status, value, n, index, chosen.source, detail, code,
                          **common, **extra)

    if chosen.status == "too_long":
        return result(ExtractionStatus.TOO_LONG, f"{where}: answer has more than "
                      f"{ctx.max_answer_chars} characters")
    if chosen.status == "empty":
        return result(ExtractionStatus.EMPTY, f"{where} is empty")

    judged = [c for c in cands if c.status != "empty"] if reject else [chosen]
    for c in judged:
        if c.status == "too_long":
            return result(ExtractionStatus.TOO_LONG, f"final answer {c.index + 1} of {n} has "
                          f"more than {ctx.max_answer_chars} characters (hedge=reject "
                          f"checks every final answer)")
    live = [c for c in cands if c.status == "ok"]
    keys = {c.key for c in live}
    agreement = "single" if len(live) == 1 else ("identical" if len(keys) == 1 else "differ")

    hedges: list[str] = []
    hedge_at: dict[str, int] = {}
    for c in judged:
        for h in c.hedges:
            if h not in hedge_at:
                hedge_at[h] = c.index
                hedges.append(h)
    for h, at in _prose_hedges(ctx, cands):
        if h not in hedge_at:
            hedge_at[h] = at
            hedges.append(h)
    if reject and len(keys) > policy.max_distinct_answers:
        hedges.insert(0, "too_many_answers")
        hedge_at["too_many_answers"] = index
    qualifiers: list[str] = []
    for c in judged:
        qualifiers.extend(q for q in c.qualifiers if q not in qualifiers)
    extra = {"agreement": agreement, "hedges": tuple(hedges), "qualifiers": tuple(qualifiers)}

    if reject and hedges:
        code = hedges[0]
        if code == "too_many_answers":
            detail = (f"{len(keys)} different final answers, more than "
                      f"max_distinct_answers={policy.max_distinct_answers}")
        else:
            detail = f"hedge '{code}' at final answer {hedge_at[code] + 1} of {n}"
        return result(ExtractionStatus.HEDGED, detail, code, **extra)
    if qualifiers and policy.qualifiers == "reject":
        owner = next(c for c in judged if qualifiers[0] in c.qualifiers)
        return result(ExtractionStatus.QUALIFIED,
                      f"final answer {owner.index + 1} of {n} is conditional "
                      f"({', '.join(qualifiers)}): a qualified answer is not graded",
                      qualifiers[0], **extra)
    notes = []
    if agreement == "differ":
        notes.append(f"{len(keys)} textually different final answers"
                     + ("; check each" if reject else "; hedge=pick takes the chosen one"))
    if hedges:
        notes.append(f"hedges ignored (hedge=pick): {', '.join(hedges)}")
    if qualifiers:
        notes.append(f"qualifiers reported: {', '.join(qualifiers)}")
    return result(ExtractionStatus.OK, "; ".join([where, *notes]), value=chosen.text, **extra)


def _analyze(ctx: _Context, marker: _Marker, index: int) -> Candidate:
    source, start, cstart, cend, end, in_tag = marker
    raw = ctx.text[cstart:cend].replace("\x00", "").strip()

    def make(status: str, raw_: str | None, text_: str | None = None, key: str | None = None,
             **extra: Any) -> Candidate:
        return Candidate(source, index, start, end, status, raw_, text_, key, in_tag, **extra)

    # Strip before the length check so padding alone cannot make an answer
    # TOO_LONG; strip() is linear, and the input is already length-capped.
    if len(raw) > ctx.max_answer_chars:
        return make("too_long", None)
    if source == SOURCE_BOXED:
        raw = _unwrap_nested_boxes(raw)
    if not raw:
        return make("empty", raw)
    hedges, qualifiers = answer_flags(raw)
    graded = equation_rhs(raw)
    if not graded:
        return make("empty", raw, hedges=hedges, qualifiers=qualifiers)
    return make("ok", raw, graded, _comparison_key(graded), hedges=hedges,
                qualifiers=qualifiers)


_PIECEWISE_CALL = re.compile(r"\bPiecewise\s*\(")


def _outside_piecewise(s: str) -> str:
    """``s`` without its SymPy-syntax ``Piecewise(...)`` calls (their
    conditions are read and checked piece by piece, like ``cases``)."""
    out, pos = [], 0
    for m in _PIECEWISE_CALL.finditer(s):
        if m.start() < pos:
            continue
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += {"(": 1, ")": -1}.get(s[i], 0)
            i += 1
        if depth:
            break
        out.append(s[pos:m.start()])
        out.append(" ")
        pos = i
    out.append(s[pos:])
    return "".join(out)


def _outside_cases(s: str) -> str:
    """``s`` without its complete outermost ``cases`` environments (and
    ``Piecewise(...)`` calls)."""
    if "Piecewise" in s:
        s = _outside_piecewise(s)
    if "cases" not in s:
        return s
    parts: list[str] = []
    depth, last, begin = 0, 0, 0
    for m in _CASES.finditer(s):
        if m.group(1) == "begin":
            if depth == 0:
                begin = m.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                parts.append(s[last:begin])
                parts.append(" ")
                last = m.end()
    parts.append(s[last:])
    return "".join(parts)


def answer_flags(raw: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Hedge codes and qualifier words inside one answer, in text order.

    >>> answer_flags(r"\\sin x \\text{ or } -\\sin x"), answer_flags(r"\\ln x \\text{ for } x>0")
    ((('or',), ()), ((), ('for', 'gt')))
    """
    hedges: list[str] = []
    qualifiers: list[str] = []

    def add(bucket: list[str], code: str) -> None:
        if code not in bucket:
            bucket.append(code)

    for m in _TOKENS.finditer(_outside_cases(raw)):
        tok = m.group()
        if tok[0] == "\\":
            word = tok[1:]
            if word in _HEDGE_COMMANDS:
                add(hedges, _HEDGE_COMMANDS[word])
            elif word in _QUALIFIER_COMMANDS:
                add(qualifiers, _QUALIFIER_COMMANDS[word])
        elif tok[0].isascii() and tok[0].isalpha():
            # Only short runs can be words of interest; skip long ones uncopied.
            if len(tok) <= 9:
                word = tok.lower()
                if word in _HEDGE_WORDS:
                    add(hedges, _HEDGE_WORDS[word])
                elif word in _QUALIFIER_WORDS:
                    add(qualifiers, word)
        elif tok in _HEDGE_CHARS:
            add(hedges, _HEDGE_CHARS[tok])
        elif tok in _QUALIFIER_CHARS:
            add(qualifiers, _QUALIFIER_CHARS[tok])
    return tuple(hedges), tuple(qualifiers)


def _comparison_key(s: str) -> str:
    key = _KEY_NOISE.sub("", s).rstrip(".,;")
    return _KEY_CONSTANT.sub("", key) or key


def _prose_hedges(ctx: _Context, cands: tuple[Candidate, ...]) -> list[tuple[str, int]]:
    """Hedges in the text around the markers (bounded windows only)."""
    text, found = ctx.text, []
    for c in cands:
        before = text[max(ctx.start, c.start - 12):c.start].rstrip(" \t\n$({")
        if before.endswith("\\(") or before.endswith("\\["):
            before = before[:-2].rstrip()
        m = re.search(r"(?:\\(pm|mp)|([\u00b1\u2213]))$", before)
        if m:
            found.append((m.group(1) or _HEDGE_CHARS[m.group(2)], c.index))
    for a, b in zip(cands, cands[1:], strict=False):
        if a.key is None or b.key is None or a.key == b.key:
            continue
        joiner = text[a.end:b.start]
        if _RESTATEMENT.search(joiner[:_WINDOW]) or _RESTATEMENT.search(joiner[-_WINDOW:]):
            continue
        short = _JOINER_NOISE.sub(" ", joiner[:_WINDOW * 4]).strip() \
            if len(joiner) <= _WINDOW * 4 else None
        lead = text[max(ctx.start, a.start - 20):a.start]
        if ((short is not None and len(short) <= _SHORT_JOINER
             and (_HEDGE_PROSE.search(short) or _PM_PROSE.search(short)))
                or _LEADING_OR.match(joiner[:_WINDOW])
                or (_EITHER.search(lead) and (_OR.search(joiner[:_WINDOW])
                                              or _OR.search(joiner[-_WINDOW:])))):
            found.append(("or_between_answers", b.index))
    if cands:
        last = cands[-1]
        tail = text[last.end:min(ctx.end, last.end + _WINDOW)]
        m = _LEADING_OR.match(tail)
        if m and _MATH_AFTER.search(tail, m.end()) and not _RESTATEMENT.search(tail):
            found.append(("or_after_answer", last.index))
    return found


def _unwrap_nested_boxes(value: str) -> str:
    for _ in range(_MAX_UNWRAP):
        if not value.startswith(("\\boxed", "\\fbox")):
            break
        spans, unclosed = _scan_boxes(value)
        if unclosed is not None or len(spans) != 1:
            break
        start, content_start, content_end, _ = spans[0]
        # Only a box that is the whole value: "\boxed{a} + 1" stays as it is.
        if start != 0 or value[content_end + 1:].strip():
            break
        value = value[content_start:content_end].strip()
    return value
