"""Behaviour of rewards.extract on well-formed, malformed and hostile completions."""
from __future__ import annotations

import dataclasses
import doctest
import json
import random

import pytest

from rewards.check import extract as extract_module
from rewards.check.extract import BoxPolicy, Extraction, ExtractionStatus, extract_answer

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


def test_boxed_beats_answer_tag():
    r = extract_answer(r"\boxed{a} <answer>b</answer>")
    assert r.status is S.OK
    assert r.value == "a"
    assert r.source == "boxed"
    r = extract_answer(r"<answer>b</answer> \boxed{a}", policy="first")
    assert r.value == "a"


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
    r = extract_answer(text)
    assert r.status is S.OK
    assert r.value == "9999"
    assert (r.n_matches, r.chosen_index) == (10_000, 9_999)
    first = extract_answer(text, policy="first")
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
    r = extract_answer("答案是 \\boxed{∫ x² dx = x³/3 + C 🙂} ✓")
    assert r.value == "∫ x² dx = x³/3 + C 🙂"
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
                "\x00", "\n", "é", "\\fboxsep"]
    rng = random.Random(1234)
    for _ in range(2_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for policy in BoxPolicy:
            r = extract_answer(text, policy=policy, math_fallback=rng.random() < 0.5,
                               max_answer_chars=30)
            assert isinstance(r, Extraction)
            assert isinstance(r.status, ExtractionStatus)
            json.dumps(r.to_dict())
            if r.status is S.OK:
                assert r.value and r.value == r.value.strip()
                assert "\x00" not in r.value
                assert len(r.value) <= 30
                assert r.chosen_index is not None
                assert 0 <= r.chosen_index < r.n_matches
            else:
                assert r.value is None
            if r.status in (S.AMBIGUOUS, S.UNBALANCED, S.NO_ANSWER):
                assert r.chosen_index is None


# --- result object ------------------------------------------------------------------


def test_status_values_are_stable_slugs():
    assert {s.value for s in ExtractionStatus} == {
        "ok", "no_answer", "empty", "unbalanced", "too_long", "ambiguous"
    }
    assert {p.value for p in BoxPolicy} == {"first", "last", "only_if_single"}
    assert ExtractionStatus.OK == "ok"


def test_to_dict_is_json_serializable():
    for text in [r"\boxed{x}", r"\boxed{", None, "<answer></answer>", "plain", THREE]:
        r = extract_answer(text, policy="only_if_single")
        d = r.to_dict()
        assert set(d) == {"status", "value", "n_matches", "chosen_index", "source", "detail"}
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
