"""Behaviour of rewards.extract (answer tags, the math fallback, no answer and lengths): part of the extraction tests,
split by section from the former tests/test_extract.py."""
from __future__ import annotations

import pytest

from rewards.check.extract import (
    BoxPolicy,
    ExtractionStatus,
    extract_answer,
)

S = ExtractionStatus


# --- answer tags -------------------------------------------------------------


def test_answer_tag():
    r = extract_answer("Reasoning...\n<answer>\n  x^3/3 + C\n</answer>")
    assert r.status is S.OK
    assert r.value == "x^3/3 + C"
    assert (r.n_matches, r.chosen_index, r.source) == (1, 0, "answer_tag")


@pytest.mark.parametrize(
    "text",
    [
        "<ANSWER>x</ANSWER>",
        "<Answer>x</answer>",
        "< answer >x</ answer >",
        "<answer\n>x< / answer\n>",
        "<\tanswer>x<\t/answer>",
    ],
)
def test_answer_tag_case_and_whitespace(text):
    r = extract_answer(text)
    assert r.status is S.OK
    assert r.value == "x"


def test_answer_tag_policies():
    text = "<answer>a</answer> <answer>b</answer>"
    assert extract_answer(text, policy="first").value == "a"
    last = extract_answer(text, policy="last")
    assert (last.value, last.n_matches, last.chosen_index) == ("b", 2, 1)
    amb = extract_answer(text, policy="only_if_single")
    assert amb.status is S.AMBIGUOUS
    assert amb.source == "answer_tag"


def test_answer_tag_with_inner_box_takes_box_content():
    r = extract_answer(r"<answer>The answer is \boxed{\ln|x| + C}.</answer>")
    assert r.status is S.OK
    assert r.value == r"\ln|x| + C"
    # Boxes have priority, so the box inside the tag is what decides.
    assert r.source == "boxed"


def test_box_and_answer_tag_are_both_final_candidates():
    # Changed by the final-answer policy: boxes no longer outrank tags; both
    # are markers, box_policy picks among them in text order, and the checker
    # must check both because they differ.
    r = extract_answer(r"\boxed{a} <answer>b</answer>")
    assert r.status is S.OK
    assert (r.value, r.source, r.n_matches, r.chosen_index) == ("b", "answer_tag", 2, 1)
    assert [c.text for c in r.candidates] == ["a", "b"]
    assert r.agreement == "differ" and r.needs_agreement_check
    r = extract_answer(r"<answer>b</answer> \boxed{a}", policy="first")
    assert (r.value, r.source) == ("b", "answer_tag")


def test_unclosed_answer_tag():
    r = extract_answer("<answer>x^2")
    assert r.status is S.UNBALANCED
    assert r.source == "answer_tag"


def test_unclosed_answer_tag_after_complete_one():
    text = "<answer>a</answer> <answer>b"
    assert extract_answer(text, policy="last").status is S.UNBALANCED
    assert extract_answer(text, policy="first").value == "a"
    assert extract_answer(text, policy="only_if_single").status is S.UNBALANCED


def test_stray_closing_tag_is_ignored():
    assert extract_answer("</answer> nothing").status is S.NO_ANSWER
    assert extract_answer("</answer> <answer>x</answer>").value == "x"


def test_repeated_opener_pairs_innermost():
    r = extract_answer("<answer> draft <answer> x </answer>")
    assert r.status is S.OK
    assert r.value == "x"
    assert r.n_matches == 1


def test_empty_answer_tag():
    r = extract_answer("<answer>  \n </answer>")
    assert r.status is S.EMPTY
    assert r.source == "answer_tag"


def test_tag_like_text_that_is_not_a_tag():
    assert extract_answer("<answers>x</answers>").status is S.NO_ANSWER
    assert extract_answer("<answer x=1>x</answer>").status is S.NO_ANSWER


