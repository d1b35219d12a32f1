"""Behaviour of rewards.extract (input types, hostile inputs, the result object): part of the extraction tests,
split by section from the former tests/test_extract.py."""
from __future__ import annotations

import collections
import dataclasses
import json
import random

import pytest

from rewards.check.extract import (
    AnswerPolicy,
    BoxPolicy,
    Extraction,
    ExtractionStatus,
    extract_answer,
)

S = ExtractionStatus


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
    for text in [r"\boxed{x}", r"\boxed{", None, "<answer></answer>", "plain",
                 r"first \boxed{a} second \boxed{b} third \boxed{c}"]:
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
