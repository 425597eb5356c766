"""The English finder of the translated-pages walk (tests/support/english_text.py): it finds English words
the language's translations never use, and lets through the data's names, the words a translation keeps,
what is marked ``translate="no"`` or another ``lang``, and addresses."""

from __future__ import annotations

import pytest

from tests.support.english_text import EnglishFinder, english_vocabulary, page_text, translated_vocabulary

PAGE = """<html lang="pt"><body>
<h1>Chess Olympiad 2026</h1>
<p>{body}</p>
<footer><a lang="en" href="/lang/en">English</a></footer>
</body></html>"""


@pytest.fixture(scope="module")
def portuguese() -> EnglishFinder:
    return EnglishFinder.for_language("pt", {"chess", "olympiad", "united", "states"})


@pytest.mark.parametrize(
    "body",
    [
        "Finished: all 11 rounds are complete and the standings are final.",
        "Board 1",
        '<span class="colour" role="img" aria-label="white"></span>',
        "medalha de Gold",
    ],
)
def test_english_on_a_portuguese_page_is_found(portuguese: EnglishFinder, body: str) -> None:
    assert portuguese.english_in(PAGE.format(body=body))


@pytest.mark.parametrize(
    "body",
    [
        "Terminado: as 11 rodadas estão completas. United States 2½–1½",
        "Buchholz",  # the translations keep the name
        '<td translate="no">result: 1-0; source: server</td>',
        '<a href="/events/x">/api/v1/events/olympiad-2026/lots</a>',
        "<code>stage.close</code>",
    ],
)
def test_names_kept_words_marked_data_and_addresses_pass(portuguese: EnglishFinder, body: str) -> None:
    assert portuguese.english_in(PAGE.format(body=body)) == []


def test_the_vocabularies_come_from_the_catalogues() -> None:
    english, portuguese = english_vocabulary(), translated_vocabulary("pt")
    assert {"finished", "board", "white"} <= english
    assert {"rodada", "tabuleiro"} <= portuguese and "finished" not in portuguese
    assert "board" not in portuguese  # a form field's name ("board: escolha ...") is not a Portuguese word


def test_the_text_read_includes_the_attributes_people_read() -> None:
    assert page_text('<html lang="pt"><img alt="Pool page"><p title="Match 1">x</p></html>') == [
        "Pool page",
        "Match 1",
        "x",
    ]
