"""Behaviour of rewards.extract on well-formed, malformed and hostile completions."""
from __future__ import annotations

import collections
import dataclasses
import doctest
import json
import random

import pytest

from rewards import Verdict, check_antiderivative
from rewards.check.extract import (
    DEFAULT_POLICY,
    AnswerPolicy,
    BoxPolicy,
    Candidate,
    Extraction,
    ExtractionStatus,
    extract_answer,
)
from rewards.check.extract import choose as extract_module
from rewards.check.parse.equation import equation_rhs

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


# --- input types -----------------------------------------------------------------


def test_none_is_empty():
    r = extract_answer(None)
    assert r.status is S.EMPTY
    assert (r.value, r.n_matches, r.chosen_index, r.source) == (None, 0, None, None)


def test_bytes_are_decoded():
    r = extract_answer(rb"\boxed{\alpha x}")
    assert r.status is S.OK
    assert r.value == r"\alpha x"
    assert extract_answer(bytearray(b"<answer>z</answer>")).value == "z"


def test_invalid_utf8_bytes_do_not_raise():
    r = extract_answer(b"\\boxed{\xff\xfe x}")
    assert r.status is S.OK
    assert r.value == "\ufffd\ufffd x"


def test_huge_bytes_are_too_long_before_decoding():
    r = extract_answer(b"a" * 2_000_000)
    assert r.status is S.TOO_LONG


def test_bytes_that_decode_too_long():
    r = extract_answer(b"a" * 300, max_chars=100)
    assert r.status is S.TOO_LONG


@pytest.mark.parametrize("bad", [["\\boxed{x}"], 42, 3.5, {"a": 1}, object(), memoryview(b"x")])
def test_unsupported_types(bad):
    r = extract_answer(bad)
    assert r.status is S.NO_ANSWER
    assert "unsupported input type" in r.detail


def test_hostile_str_subclass():
    class Evil(str):
        def find(self, *a, **k):
            raise RuntimeError("boom")

        def __len__(self):
            return 0

        def startswith(self, *a, **k):
            raise RuntimeError("boom")

    r = extract_answer(Evil(r"\boxed{x}"))
    assert r.status is S.OK
    assert r.value == "x"
    assert type(r.value) is str


# --- hostile inputs -----------------------------------------------------------------


def test_100k_open_braces_after_boxed():
    r = extract_answer(r"\boxed" + "{" * 100_000)
    assert r.status is S.UNBALANCED


def test_100k_nested_unclosed_boxes():
    r = extract_answer(r"\boxed{" * 25_000)
    assert r.status is S.UNBALANCED


def test_deeply_nested_closed_boxes():
    depth = 20_000
    text = r"\boxed{" * depth + "x" + "}" * depth
    r = extract_answer(text)
    assert r.status is S.TOO_LONG
    assert r.n_matches == 1
    # Unwrapping is capped, so a big enough limit returns a still-wrapped value.
    r = extract_answer(text, max_answer_chars=10**6)
    assert r.status is S.OK
    assert r.value.startswith(r"\boxed{")


def test_100k_closing_braces():
    r = extract_answer("}" * 100_000 + r"\boxed{x}" + "}" * 90_000)
    assert r.value == "x"


def test_10k_boxes_picks_last():
    text = "".join(rf"\boxed{{{i}}} " for i in range(10_000))
    # Changed by the final-answer policy: 10k different final answers are a
    # hedge under the default (hedge="reject"); hedge="pick" keeps the old choice.
    r = extract_answer(text)
    assert r.status is S.HEDGED and r.reason == "hedged:too_many_answers"
    assert (r.n_matches, r.chosen_index, r.value) == (10_000, 9_999, None)
    pick = AnswerPolicy(hedge="pick")
    r = extract_answer(text, policy=pick)
    assert r.status is S.OK
    assert r.value == "9999"
    assert (r.n_matches, r.chosen_index) == (10_000, 9_999)
    first = extract_answer(text, policy=pick.replace(box_policy="first"))
    assert (first.value, first.chosen_index) == ("0", 0)
    assert extract_answer(text, policy="only_if_single").status is S.AMBIGUOUS


def test_many_unclosed_answer_tags():
    r = extract_answer("<answer>" * 20_000)
    assert r.status is S.UNBALANCED


def test_many_openers_then_one_closer():
    r = extract_answer("<answer>" * 20_000 + "x</answer>")
    assert r.value == "x"


def test_angle_brackets_with_whitespace_runs():
    r = extract_answer(("<" + " " * 60) * 3_000 + "< / " + " " * 1000)
    assert r.status is S.NO_ANSWER


def test_many_backslashes_and_dollars():
    assert extract_answer("\\" * 150_001).status is S.NO_ANSWER
    assert extract_answer("\\" * 150_001, math_fallback=True).status is S.NO_ANSWER
    r = extract_answer("$" * 150_001, math_fallback=True)
    assert r.status is S.UNBALANCED


def test_long_control_word():
    assert extract_answer("\\" + "a" * 190_000 + r"\boxed{y}").value == "y"


def test_nul_bytes_stripped_from_value():
    r = extract_answer("\x00\\boxed{x\x00^2\x00}\x00")
    assert r.status is S.OK
    assert r.value == "x^2"
    assert "\x00" not in r.value


