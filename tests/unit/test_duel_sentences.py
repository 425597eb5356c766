"""A duel's outcome in the reader's language (services/playoff/sentences.py): in English it is word for word
the domain's sentence (domain/knockout/duels.py ``DuelOutcome.sentence``) for every way a duel ends, and in
Portuguese, Norwegian and Turkish it keeps none of its English words."""

from __future__ import annotations

import itertools

import pytest

from orchestrator.domain import knockout as ko
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.services.playoff.sentences import duel_sentence
from orchestrator.translation import speaking

R = GameResult
WON, DRAWN, LOST = [R.WHITE_WINS] * 6, [R.DRAW] * 6, [R.BLACK_WINS] * 6
SWEEP = [R.WHITE_WINS, R.BLACK_WINS] * 3  # the team with White on board 1 wins every board
ARMAGEDDONS = (
    None,
    ko.ArmageddonResult("Azerbaijan", R.DRAW),
    ko.ArmageddonResult("China", R.WHITE_WINS),
    ko.ArmageddonResult("Azerbaijan", R.BLACK_WINS),
    ko.ArmageddonResult("China", R.WHITE_WINS_FORFEIT),
    ko.ArmageddonResult("Azerbaijan", R.DOUBLE_FORFEIT),
)


def _match(results: list[GameResult]) -> ko.DuelMatch:
    return ko.DuelMatch(results=tuple(results))


def _records() -> list[ko.DuelRecord]:
    records = [
        ko.DuelRecord("F", "China", "Azerbaijan", (_match(a), _match(b)), game)
        for a, b in itertools.product((WON, DRAWN, LOST, SWEEP), repeat=2)
        for game in ARMAGEDDONS
    ]
    records += [
        ko.DuelRecord("F", "China", "Azerbaijan", (_match(WON),)),
        ko.DuelRecord("F", "China", "Azerbaijan", ()),
        ko.DuelRecord("F", "China", "Azerbaijan", (_match(WON),), withdrawn="Azerbaijan"),
        ko.DuelRecord(
            "F",
            "China",
            "Azerbaijan",
            (_match(WON), _match(DRAWN)),
            ruling=ko.Ruling(("China", "Azerbaijan"), "x"),
        ),
        ko.DuelRecord(
            "F", "China", "Azerbaijan", (_match(WON), _match(DRAWN)), ruling=ko.Ruling(("China",), "x")
        ),
        ko.DuelRecord("F", "China", "Azerbaijan", (ko.DuelMatch(forfeit=MatchForfeit.A_WINS), _match(DRAWN))),
    ]
    decided = []
    for record in records:
        try:
            ko.decide_duel(record)
        except ko.KnockoutError:  # an Armageddon after a duel won on match points: not a duel
            continue
        decided.append(record)
    return decided


RECORDS = _records()


def test_every_way_a_duel_ends_is_covered() -> None:
    reasons = {ko.decide_duel(record).reason for record in RECORDS}
    assert reasons == set(ko.DuelReason)


@pytest.mark.parametrize("record", RECORDS)
def test_in_english_the_sentence_is_the_domain_s(record: ko.DuelRecord) -> None:
    outcome = ko.decide_duel(record)
    with speaking("en"):
        assert duel_sentence(record, outcome) == outcome.sentence


@pytest.mark.parametrize("language", ["pt", "nb", "tr"])
def test_in_another_language_no_english_word_of_the_sentence_is_left(language: str) -> None:
    english = {"wins", "goes", "through", "level", "withdrew", "forfeited", "decides", "joint", "decision"}
    for record in RECORDS:
        outcome = ko.decide_duel(record)
        with speaking(language):
            words = set(duel_sentence(record, outcome).lower().replace(",", " ").replace(".", " ").split())
        assert not words & english, (language, outcome.sentence)
