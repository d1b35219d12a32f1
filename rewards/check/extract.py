r"""Find the final answer in an untrusted model completion.

The completion is adversarial text produced by a policy under RL pressure, so
this module is written as a parser for hostile input:

* every scan is a single forward pass (``re.search`` with ``pos`` over a
  one-character class, or fixed literals), so run time is linear in the input
  even for 100k nested braces or 10k boxes; there is no recursion and no regex
  that can backtrack over more than one whitespace run;
* oversized input is rejected by length before any scanning;
* :func:`extract_answer` never raises on model text; it reports what went
  wrong through :class:`ExtractionStatus`, whose values double as the verdict
  ``reason`` slugs in traces.

Sources, in priority order (the first kind that is present wins, even if it is
broken, because a started-but-broken answer is the model's mistake and must
not be papered over by a looser format):

1. ``\boxed{...}`` / ``\fbox{...}``;
2. ``<answer>...</answer>``;
3. only with ``math_fallback=True``: the last ``$...$``, ``$$...$$``,
   ``\(...\)`` or ``\[...\]`` block.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "BoxPolicy",
    "Extraction",
    "ExtractionStatus",
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


class BoxPolicy(str, Enum):
    """Which candidate to take when a response holds several boxes or tags."""

    FIRST = "first"
    LAST = "last"
    ONLY_IF_SINGLE = "only_if_single"


SOURCE_BOXED = "boxed"
SOURCE_ANSWER_TAG = "answer_tag"
SOURCE_MATH_BLOCK = "math_block"


@dataclass(frozen=True)
class Extraction:
    """Result of :func:`extract_answer`.

    ``n_matches`` counts the complete candidates of the source kind that
    decided the outcome (an unclosed one is not counted; ``detail`` says where
    it starts). ``chosen_index`` is set whenever a candidate was picked, also
    when it then turned out EMPTY or TOO_LONG, so traces show which one failed.
    """

    status: ExtractionStatus
    value: str | None
    n_matches: int
    chosen_index: int | None
    source: str | None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status is ExtractionStatus.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "value": self.value,
            "n_matches": self.n_matches,
            "chosen_index": self.chosen_index,
            "source": self.source,
            "detail": self.detail,
        }


# A candidate is (opener_start, content_start, content_end) in the scanned text.
_Span = tuple[int, int, int]

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

# \boxed{\boxed{x}} is unwrapped to x; the cap only matters for pathological
# input, and each round is linear in an answer already capped by length.
_MAX_UNWRAP = 8


def extract_answer(
    text: object,
    *,
    policy: BoxPolicy | str = BoxPolicy.LAST,
    math_fallback: bool = False,
    max_chars: int = 200_000,
    max_answer_chars: int = 5_000,
) -> Extraction:
    r"""Extract the final answer from a model completion.

    >>> extract_answer(r"so \boxed{\frac{x^2}{2} + C}").value == r"\frac{x^2}{2} + C"
    True
    >>> r = extract_answer(r"\boxed{1} then \boxed{2}", policy="first")
    >>> (r.status.value, r.value, r.n_matches, r.chosen_index, r.source)
    ('ok', '1', 2, 0, 'boxed')
    >>> extract_answer(r"\boxed{1} then \boxed{2}", policy="only_if_single").status.value
    'ambiguous'
    >>> extract_answer("<answer> x^3/3 </answer>").value
    'x^3/3'
    >>> extract_answer(r"\boxed{\frac{1}{2}").status.value
    'unbalanced'
    >>> extract_answer(r"It is $\sin x$.").status.value
    'no_answer'
    >>> extract_answer(r"It is $\sin x$.", math_fallback=True).value
    '\\sin x'

    Box arguments are matched with a brace counter; ``\{``, ``\}`` and ``\\``
    are text, as in TeX. Only the braced form ``\boxed{...}`` counts (spaces
    before the brace are fine); a bare ``\boxed x`` is not an answer, so the
    reward keeps teaching the unambiguous format. A box inside another box is
    not a separate candidate, and ``\boxed{\boxed{x}}`` yields ``x``.

    ``policy`` (a :class:`BoxPolicy` or its value) applies to boxes and to
    answer tags; the math fallback always takes the last block. The chosen
    value has NUL characters removed and surrounding whitespace stripped.

    Model text never makes this raise: ``None`` gives EMPTY, ``bytes`` are
    decoded as UTF-8 with replacement, any other non-string gives NO_ANSWER.
    An invalid ``policy`` is a configuration error and raises ``ValueError``.
    """
    chosen_policy = _coerce_policy(policy)
    try:
        return _extract(text, chosen_policy, math_fallback, max_chars, max_answer_chars)
    except Exception as exc:  # noqa: BLE001
        # A reward function that raises kills the training step for the whole
        # batch; a zero reward for one sample is the lesser harm. The detail
        # keeps the bug visible in traces.
        return Extraction(
            ExtractionStatus.NO_ANSWER, None, 0, None, None,
            f"internal error during extraction: {type(exc).__name__}",
        )


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


def _extract(
    text: object,
    policy: BoxPolicy,
    math_fallback: bool,
    max_chars: int,
    max_answer_chars: int,
) -> Extraction:
    if text is None:
        return Extraction(ExtractionStatus.EMPTY, None, 0, None, None, "input is None")
    if isinstance(text, (bytes, bytearray)):
        # UTF-8 needs at most 4 bytes per character, so anything longer cannot
        # decode to max_chars characters; refusing here avoids decoding megabytes.
        if len(text) > 4 * max_chars:
            return _too_long_input(len(text), max_chars, unit="bytes")
        text = bytes(text).decode("utf-8", errors="replace")
    elif isinstance(text, str):
        if type(text) is not str:
            # A str subclass may override find/startswith/len; scan a plain copy.
            text = str.__str__(text)
    else:
        return Extraction(
            ExtractionStatus.NO_ANSWER, None, 0, None, None,
            f"unsupported input type: {type(text).__name__}",
        )

    if len(text) > max_chars:
        return _too_long_input(len(text), max_chars, unit="characters")

    boxes, unclosed = _scan_boxes(text)
    if boxes or unclosed is not None:
        return _finish(text, SOURCE_BOXED, boxes, unclosed, policy, max_answer_chars)

    # A tag whose content holds a \boxed{} never reaches this point: the box
    # scan above already saw that box (or its unclosed opener) in the full
    # text, so "take the box inside the tag" falls out of the priority order.
    tags, unclosed = _scan_tags(text)
    if tags or unclosed is not None:
        return _finish(text, SOURCE_ANSWER_TAG, tags, unclosed, policy, max_answer_chars)

    if math_fallback:
        blocks, unclosed = _scan_math(text)
        if blocks or unclosed is not None:
            return _finish(
                text, SOURCE_MATH_BLOCK, blocks, unclosed, BoxPolicy.LAST, max_answer_chars
            )
        return Extraction(
            ExtractionStatus.NO_ANSWER, None, 0, None, None,
            "no \\boxed{}, <answer> tag or math block found",
        )
    return Extraction(
        ExtractionStatus.NO_ANSWER, None, 0, None, None,
        "no \\boxed{} or <answer> tag found",
    )


def _too_long_input(length: int, limit: int, *, unit: str) -> Extraction:
    return Extraction(
        ExtractionStatus.TOO_LONG, None, 0, None, None,
        f"input has {length} {unit}, limit is {limit} characters",
    )


def _scan_boxes(text: str) -> tuple[list[_Span], int | None]:
    """Return the outermost complete boxes and the start of the first unclosed one.

    Boxes closed while another box is still open are nested, never candidates:
    either the outer box closes later (and owns them) or it never closes, and
    then the unclosed outer box decides the outcome (see :func:`_choose`).
    """
    complete: list[_Span] = []
    # (opener_start, content_start, brace depth just outside the box)
    open_boxes: list[tuple[int, int, int]] = []
    depth = 0
    n = len(text)
    pos = 0
    search = _BOX_SPECIALS.search
    while True:
        m = search(text, pos)
        if m is None:
            break
        i = m.start()
        ch = text[i]
        if ch == "\\":
            word_end = _LETTERS.match(text, i + 1).end()
            if word_end == i + 1:
                # Control symbol (\{ \} \\ \, ...): the next character is text,
                # which is exactly what makes escaped braces not count.
                pos = i + 2
                continue
            # Length check first so a megabyte-long run of letters is not copied.
            if word_end - i - 1 in (4, 5) and text[i + 1:word_end] in _BOX_COMMANDS:
                j = _SPACES.match(text, word_end).end()
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
                        complete.append((start, content_start, i))
            pos = i + 1
    first_unclosed = open_boxes[0][0] if open_boxes else None
    return complete, first_unclosed


def _scan_tags(text: str) -> tuple[list[_Span], int | None]:
    """Return complete ``<answer>`` spans and the start of a trailing unclosed one."""
    spans: list[_Span] = []
    pos = 0
    while True:
        opener = _TAG_OPEN.search(text, pos)
        if opener is None:
            return spans, None
        closer = _TAG_CLOSE.search(text, opener.end())
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
        spans.append((opener.start(), opener.end(), closer.start()))
        pos = closer.end()


def _scan_math(text: str) -> tuple[list[_Span], int | None]:
    """Return complete inline/display math spans and the start of an unclosed one."""
    spans: list[_Span] = []
    mode: str | None = None
    open_at = content_start = 0
    pos = 0
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
                spans.append((open_at, content_start, i))
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
            spans.append((open_at, content_start, i))
            mode = None
            pos = i + 2
        elif mode == "$":
            # Close on one '$' only: "$a$$b$" is two inline formulas in TeX.
            spans.append((open_at, content_start, i))
            mode = None
            pos = i + 1
        else:
            # A lone '$' inside $$...$$ or \(...\) is malformed TeX; ignoring it
            # lets the proper closer still end the block.
            pos = i + 1
    return spans, (open_at if mode is not None else None)


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


def _finish(
    text: str, source: str, spans: list[_Span], unclosed: int | None,
    policy: BoxPolicy, max_answer_chars: int,
) -> Extraction:
    n = len(spans)
    first_start = spans[0][0] if spans else None
    index, failure = _choose(n, first_start, unclosed, policy)
    label = _SOURCE_LABELS[source]
    if failure is ExtractionStatus.UNBALANCED:
        return Extraction(
            failure, None, n, None, source,
            f"unclosed {label} starting at offset {unclosed} "
            f"({n} complete, policy={policy.value})",
        )
    if failure is ExtractionStatus.AMBIGUOUS:
        return Extraction(
            failure, None, n, None, source,
            f"{n} {label} candidates but policy=only_if_single",
        )
    assert index is not None
    _, content_start, content_end = spans[index]
    # Strip before the length check so padding alone cannot make an answer
    # TOO_LONG; strip() is linear, and the input is already length-capped.
    value = text[content_start:content_end].replace("\x00", "").strip()
    where = f"{label} {index + 1} of {n} (policy={policy.value})"
    if len(value) > max_answer_chars:
        return Extraction(
            ExtractionStatus.TOO_LONG, None, n, index, source,
            f"{where}: answer has {len(value)} characters, limit is {max_answer_chars}",
        )
    if source == SOURCE_BOXED:
        value = _unwrap_nested_boxes(value)
    if not value:
        return Extraction(ExtractionStatus.EMPTY, None, n, index, source, f"{where} is empty")
    return Extraction(ExtractionStatus.OK, value, n, index, source, where)


_SOURCE_LABELS = {
    SOURCE_BOXED: "\\boxed{}",
    SOURCE_ANSWER_TAG: "<answer> tag",
    SOURCE_MATH_BLOCK: "math block",
}


def _unwrap_nested_boxes(value: str) -> str:
    for _ in range(_MAX_UNWRAP):
        if not value.startswith(("\\boxed", "\\fbox")):
            break
        spans, unclosed = _scan_boxes(value)
        if unclosed is not None or len(spans) != 1:
            break
        start, content_start, content_end = spans[0]
        # Only a box that is the whole value: "\boxed{a} + 1" stays as it is.
        if start != 0 or value[content_end + 1:].strip():
            break
        value = value[content_start:content_end].strip()
    return value