def test_nul_inside_command_name_breaks_it():
    assert extract_answer("\\box\x00ed{x}").status is S.NO_ANSWER


def test_control_characters():
    ctrl = "".join(chr(c) for c in range(1, 32))
    r = extract_answer(ctrl + r"\boxed{" + "x\x1b[31m" + "}" + ctrl)
    assert r.status is S.OK
    assert r.value == "x\x1b[31m"


def test_unicode():
    # Changed by the final-answer policy: the graded text is the right-hand side.
    r = extract_answer("答案是 \\boxed{∫ x² dx = x³/3 + C 🙂} ✓")
    assert r.value == "x³/3 + C 🙂"
    assert r.chosen.raw == "∫ x² dx = x³/3 + C 🙂"
    r = extract_answer("<answer>\u200b ½x² \u200b</answer>")
    assert r.status is S.OK
    assert r.value == "\u200b ½x² \u200b"


def test_lone_surrogates_do_not_raise():
    r = extract_answer("\\boxed{\ud800x\udfff}")
    assert r.status is S.OK
    assert r.value == "\ud800x\udfff"


def test_random_fuzz_never_raises():
    alphabet = ["\\boxed", "\\fbox", "{", "}", "\\", "\\{", "\\}", "$", "$$", "\\(",
                "\\)", "\\[", "\\]", "<answer>", "</answer>", "< ANSWER >", " ", "x",
                "\x00", "\n", "é", "\\fboxsep", "<think>", "</think>", " or ", "either",
                "\\pm", "±", "=", ",", "\\text{where }", "\\begin{cases}", "\\end{cases}",
                "\\int", ">", "\\neq", "+ C", "dx"]
    rng = random.Random(1234)
    seen: collections.Counter = collections.Counter()
    for _ in range(2_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for box_policy in BoxPolicy:
            # Half the runs ignore think tags and hedges, so the OK paths get
            # exercised as often as the refusals.
            policy = AnswerPolicy(box_policy=box_policy,
                                  reasoning=rng.choice(["grade_after", "ignore_tags"]),
                                  hedge=rng.choice(["reject", "pick"]),
                                  qualifiers=rng.choice(["reject", "report"]))
            r = extract_answer(text, policy=policy, math_fallback=rng.random() < 0.5,
                               max_answer_chars=30)
            seen[r.status] += 1
            assert isinstance(r, Extraction)
            assert isinstance(r.status, ExtractionStatus)
            # The internal-error net must never be what kept this from raising.
            assert r.status is not S.INTERNAL_ERROR, (text, r.detail)
            json.dumps(r.to_dict())
            r.describe()
            assert r.reason.split(":")[0] == r.status.value
            if r.status is S.OK:
                assert r.value and r.value == r.value.strip()
                assert "\x00" not in r.value
                assert len(r.value) <= 30
                assert r.chosen_index is not None
                assert 0 <= r.chosen_index < r.n_matches
                assert r.chosen is not None and r.chosen.text == r.value
                assert r.distinct_texts[0] == r.value
            else:
                assert r.value is None
            if r.status in (S.AMBIGUOUS, S.UNBALANCED, S.NO_ANSWER):
                assert r.chosen_index is None
            for c in r.candidates:
                assert (c.text is not None) == (c.status == "ok")
    # The alphabet reaches every model-caused status.
    assert set(seen) == set(ExtractionStatus) - {S.INTERNAL_ERROR}, seen


# --- result object ------------------------------------------------------------------


def test_status_values_are_stable_slugs():
    assert {s.value for s in ExtractionStatus} == {
        "ok", "no_answer", "empty", "unbalanced", "too_long", "ambiguous",
        "hedged", "qualified_answer", "extraction_error",
    }
    assert {p.value for p in BoxPolicy} == {"first", "last", "only_if_single"}
    assert ExtractionStatus.OK == "ok"


def test_to_dict_is_json_serializable():
    for text in [r"\boxed{x}", r"\boxed{", None, "<answer></answer>", "plain", THREE]:
        r = extract_answer(text, policy="only_if_single")
        d = r.to_dict()
        # Changed: the policy, reason and candidates are part of the record now.
        assert set(d) == {"status", "reason", "value", "n_matches", "chosen_index", "source",
                          "detail", "agreement", "hedges", "qualifiers", "n_candidates",
                          "candidates", "policy", "reasoning", "graded_from"}
        assert isinstance(d["status"], str)
        assert json.loads(json.dumps(d)) == d


def test_to_dict_values():
    d = extract_answer(r"\boxed{a}\boxed{b}").to_dict()
    assert d["status"] == "ok"
    assert d["value"] == "b"
    assert (d["n_matches"], d["chosen_index"], d["source"]) == (2, 1, "boxed")


def test_extraction_is_frozen():
    r = extract_answer(r"\boxed{x}")
    assert r.ok
    assert not extract_answer("").ok
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = "y"  # type: ignore[misc]


# --- final-answer policy: a table of model-style responses ----------------------
#
# (id, response, expected reason, expected value, expected candidate texts).
# The reason is ``status`` or ``status:code``; ``value`` is None unless OK;
# ``candidates`` lists the graded text of every final candidate in text order
# (None: not checked). Responses are invented for these tests.

H, Q, NA = S.HEDGED, S.QUALIFIED, S.NO_ANSWER

POLICY_TABLE = [
    # -- hedges between answers --
    ("either_or_boxes",
     r"Integrating gives either \boxed{-\cos x + C} or \boxed{\cos x + C}, depending on the sign.",
     "hedged:or_between_answers", None, [r"-\cos x + C", r"\cos x + C"]),
    ("or_between_inline_boxes",
     r"So the antiderivative is $\boxed{\frac{e^{2x}}{2} + C}$ or $\boxed{2e^{2x} + C}$.",
     "hedged:or_between_answers", None, None),
    ("pm_between_boxes", r"We get \boxed{\sin x} \pm \boxed{\cos x}.", "hedged:pm", None, None),
    ("either_long_or",
     r"It is either \boxed{\ln x} (from the first substitution we tried) or, from the "
     r"second one, \boxed{\ln 2x}.",
     "hedged:or_between_answers", None, None),
    ("or_then_unboxed_math", r"The answer is $\boxed{\frac{x^3}{3}}$, or $x^3$ if you prefer.",
     "hedged:or_after_answer", None, [r"\frac{x^3}{3}"]),
    ("too_many_answers", " ".join(rf"\boxed{{x^{k}}}" for k in range(2, 8)),
     "hedged:too_many_answers", None, None),
    # -- restatements and prose that are not hedges --
    ("two_different_bare_boxes",
     r"First attempt: \boxed{\ln(x+1) + C}." "\n\n" r"After checking: \boxed{\ln(x-1) + C}.",
     "ok", r"\ln(x-1) + C", [r"\ln(x+1) + C", r"\ln(x-1) + C"]),
    ("same_answer_twice_spacing_and_constant",
     r"\boxed{\frac{x^4}{4}+C} ... so, once more, \boxed{ \frac{x^4}{4} \, }",
     "ok", r"\frac{x^4}{4} \,", [r"\frac{x^4}{4}+C", r"\frac{x^4}{4} \,"]),
    ("or_equivalently",
     r"\boxed{\sin^2 x + C} or equivalently \boxed{-\frac{1}{2}\cos 2x + C}",
     "ok", r"-\frac{1}{2}\cos 2x + C", None),
    ("or_in_prose_before_single_box",
     r"We can substitute u = 2x or integrate by parts; either way, \boxed{\frac{1}{2}e^{2x} + C}.",
     "ok", r"\frac{1}{2}e^{2x} + C", [r"\frac{1}{2}e^{2x} + C"]),
    ("or_in_prose_after_single_box",
     r"\boxed{\frac{x^2}{2} + C}. You could also check this by differentiating, or by a table.",
     "ok", r"\frac{x^2}{2} + C", None),
    ("either_way_is_prose",
     r"Either way, \boxed{x^2/2 + C}. As a fraction: \boxed{\frac{x^2}{2} + C}.",
     "ok", r"\frac{x^2}{2} + C", [r"x^2/2 + C", r"\frac{x^2}{2} + C"]),
    ("neither_is_not_either",
     r"Neither \boxed{x} nor anything else: final \boxed{x + C}.", "ok", "x + C", None),
    # -- hedges inside one answer --
    ("text_or_in_box", r"\boxed{\arctan x + C \text{ or } -\arctan x + C}", "hedged:or", None, None),
    ("bare_or_in_box", r"\boxed{x^2 or -x^2}", "hedged:or", None, None),
    ("either_in_box", r"\boxed{\text{either } \ln x \text{ or } -\ln x}", "hedged:either", None,
     None),
    ("lor_in_box", r"\boxed{e^x \lor e^{-x}}", "hedged:or", None, None),
    ("pm_in_box", r"Thus \boxed{\pm\sqrt{1 - x^2} + C}.", "hedged:pm", None, None),
    ("unicode_pm_in_box", "Thus \\boxed{±\\sin x + C}.", "hedged:pm", None, None),
    ("mp_in_box", r"\boxed{\mp \cos x + C}", "hedged:mp", None, None),
    ("pm_before_box", r"The antiderivative is $\pm\boxed{\cos x + C}$.", "hedged:pm", None, None),
    ("or_in_answer_tag", "<answer>sin(2*x)/2 + C or cos(2*x) + C</answer>", "hedged:or", None,
     None),
    ("hedge_in_an_earlier_box",
     r"\boxed{x \text{ or } -x} hmm, let me settle: \boxed{x}", "hedged:or", None, None),
    # -- reasoning blocks --
    ("box_only_in_think",
     "<think>Parts: \\boxed{x\\ln x - x}. Looks right.</think>\nThe antiderivative is x ln x - x + C.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("think_box_then_different_text_answer",
     r"<think>Maybe \boxed{\sin x + C}.</think> The antiderivative is $-\cos x + C$.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("think_box_then_answer_tag",
     r"<think>First guess \boxed{\frac{1}{x}}; no, that is the integrand.</think>"
     r"<answer>\ln|x| + C</answer>",
     "ok", r"\ln|x| + C", [r"\ln|x| + C"]),
    ("think_box_then_final_box",
     r"<think>Try \boxed{e^x}. Differentiate: wrong.</think> Final answer: \boxed{e^{x}(x-1) + C}",
     "ok", r"e^{x}(x-1) + C", [r"e^{x}(x-1) + C"]),
    ("unclosed_think_with_box", r"<think>Let me try \boxed{\tan x} and then verify",
     "no_answer:unclosed_reasoning", None, []),
    ("unclosed_think_empty", "<think>", "no_answer:unclosed_reasoning", None, []),
    ("multiple_think_blocks_final_box",
     r"<think>sub u = x^2</think> so far \boxed{u} <think>back-substitute</think>"
     r" \boxed{\frac{1}{2}\sin(x^2) + C}",
     "ok", r"\frac{1}{2}\sin(x^2) + C", [r"\frac{1}{2}\sin(x^2) + C"]),
    ("box_between_think_blocks_only",
     r"<think>a</think> \boxed{x^2} <think>that was wrong</think> Hmm.",
     "no_answer:answer_only_in_reasoning", None, []),
    ("new_think_after_final_answer",
     r"<think>a</think> \boxed{x^2} <think>wait, let me redo", "no_answer:unclosed_reasoning",
     None, []),
    ("template_opened_think", "Working it out...\n</think>\n\n\\boxed{\\sinh x + C}", "ok",
     r"\sinh x + C", None),
    ("think_tags_case_and_spaces",
     r"< THINK >guess \boxed{1}</ think > \boxed{\cosh x + C}", "ok", r"\cosh x + C", None),
    ("think_then_nothing", "<think>hmm</think> I am not sure.", "no_answer", None, []),
    ("answer_tag_in_think_only",
     "<think><answer>x^2</answer></think>", "no_answer:answer_only_in_reasoning", None, []),
    # -- qualifiers --
    ("where_clause", r"\boxed{\sin x + C,\ \text{where } C = -x}", "qualified_answer:where", None,
     None),
    ("for_x_positive", r"\boxed{\ln x + C \text{ for } x > 0}", "qualified_answer:for", None, None),
    ("if_else", r"\boxed{x^2 \text{ if } x \geq 0 \text{ else } -x^2}", "qualified_answer:if",
     None, None),
    ("otherwise", r"\boxed{\frac{x^2}{2} \text{ (otherwise } 0)}", "qualified_answer:otherwise",
     None, None),
    ("quad_neq", r"\boxed{\ln|x| + C, \quad x \neq 0}", "qualified_answer:neq", None, None),
    ("set_membership", r"\boxed{\frac{1}{x} + C \; (x \in \mathbb{R})}", "qualified_answer:in",
     None, None),
    ("geq_condition", r"\boxed{\sqrt{x} + C,\ x \ge 0}", "qualified_answer:geq", None, None),
    ("unicode_relation", "\\boxed{\\sqrt{x} + C, x ≥ 0}", "qualified_answer:geq", None, None),
    ("python_conditional_tag", "<answer>x**2/2 if x > 0 else -x**2/2</answer>",
     "qualified_answer:if", None, None),
    ("qualifier_in_earlier_box",
     r"\boxed{\ln x \text{ for } x>0}, and in general \boxed{\ln|x|}", "qualified_answer:for",
     None, None),
    ("cases_passes_through",
     r"\boxed{\begin{cases} \frac{x^2}{2} & \text{if } x \ge 0 \\ -\frac{x^2}{2} & "
     r"\text{otherwise} \end{cases}}",
     "ok", r"\begin{cases} \frac{x^2}{2} & \text{if } x \ge 0 \\ -\frac{x^2}{2} & "
     r"\text{otherwise} \end{cases}", None),
    ("cases_or_in_condition",
     r"\boxed{\begin{cases} 0 & x < 0 \text{ or } x > 1 \\ x & \text{else} \end{cases}}",
     "ok", None, None),
    ("qualifier_after_cases",
     r"\boxed{\begin{cases} x & x>0 \\ -x & x \le 0 \end{cases} \text{ where } x \ne 0}",
     "qualified_answer:where", None, None),
    ("unclosed_cases_is_scanned",
     r"\boxed{\begin{cases} x \text{ for } x > 0}", "qualified_answer:for", None, None),
    # -- equations: the right-hand side is graded --
    ("integral_equals",
     r"Hence \boxed{\int x e^{x}\,dx = x e^{x} - e^{x} + C}.", "ok", r"x e^{x} - e^{x} + C",
     None),
    ("F_equals", r"\boxed{F(x) = \frac{x^5}{5} + C}", "ok", r"\frac{x^5}{5} + C", None),
    ("y_equals", r"\boxed{y = \ln(1 + e^x) + C}", "ok", r"\ln(1 + e^x) + C", None),
    ("colon_equals_tag", "<answer>F(x) := x**3/3 + C</answer>", "ok", "x**3/3 + C", None),
    ("chain_of_equals", r"\boxed{\int 2x\,dx = x^2 + C = x^2 + C}", "ok", "x^2 + C", None),
    ("equals_in_subscript_kept", r"\boxed{\sum_{n=1}^{3} x^n}", "ok", r"\sum_{n=1}^{3} x^n", None),
    ("rhs_makes_restatement_identical",
     r"\boxed{F(x) = \tan x + C}, i.e. \boxed{\tan x + C}", "ok", r"\tan x + C",
     [r"\tan x + C", r"\tan x + C"]),
    # -- answer tags, boxes inside them, nesting --
    ("box_inside_answer_tag", r"<answer>\boxed{\frac{x^3}{3} + C}</answer>", "ok",
     r"\frac{x^3}{3} + C", [r"\frac{x^3}{3} + C"]),
    ("prose_and_box_in_tag_then_box",
     "<answer>The antiderivative is \\boxed{\\frac{x^3}{3} + C}</answer>\n\nSo "
     "\\boxed{\\frac{x^3}{3}+C}.",
     "ok", r"\frac{x^3}{3}+C", [r"\frac{x^3}{3} + C", r"\frac{x^3}{3}+C"]),
    ("box_then_different_tag", r"\boxed{\sin x} and <answer>\cos x</answer>", "ok", r"\cos x",
     [r"\sin x", r"\cos x"]),
    ("two_boxes_in_one_tag", r"<answer>\boxed{a} or \boxed{b}</answer>",
     "hedged:or_between_answers", None, ["a", "b"]),
    ("unclosed_tag_then_box", r"<answer>\boxed{x^2 + C}", "ok", "x^2 + C", ["x^2 + C"]),
    ("nested_box", r"\boxed{\boxed{x + 1}}", "ok", "x + 1", ["x + 1"]),
    ("box_in_box_with_more", r"\boxed{\boxed{a} + 1}", "ok", r"\boxed{a} + 1", None),
    ("empty_other_box_is_ignored", r"\boxed{} then \boxed{e^x + C}", "ok", "e^x + C", None),
    # -- boxed substitutions: steps of the work, not final answers --
    ("boxed_substitution_then_answer",
     r"Let $\boxed{u = x^2}$, so $du = 2x\,dx$ and the integral is $\int \cos u\,du$. "
     r"Hence \boxed{\sin(x^2) + C}.", "ok", r"\sin(x^2) + C", ["x^2", r"\sin(x^2) + C"]),
    ("answer_then_boxed_substitution_in_a_check",
     r"\boxed{\ln|\tan(x/2)| + C}. Check with \boxed{t = \tan(x/2)}.",
     "ok", r"\ln|\tan(x/2)| + C", None),
    ("boxed_back_substitution_greek",
     r"With \boxed{x = \sin\theta} the integral becomes $\theta$: \boxed{\arcsin x + C}",
     "ok", r"\arcsin x + C", None),
    ("boxed_substitution_in_answer_tags",
     "<answer>u = x**2 + 1</answer> ... <answer>log(x**2 + 1)/2</answer>",
     "ok", "log(x**2 + 1)/2", None),
    ("only_a_substitution_is_graded", r"\boxed{u = x^2}", "ok", "x^2", None),
    ("y_equals_is_an_answer", r"\boxed{y = x^2 + C} and \boxed{x^3}", "ok", "x^3",
     ["x^2 + C", "x^3"]),
    ("substitution_chain_is_an_answer", r"\boxed{u = x^2 = F} \boxed{G}", "ok", "G", None),
    ("substitution_does_not_hide_a_hedge",
     r"\boxed{u = x^2} then either \boxed{\sin u} or \boxed{\cos u}",
     "hedged:or_between_answers", None, None),
]


@pytest.mark.parametrize(("response", "reason", "value", "candidates"),
                         [pytest.param(*row[1:], id=row[0]) for row in POLICY_TABLE])
def test_final_answer_policy_table(response, reason, value, candidates):
    r = extract_answer(response)
    assert r.reason == reason, (r.detail, r.describe())
    assert r.status is ExtractionStatus(reason.split(":")[0])
    assert (r.value is not None) == (r.status is S.OK)
    if value is not None:
        assert r.value == value
    if candidates is not None:
        assert [c.text for c in r.candidates] == candidates
    assert r.policy == DEFAULT_POLICY
    json.dumps(r.to_dict())


def test_policy_table_ids_are_unique():
    assert len({row[0] for row in POLICY_TABLE}) == len(POLICY_TABLE) >= 60


# --- candidates and agreement ----------------------------------------------------


def test_candidates_record_source_index_and_offsets():
    text = r"<answer>\boxed{a}</answer> then \boxed{b} and <answer>c</answer>"
    r = extract_answer(text)
    assert [(c.source, c.index, c.in_answer_tag, c.text) for c in r.candidates] == [
        ("boxed", 0, True, "a"), ("boxed", 1, False, "b"), ("answer_tag", 2, False, "c")]
    for c in r.candidates:
        assert text[c.start] in "\\<"
    assert r.chosen is r.candidates[-1]
    assert (r.n_matches, r.chosen_index, r.source) == (3, 2, "answer_tag")


def test_a_boxed_substitution_is_not_an_answer_the_others_must_agree_with():
    r = extract_answer(r"Let \boxed{u = x^2}. Then \boxed{\sin(x^2) + C}")
    assert [c.status for c in r.candidates] == ["substitution", "ok"]
    assert (r.agreement, r.distinct_texts, r.needs_agreement_check) == (
        "single", (r"\sin(x^2) + C",), False)
    # y = ... is the answer's name, not a substitution: the two must agree.
    r = extract_answer(r"\boxed{y = x^2} \boxed{x^3}")
    assert r.needs_agreement_check and r.distinct_texts == ("x^3", "x^2")


@pytest.mark.parametrize(("response", "integrand", "verdict"), [
    (r"Let \(\boxed{u = x^2}\), then $\int \cos u\,du$: \boxed{\sin(x^2) + C}",
     "2*x*cos(x**2)", Verdict.CORRECT),
    (r"Let \(\boxed{u = x^2}\), then: \boxed{\cos(x^2) + C}", "2*x*cos(x**2)", Verdict.WRONG),
    (r"\boxed{x = \sin\theta}, so \boxed{\arcsin x + C}", "1/sqrt(1 - x**2)", Verdict.CORRECT),
])
def test_a_boxed_substitution_before_the_answer_through_the_checker(response, integrand,
                                                                       verdict):
    result = check_antiderivative(response, integrand, input_kind="response")
    assert result.verdict is verdict, result.render()


def test_agreement_values():
    assert extract_answer(r"\boxed{x}").agreement == "single"
    assert extract_answer(r"\boxed{x + C} \boxed{x}").agreement == "identical"
    assert extract_answer(r"\boxed{x^2} \boxed{x^3}").agreement == "differ"
    assert extract_answer("nothing").agreement == "none"


@pytest.mark.parametrize(("a", "b"), [
    (r"\frac{x^2}{2}+C", r"\frac{x^2}{2}"),
    (r"\frac{x^2}{2} + C", r"\frac{x^2}{2}+c"),
    (r"\frac{x^2}{2} + C_1", r"\frac {x^2} {2}"),
    (r"\left(x+1\right)^2", "(x+1)^2"),
    (r"\displaystyle x\,e^x", "xe^x."),
    (r"x + \text{const}", "x"),
])
def test_textually_identical_after_normalization(a, b):
    r = extract_answer(rf"\boxed{{{a}}} and \boxed{{{b}}}")
    assert r.agreement == "identical"
    assert not r.needs_agreement_check
    assert r.distinct_texts == (b,)


def test_distinct_texts_start_with_the_chosen_answer():
    r = extract_answer(r"\boxed{a} \boxed{b} \boxed{a + C} \boxed{c}", policy="first")
    assert r.value == "a"
    assert r.distinct_texts == ("a", "b", "c")
    assert r.needs_agreement_check


def test_max_distinct_answers_is_configurable():
    text = r"\boxed{1} \boxed{2} \boxed{3}"
    assert extract_answer(text).status is S.OK
    r = extract_answer(text, policy=AnswerPolicy(max_distinct_answers=2))
    assert r.reason == "hedged:too_many_answers"


# --- policy configuration -------------------------------------------------------


HEDGED_BOXES = r"either \boxed{-\sin x + C} or \boxed{\sin x + C}"


def test_hedge_pick_takes_the_box_policy_choice_and_reports():
    pick = AnswerPolicy(hedge="pick")
    r = extract_answer(HEDGED_BOXES, policy=pick)
    assert r.status is S.OK
    assert r.value == r"\sin x + C"
    assert r.hedges == ("or_between_answers",)
    assert not r.needs_agreement_check
    assert "hedge=pick" in r.detail
    r = extract_answer(r"\boxed{\pm x}", policy=pick)
    assert (r.status, r.value, r.hedges) == (S.OK, r"\pm x", ("pm",))
    assert extract_answer(HEDGED_BOXES, policy=pick.replace(box_policy="first")).value == \
        r"-\sin x + C"


def test_hedge_pick_judges_only_the_chosen_answer():
    pick = AnswerPolicy(hedge="pick")
    text = r"\boxed{x \text{ for } x > 0} then \boxed{\ln x}"
    assert extract_answer(text).reason == "qualified_answer:for"
    assert extract_answer(text, policy=pick).value == r"\ln x"


def test_reasoning_ignore_tags_grades_everything():
    text = r"<think>\boxed{\cos x}</think> no final answer"
    assert extract_answer(text).reason == "no_answer:answer_only_in_reasoning"
    r = extract_answer(text, policy=AnswerPolicy(reasoning="ignore_tags"))
    assert (r.status, r.value, r.reasoning, r.graded_from) == (S.OK, r"\cos x", "ignored", 0)
    assert extract_answer("<think>\\boxed{x}",
                          policy=AnswerPolicy(reasoning="ignore_tags")).value == "x"


def test_reasoning_state_and_graded_offset():
    text = r"<think>work</think>\boxed{x}"
    r = extract_answer(text)
    assert r.reasoning == "closed"
    assert r.graded_from == text.index(r"\boxed")
    assert r.candidates[0].start == r.graded_from
    assert extract_answer(r"\boxed{x}").reasoning == "none"
    assert extract_answer("<think>").reasoning == "unclosed"


def test_qualifiers_report_mode():
    r = extract_answer(r"\boxed{\ln x + C \text{ for } x > 0}",
                       policy=AnswerPolicy(qualifiers="report"))
    assert r.status is S.OK
    assert r.qualifiers == ("for", "gt")
    assert r.value == r"\ln x + C \text{ for } x > 0"


def test_box_policy_string_keeps_the_rest_of_the_default():
    r = extract_answer(HEDGED_BOXES, policy="first")
    assert r.policy == DEFAULT_POLICY.replace(box_policy=BoxPolicy.FIRST)
    assert r.status is S.HEDGED


def test_math_fallback_argument_overrides_policy():
    text = r"So $\int x\,dx = \frac{x^2}{2}$."
    assert extract_answer(text).status is S.NO_ANSWER
    r = extract_answer(text, math_fallback=True)
    assert (r.value, r.source, r.policy.math_fallback) == (r"\frac{x^2}{2}", "math_block", True)
    r = extract_answer(text, policy=AnswerPolicy(math_fallback=True), math_fallback=False)
    assert r.status is S.NO_ANSWER


def test_math_fallback_applies_the_policy_after_reasoning():
    text = r"<think>maybe $x^2$</think> The result is $\frac{x^3}{3} \text{ for } x>0$."
    r = extract_answer(text, math_fallback=True)
    assert r.reason == "qualified_answer:for"
    r = extract_answer(r"<think>$x$</think> nothing", math_fallback=True)
    assert r.status is S.NO_ANSWER


@pytest.mark.parametrize("bad", [
    {"reasoning": "after"}, {"hedge": "last"}, {"box_policy": "middle"},
    {"qualifiers": "drop"}, {"math_fallback": "yes"}, {"max_distinct_answers": 0},
    {"max_distinct_answers": True},
])
def test_invalid_answer_policy_is_a_config_error(bad):
    with pytest.raises(ValueError):
        AnswerPolicy(**bad)


def test_answer_policy_is_frozen_and_serializable():
    assert DEFAULT_POLICY.to_dict() == {
        "reasoning": "grade_after", "hedge": "reject", "box_policy": "last",
        "math_fallback": False, "qualifiers": "reject", "max_distinct_answers": 4}
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_POLICY.hedge = "pick"  # type: ignore[misc]
    assert AnswerPolicy(box_policy="FIRST").box_policy is BoxPolicy.FIRST


def test_describe_names_policy_and_winning_marker():
    r = extract_answer(r"<think>x</think> \boxed{a} and <answer>b</answer>")
    text = r.describe()
    assert "hedge=reject" in text and "reasoning: closed" in text
    assert " *[1] answer_tag" in text
    assert "agreement: differ" in text


def test_to_dict_lists_candidates_capped():
    text = " ".join(rf"\boxed{{{i}}}" for i in range(40))
    d = extract_answer(text, policy=AnswerPolicy(hedge="pick")).to_dict()
    assert d["n_candidates"] == 40 and len(d["candidates"]) == 16
    assert d["candidates"][0] == {"source": "boxed", "index": 0, "start": 0, "status": "ok",
                                  "text": "0", "in_answer_tag": False, "hedges": [],
                                  "qualifiers": []}
    assert json.loads(json.dumps(d)) == d


def test_candidate_type():
    c = extract_answer(r"\boxed{F(x) = x}").chosen
    assert isinstance(c, Candidate)
    assert (c.raw, c.text, c.key, c.status) == ("F(x) = x", "x", "x", "ok")
    assert c.to_dict()["raw"] == "F(x) = x"


# --- the graded text is the right-hand side (the rule the parsers share) -------------


@pytest.mark.parametrize(("text", "rhs"), [
    (r"\int x\,dx = \frac{x^2}{2} + C", r"\frac{x^2}{2} + C"),
    ("F(x) = x^2", "x^2"),
    ("y=e^x", "e^x"),
    ("F(x) := x", "x"),
    ("a = b = c", "c"),
    ("x^2 + C", "x^2 + C"),
    (r"f_{n=1}(x)", r"f_{n=1}(x)"),
    (r"\text{C = const} + x", r"\text{C = const} + x"),
    ("g(a=1)", "g(a=1)"),
    (r"\{a = 1\} + x", r"\{a = 1\} + x"),
    ("x = 1, y = 2", "x = 1, y = 2"),
    ("x <= 1", "x <= 1"),
    ("x != 1", "x != 1"),
    ("F(x) =", "F(x)"),
    ("=", ""),
    ("", ""),
    (") = x", "x"),
])
def test_equation_rhs(text, rhs):
    assert equation_rhs(text) == rhs


def test_equation_rhs_is_linear_on_hostile_input():
    assert equation_rhs("(" * 200_000 + "= x") == "(" * 200_000 + "= x"
    # "==" is a comparison, never a definition: nothing is split.
    assert equation_rhs("=" * 200_000 + "x") == "=" * 200_000 + "x"
    assert equation_rhs("\\" * 200_000 + "= y") == "y"
    # An odd run ends in "\=", a control symbol, not an equation.
    assert equation_rhs("\\" * 200_001 + "= y") == "\\" * 200_001 + "= y"


# --- internal errors ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["_split_reasoning", "_final_markers", "_analyze",
                                  "answer_flags", "equation_rhs", "_prose_hedges",
                                  "_comparison_key", "_unwrap_nested_boxes"])
