"""Behaviour of rewards.extract (boxes and fboxes, the box policies, unclosed and empty boxes): part of the extraction tests,
split by section from the former tests/test_extract.py."""
from __future__ import annotations

import doctest

import pytest

from rewards.check.extract import (
    BoxPolicy,
    ExtractionStatus,
    extract_answer,
)
from rewards.check.extract import choose as extract_module

S = ExtractionStatus


def test_doctests_in_module_pass():
    failures, tried = doctest.testmod(extract_module)
    assert tried > 0
    assert failures == 0


# --- \boxed{} and \fbox{} -------------------------------------------------


def test_simple_box():
    r = extract_answer(r"so \boxed{\frac{x^2}{2} + C}")
    assert r.status is S.OK
    assert r.value == r"\frac{x^2}{2} + C"
    assert (r.n_matches, r.chosen_index, r.source) == (1, 0, "boxed")


def test_nested_braces():
    r = extract_answer(r"The antiderivative is \boxed{\frac{1}{\sqrt{x}}}. Done.")
    assert r.status is S.OK
    assert r.value == r"\frac{1}{\sqrt{x}}"


def test_deeply_nested_braces_ok():
    inner = "{" * 500 + "x" + "}" * 500
    r = extract_answer(r"\boxed{" + inner + "}")
    assert r.status is S.OK
    assert r.value == inner


def test_fbox():
    r = extract_answer(r"answer: \fbox{2x + C}")
    assert r.status is S.OK
    assert r.value == "2x + C"
    assert r.source == "boxed"


def test_box_and_fbox_are_the_same_kind():
    r = extract_answer(r"\fbox{a} \boxed{b}", policy="first")
    assert (r.value, r.n_matches, r.chosen_index) == ("a", 2, 0)


@pytest.mark.parametrize("sep", [" ", "  ", "\t", "\n", " \n "])
def test_whitespace_before_brace(sep):
    r = extract_answer(r"\boxed" + sep + "{x^2}")
    assert r.status is S.OK
    assert r.value == "x^2"


def test_whitespace_inside_box_is_stripped():
    assert extract_answer("\\boxed{ \n  x + 1 \t }").value == "x + 1"


def test_escaped_braces_are_text():
    r = extract_answer(r"\boxed{\{1, 2\}}")
    assert r.status is S.OK
    assert r.value == r"\{1, 2\}"


def test_escaped_closing_brace_does_not_close_box():
    r = extract_answer(r"\boxed{a \} b} tail")
    assert r.value == r"a \} b"


def test_left_brace_delimiter_inside_box():
    r = extract_answer(r"\boxed{\left\{ x \right.}")
    assert r.value == r"\left\{ x \right."


def test_escaped_backslash_before_closing_brace():
    # \\ is a TeX line break, so the following } really closes the box.
    r = extract_answer(r"\boxed{a \\} b}")
    assert r.status is S.OK
    assert r.value == "a \\\\"


def test_only_escaped_brace_after_boxed_is_no_box():
    r = extract_answer(r"\boxed\{x\}")
    assert r.status is S.NO_ANSWER


@pytest.mark.parametrize(
    "text",
    [
        r"\setlength{\fboxsep}{0pt} nothing boxed here",
        r"\boxedfoo{x}",
        r"\boxed x",
        r"the final answer goes in \boxed",
        r"\\boxed{x}",  # escaped backslash, then the plain word "boxed"
    ],
)
def test_not_a_box(text):
    assert extract_answer(text).status is S.NO_ANSWER


def test_stray_braces_in_prose_do_not_confuse():
    r = extract_answer(r"} } the set {1, 2 and then \boxed{x} and { more")
    assert r.status is S.OK
    assert r.value == "x"


def test_nested_box_is_not_a_separate_candidate_and_is_unwrapped():
    r = extract_answer(r"\boxed{\boxed{x + 1}}")
    assert r.status is S.OK
    assert r.value == "x + 1"
    assert (r.n_matches, r.chosen_index) == (1, 0)


