"""The decision: which candidate is the answer, and whether the response
hedges, qualifies or fails (see :mod:`rewards.check.extract` for the rules).
:func:`extract_answer` is the module's one entry point."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import strict_mode
from ..limits import ANSWER
from ..parse.equation import equation_rhs
from ..parse.names import GREEK_NAMES, GREEK_VARIANTS
from .flags import _HEDGE_CHARS, _comparison_key, answer_flags
from .markers import (
    _final_markers,
    _Marker,
    _scan_boxes,
    _scan_math,
    _scan_tags,
    _split_reasoning,
    _unwrap_nested_boxes,
)
from .policy import (
    DEFAULT_POLICY,
    SOURCE_ANSWER_TAG,
    SOURCE_BOXED,
    SOURCE_MATH_BLOCK,
    AnswerPolicy,
    BoxPolicy,
    Candidate,
    Extraction,
    ExtractionStatus,
    _coerce_policy,
)

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
# "u = x^2", "t = \tan(x/2)", "x = \sin\theta": one lowercase letter (not y,
# the name answers go by) or a Greek letter, alone left of a single "=".
_SUBSTITUTION = re.compile(
    r"\s*(?:[a-xz]|\\?(?:var)?(?:" + "|".join(sorted(GREEK_NAMES | set(GREEK_VARIANTS)))
    + r"))\s*=(?!=)")


def extract_answer(
    text: object,
    *,
    policy: AnswerPolicy | BoxPolicy | str = DEFAULT_POLICY,
    math_fallback: bool | None = None,
    max_chars: int = ANSWER.response_chars,
    max_answer_chars: int = ANSWER.answer_chars,
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
        # caller maps to CHECKER_ERROR (no gradient), never to a penalty; in
        # strict mode (the test suite) it raises, so the bug is seen.
        if strict_mode():
            raise
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
    # A boxed substitution is a step of the work, not a final answer: the
    # policy chooses among the others (among all, when every box is one).
    answers = [c for c in cands if c.status != "substitution"] or list(cands)
    first_start = answers[0].start if answers else None
    pick, failure = _choose(len(answers), first_start, unclosed, box_policy)
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
    chosen = answers[pick]
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

    steps = [c for c in cands if c.status == "substitution" and c is not chosen]
    judged = [c for c in cands if c.status != "empty" and c not in steps] if reject \
        else [chosen]
    for c in judged:
        if c.status == "too_long":
            return result(ExtractionStatus.TOO_LONG, f"final answer {c.index + 1} of {n} has "
                          f"more than {ctx.max_answer_chars} characters (hedge=reject "
                          f"checks every final answer)")
    live = [c for c in cands if c.status == "ok" or c is chosen]
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
    if steps:
        notes.append(f"{len(steps)} boxed substitution(s) not taken as final answers")
    if qualifiers:
        notes.append(f"qualifiers reported: {', '.join(qualifiers)}")
    return result(ExtractionStatus.OK, "; ".join([where, *notes]), value=chosen.text, **extra)


# A language tag after an opening code fence (```python).
_FENCE_LANGUAGE = re.compile(r"[A-Za-z0-9_+-]*[ \t]*\n")


def _unwrap_code(value: str) -> str:
    """The answer inside markdown code that is the whole of it (```...```
    or `...`): the markers are formatting, not part of the expression.
    Constant work beyond one slice."""
    for ticks in ("```", "``", "`"):
        if len(value) > 2 * len(ticks) and value.startswith(ticks) and value.endswith(ticks):
            inner = value[len(ticks):-len(ticks)]
            if ticks == "```":
                tag = _FENCE_LANGUAGE.match(inner)
                inner = inner[tag.end():] if tag else inner
            return inner.strip() if "`" not in inner else value
    return value


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
    else:
        raw = _unwrap_code(raw)
    if not raw:
        return make("empty", raw)
    hedges, qualifiers = answer_flags(raw)
    graded = equation_rhs(raw)
    if not graded:
        return make("empty", raw, hedges=hedges, qualifiers=qualifiers)
    status = "substitution" if _is_substitution(raw, graded) else "ok"
    return make(status, raw, graded, _comparison_key(graded), hedges=hedges,
                qualifiers=qualifiers)


def _is_substitution(raw: str, graded: str) -> bool:
    r"""``\boxed{u = x^2}``: a boxed step of the work (a substitution, a
    back-substitution ``x = \sin\theta``), not a claim about the integral.
    Models box these on the way to the answer; under ``hedge=reject`` they
    are not final answers the others must agree with."""
    match = _SUBSTITUTION.match(raw)
    return (match is not None and graded != raw
            and raw[match.end():].strip() == graded)



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