def test_internal_error_is_not_no_answer(monkeypatch, name, lenient):
    def boom(*args, **kwargs):
        raise RuntimeError("bug in extraction")

    monkeypatch.setattr(extract_module, name, boom)
    r = extract_answer(r"<think>x</think> \boxed{\boxed{F(x) = x}}")
    assert r.status is S.INTERNAL_ERROR
    assert r.reason == "extraction_error"
    assert (r.value, r.chosen_index, r.candidates) == (None, None, ())
    assert "RuntimeError" in r.detail and "bug in extraction" in r.detail
    assert r.status is not S.NO_ANSWER
    json.dumps(r.to_dict())


def test_config_errors_still_raise_outside_the_net():
    with pytest.raises(ValueError):
        extract_answer(r"\boxed{x}", policy="nope")


def test_unsupported_input_reason():
    assert extract_answer(3.5).reason == "no_answer:unsupported_input"


# --- hostile inputs for the new scans ---------------------------------------------------


@pytest.mark.parametrize("text", [
    "<think>" * 25_000,
    "</think>" * 25_000,
    "<think></think>" * 12_000 + r"\boxed{x}",
    ("< / " + " " * 40) * 4_000 + "think>",
    "".join(rf"\boxed{{{i}}} or " for i in range(10_000)),
    r"\boxed{" + r"\begin{cases}" * 14_000 + "}",
    r"\boxed{" + r"\begin{cases}x\end{cases}" * 7_000 + "}",
    r"\boxed{" + "a or " * 38_000 + "}",
    r"\boxed{" + "=" * 190_000 + "}",
    r"\boxed{" + "(" * 190_000 + "}",
    r"\boxed{" + "\\," * 95_000 + "}",
    r"\pm\boxed{x}" * 15_000,
    "<answer>" + r"\boxed{1}" * 20_000,
    r"<answer>\boxed{1}</answer>" * 7_000,
    r"\boxed{x}" + " or $" * 40_000,
])
def test_hostile_inputs_for_policy_scans(text):
    for policy in (DEFAULT_POLICY, AnswerPolicy(hedge="pick", qualifiers="report")):
        r = extract_answer(text, policy=policy, max_answer_chars=10**6)
        assert r.status is not S.INTERNAL_ERROR, r.detail
        json.dumps(r.to_dict())