def test_box_inside_box_with_other_content_is_kept():
    r = extract_answer(r"\boxed{\boxed{a} + 1}")
    assert r.value == r"\boxed{a} + 1"
    assert r.n_matches == 1


def test_box_with_trailing_text_keeps_text_out():
    r = extract_answer(r"\boxed{x}.\n\nThat is all.")
    assert r.value == "x"


# --- policies ---------------------------------------------------------------

THREE = r"first \boxed{a} second \boxed{b} third \boxed{c}"


@pytest.mark.parametrize(
    ("policy", "value", "index"),
    [
        (BoxPolicy.FIRST, "a", 0),
        (BoxPolicy.LAST, "c", 2),
        ("first", "a", 0),
        ("last", "c", 2),
        ("LAST", "c", 2),
        (" First ", "a", 0),
    ],
)
def test_policy_choice(policy, value, index):
    r = extract_answer(THREE, policy=policy)
    assert r.status is S.OK
    assert (r.value, r.n_matches, r.chosen_index) == (value, 3, index)


def test_default_policy_is_last():
    assert extract_answer(THREE).value == "c"


def test_only_if_single_ambiguous():
    r = extract_answer(THREE, policy=BoxPolicy.ONLY_IF_SINGLE)
    assert r.status is S.AMBIGUOUS
    assert r.value is None
    assert (r.n_matches, r.chosen_index, r.source) == (3, None, "boxed")


def test_only_if_single_with_one_box():
    r = extract_answer(r"\boxed{x}", policy="only_if_single")
    assert r.status is S.OK
    assert (r.value, r.n_matches, r.chosen_index) == ("x", 1, 0)


@pytest.mark.parametrize("bad", ["middle", "", 3, None])
def test_invalid_policy_is_a_config_error(bad):
    with pytest.raises(ValueError):
        extract_answer(r"\boxed{x}", policy=bad)


# --- unclosed boxes -----------------------------------------------------------


def test_unclosed_box():
    r = extract_answer(r"\boxed{\frac{1}{2}")
    assert r.status is S.UNBALANCED
    assert (r.value, r.n_matches, r.chosen_index, r.source) == (None, 0, None, "boxed")


def test_unclosed_box_after_complete_one():
    text = r"draft \boxed{a} final \boxed{b"
    last = extract_answer(text, policy="last")
    assert last.status is S.UNBALANCED
    assert last.n_matches == 1
    first = extract_answer(text, policy="first")
    assert first.status is S.OK
    assert first.value == "a"
    single = extract_answer(text, policy="only_if_single")
    assert single.status is S.UNBALANCED


def test_unclosed_box_containing_complete_one():
    # The outer box never closes, so the inner one is part of a broken answer.
    text = r"\boxed{ oops \boxed{x}"
    for policy in BoxPolicy:
        r = extract_answer(text, policy=policy)
        assert r.status is S.UNBALANCED, policy
        assert r.n_matches == 0


def test_unclosed_box_beats_answer_tags():
    r = extract_answer(r"<answer>x</answer> \boxed{y")
    assert r.status is S.UNBALANCED
    assert r.source == "boxed"


# --- empty ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [r"\boxed{}", r"\boxed{   }", "\\boxed{\n\t}", "\\boxed{\x00\x00}", r"\boxed{\boxed{ }}"],
)
def test_empty_box(text):
    r = extract_answer(text)
    assert r.status is S.EMPTY
    assert r.value is None
    assert (r.n_matches, r.chosen_index) == (1, 0)


def test_last_box_empty_is_empty_even_if_earlier_is_not():
    r = extract_answer(r"\boxed{x} and finally \boxed{}")
    assert r.status is S.EMPTY
    assert (r.n_matches, r.chosen_index) == (2, 1)
    assert extract_answer(r"\boxed{x} and finally \boxed{}", policy="first").value == "x"