# --- math fallback -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"The result is $x^2 + C$.", "x^2 + C"),
        (r"The result is $$\frac{x^3}{3}$$", r"\frac{x^3}{3}"),
        (r"The result is \(\sin x\) indeed", r"\sin x"),
        (r"The result is \[ e^x + C \]", "e^x + C"),
    ],
)
def test_math_fallback_delimiters(text, value):
    off = extract_answer(text)
    assert off.status is S.NO_ANSWER
    assert off.source is None
    on = extract_answer(text, math_fallback=True)
    assert on.status is S.OK
    assert on.value == value
    assert on.source == "math_block"


def test_math_fallback_takes_last_block_regardless_of_policy():
    text = r"Integrate $x$: we get \(a\), $$b$$ and finally \[ \frac{x^2}{2} \]."
    for policy in BoxPolicy:
        r = extract_answer(text, math_fallback=True, policy=policy)
        assert r.status is S.OK
        assert r.value == r"\frac{x^2}{2}"
        assert (r.n_matches, r.chosen_index) == (4, 3)


def test_math_adjacent_inline_formulas():
    r = extract_answer("$a$$b$", math_fallback=True)
    assert (r.value, r.n_matches) == ("b", 2)


def test_math_escaped_dollar_is_text():
    r = extract_answer(r"costs \$5, answer $x^2$", math_fallback=True)
    assert r.value == "x^2"
    assert r.n_matches == 1


def test_math_delimiters_inside_other_block_are_text():
    r = extract_answer(r"\( a $ b \)", math_fallback=True)
    assert r.value == "a $ b"
    r = extract_answer(r"$$ a \( b $$", math_fallback=True)
    assert r.value == r"a \( b"


def test_math_unclosed_block_is_unbalanced():
    r = extract_answer(r"first $x$ then $\frac{x^2", math_fallback=True)
    assert r.status is S.UNBALANCED
    assert r.source == "math_block"
    assert r.n_matches == 1


def test_math_empty_block():
    r = extract_answer("$$ $$", math_fallback=True)
    assert r.status is S.EMPTY


def test_math_fallback_not_used_when_box_or_tag_present():
    r = extract_answer(r"$a$ \boxed{b} $c$", math_fallback=True)
    assert (r.value, r.source) == ("b", "boxed")
    r = extract_answer(r"$a$ <answer>b</answer> $c$", math_fallback=True)
    assert (r.value, r.source) == ("b", "answer_tag")


def test_math_fallback_nothing_found():
    r = extract_answer("no math at all", math_fallback=True)
    assert r.status is S.NO_ANSWER


# --- no answer / lengths ---------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "The answer is x^2.", "boxed{x}"])
def test_no_answer(text):
    r = extract_answer(text)
    assert r.status is S.NO_ANSWER
    assert (r.value, r.n_matches, r.chosen_index, r.source) == (None, 0, None, None)
    assert r.detail


def test_input_too_long_2mb():
    text = r"\boxed{x}" + "a" * 2_000_000
    r = extract_answer(text)
    assert r.status is S.TOO_LONG
    assert (r.value, r.n_matches, r.source) == (None, 0, None)


def test_max_chars_boundary():
    text = r"\boxed{x}"
    assert extract_answer(text, max_chars=len(text)).status is S.OK
    assert extract_answer(text, max_chars=len(text) - 1).status is S.TOO_LONG


def test_answer_too_long():
    r = extract_answer(r"\boxed{" + "x" * 5_001 + "}")
    assert r.status is S.TOO_LONG
    assert r.value is None
    assert (r.n_matches, r.chosen_index, r.source) == (1, 0, "boxed")
    assert extract_answer(r"\boxed{" + "x" * 5_000 + "}").status is S.OK


def test_answer_length_measured_after_stripping():
    r = extract_answer(r"\boxed{" + " " * 100 + "x" + " " * 100 + "}", max_answer_chars=1)
    assert r.status is S.OK
    assert r.value == "x"


def test_answer_tag_too_long():
    r = extract_answer("<answer>" + "y" * 50 + "</answer>", max_answer_chars=10)
    assert r.status is S.TOO_LONG
    assert r.source == "answer_tag"