@pytest.mark.parametrize("answer", [
    r"\ln\left|\sec x + \tan x\right| + C",
    r"\frac{1}{2}\arctan\left(\frac{x}{2}\right) + C",
    r"\frac{\sqrt{\pi}}{2}\operatorname{erf}(x) + C",
    r"x\sin x + \cos x + C",
    r"\frac{2}{3}(x+1)^{3/2}",
    r"e^{x}\left(x^{2}-2x+2\right)+C",
    r"\sinh^{-1}(x) + C",
    r"\log_{2}|x| + C",
    r"\text{Li}_2(x)",
    r"\mathrm{Si}(x) + \mathrm{d}",
    r"\frac{x^2}{2}\ln x - \frac{x^2}{4} + C",
    r"\tan^{-1} x + \text{const}",
    r"\frac{1}{4}\sin(4x) \cdot \mathrm{sgn}(x)",
    "x*exp(x) - exp(x) + C",
    "asinh(x) + sqrt(x**2 + 1)",
    r"\left\{ x \right.",
])
def test_clean_answers_are_not_flagged(answer):
    for wrap in (r"Therefore \boxed{%s}.", "<answer>%s</answer>",
                 "<think>try \\boxed{0}</think> So \\boxed{%s}"):
        r = extract_answer(wrap.replace("%s", answer))
        assert r.status is S.OK, (wrap, r.reason, r.detail)
        assert r.value == answer
        assert (r.hedges, r.qualifiers, r.agreement) == ((), (), "single")


