"""What a name and a stored text may contain (docs/input-limits.md): the sentence each refusal gives."""

from __future__ import annotations

import pytest

from orchestrator.domain.names import name_problem, text_problem


def test_text_the_databases_can_store_has_no_problem() -> None:
    assert text_problem("Norway — Magnus ♔ 𝄞") is None
    assert text_problem("") is None


def test_a_nul_is_refused_before_anything_else() -> None:
    assert text_problem("a\x00b") == "contains a NUL character (U+0000)"
    assert text_problem("\ud800\x00") == "contains a NUL character (U+0000)"


@pytest.mark.parametrize(("char", "code"), [("\ud800", "D800"), ("\udfff", "DFFF"), ("\udabc", "DABC")])
def test_a_lone_surrogate_is_named_by_its_code_point(char: str, code: str) -> None:
    assert (
        text_problem(f"ab{char}") == f"contains a lone surrogate (U+{code}), which is not valid Unicode text"
    )


def test_the_characters_around_the_surrogates_are_text() -> None:
    # U+D7FF and U+E000 are ordinary characters on either side of the surrogate block.
    assert text_problem("\ud7ff\ue000") is None


def test_an_empty_or_blank_name_is_refused() -> None:
    assert name_problem("", what="team name", limit=60) == "team name is empty"
    assert name_problem("   ", what="stage name", limit=60) == "stage name is empty"


def test_a_name_may_reach_its_limit_but_not_pass_it() -> None:
    assert name_problem("x" * 60, what="team name", limit=60) is None
    assert name_problem("x" * 61, what="team name", limit=60) == (
        "team name is 61 characters long; at most 60 are allowed"
    )


@pytest.mark.parametrize(
    ("char", "kind"),
    [
        ("\n", "a line break"),
        ("\r", "a line break"),
        ("\v", "a line break"),
        ("\f", "a line break"),
        ("\x85", "a line break"),
        ("\u2028", "a line break"),
        ("\u2029", "a line break"),
        ("\t", "a control character"),
        ("\x00", "a control character"),
        ("\x7f", "a control character"),
        ("\x9f", "a control character"),
        ("\u202e", "a control character"),
        ("\u2066", "a control character"),
        ("\u2069", "a control character"),
        ("\u202a", "a control character"),
    ],
)
def test_a_line_break_or_control_character_is_named(char: str, kind: str) -> None:
    code = f"{ord(char):04X}"
    assert name_problem(f"Team{char}A", what="team name", limit=60) == (
        f"team name contains {kind} (U+{code}); a name is one line of text"
    )


def test_printable_names_in_any_script_pass() -> None:
    for name in ("Norway", "Côte d'Ivoire", "Україна", "中国", "Team A ♞", "al-ʿArabiyya", "a\u200db"):
        assert name_problem(name, what="team name", limit=60) is None
