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
   ignored (the box is the answer). A boxed substitution (``u = x^2``,
   ``x = \sin\theta``: one lowercase letter other than ``y``, or a Greek
   letter, alone left of a single ``=``; status ``substitution``) is a step
   of the work, not a final answer: the choice is among the other
   candidates, and only when every candidate is one is a substitution
   chosen (and graded, as its right-hand side).
4. **Agreement** (``hedge="reject"``): all final candidates must agree.
   Each candidate's ``key`` is its graded text with spacing (whitespace,
   ``\,`` ``\;`` ``\!`` ``\quad`` ``\left`` ``\right`` ...), trailing
   ``.,;`` and a trailing ``+ C`` removed. Equal keys: no question
   (``agreement`` ``single``/``identical``). Different keys: ``agreement ==
   "differ"`` and :attr:`Extraction.needs_agreement_check` is true; the
   status stays OK because equality up to a constant is the checker's
   question: it must check every text in :attr:`Extraction.distinct_texts`.
   More than ``max_distinct_answers`` distinct keys is HEDGED
   (``hedged:too_many_answers``). Empty candidates and boxed substitutions
   carry no claim and are ignored unless chosen; under ``reject`` every
   other candidate must pass the checks below, not only the chosen one.
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

from .choose import extract_answer
from .flags import answer_flags
from .policy import (
    DEFAULT_POLICY,
    AnswerPolicy,
    BoxPolicy,
    Candidate,
    Extraction,
    ExtractionStatus,
)

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
