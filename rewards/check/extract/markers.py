"""Where the final answers are: the reasoning split, then every outermost
box, ``<answer>`` tag and (for the math fallback) math block, each in one
forward scan of the text (see :mod:`rewards.check.extract` for the rules)."""
from __future__ import annotations

import re

from ..limits import ANSWER
from .policy import SOURCE_ANSWER_TAG, SOURCE_BOXED

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
    unclosed outer box decides the outcome (see :func:`.choose._choose`).
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



def _unwrap_nested_boxes(value: str) -> str:
    for _ in range(ANSWER.unwrap_depth):
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