def test_other_final_answer_too_long_under_reject():
    text = r"\boxed{" + "x+" * 3_000 + "x} and finally \\boxed{x}"
    r = extract_answer(text)
    assert r.status is S.TOO_LONG
    assert r.chosen_index == 1
    assert extract_answer(text, policy=AnswerPolicy(hedge="pick")).value == "x"


def test_first_policy_with_agreeing_answers():
    r = extract_answer(r"\boxed{\sin x + C} and, to be clear, \boxed{\sin x}", policy="first")
    assert (r.status, r.value, r.agreement) == (S.OK, r"\sin x + C", "identical")
    assert not r.needs_agreement_check


# An integral left in the answer is passed on by extraction and refused by the
# parser (one place decides it), never evaluated: UNPARSEABLE echoed_integral.
@pytest.mark.parametrize("response", [
    r"\boxed{\int \cos x\,dx}",
    r"\boxed{\int_0^x \sin t\,dt}",
    r"\boxed{\int \sec^2 x\,dx = }",
    "\\boxed{∫ x dx}",
    "<answer>Integral(x**2, x)</answer>",
    "<answer>integrate(x**2, x)</answer>",
    r"\boxed{x^2 - \int 2x\,dx}",
])
def test_echoed_integrals_are_refused_not_evaluated(response):
    result = check_antiderivative(response, "cos(x)", input_kind="response")
    assert result.verdict is Verdict.UNPARSEABLE
    assert result.reason == "echoed_integral"
