"""Armageddon (docs/rules.md §5): category lot, sealed nominations, defaults, colour lot and choice, the
game."""

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from orchestrator.domain.knockout import (
    ArmageddonClock,
    ArmageddonPhase,
    ArmageddonState,
    DuelMatch,
    DuelReason,
    DuelRecord,
    KnockoutError,
    Nomination,
    NominationError,
    PublicNomination,
    armageddon_categories,
    armageddon_game,
    armageddon_result,
    captain_view,
    choose_colour,
    decide_duel,
    draw_category,
    draw_chooser,
    nominate,
    public_view,
    record_armageddon,
    reveal,
    start_armageddon,
)
from orchestrator.domain.lots import check_lot
from orchestrator.domain.scoring import GameResult
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team, TeamFormat

C = Category
FORMAT = TeamFormat((C.OPEN, C.OPEN, C.WOMEN, C.WOMEN, C.JUNIOR, C.GIRL), cutoff_year=2000)
DEADLINE = datetime(2020, 8, 30, 12, 0, tzinfo=UTC)
BEFORE = DEADLINE - timedelta(minutes=10)


def p(name: str, sex: str, born: int, rating: int = 2500) -> Player:
    return Player(name, name.lower().replace(" ", "_"), Sex(sex), born, rating)


def team(name: str, players: list[Player]) -> Team:
    entries = tuple(
        RosterEntry(pl, board if board <= 6 else None, FORMAT.category_of(min(board, 6)))
        for board, pl in enumerate(players, start=1)
    )
    return Team(name, name[:3].upper(), 1, entries)


NORTH = team(
    "Northland",
    [
        p("Arne Berg", "m", 1988),
        p("Bo Dahl", "m", 1995),
        p("Cara Eng", "f", 1990),
        p("Dina Foss", "f", 1993),
        p("Emil Gran", "m", 2003),
        p("Frida Holm", "f", 2005),
        p("Gus Ivar", "m", 1979),
        p("Hedda Juul", "f", 2002),
    ],
)
SOUTH = team(
    "Southland",
    [
        p("Ana Costa", "m", 1991),
        p("Bruno Dias", "m", 1986),
        p("Clara Elias", "f", 1997),
        p("Dora Faria", "f", 1989),
        p("Edu Gomes", "m", 2001),
        p("Fia Horta", "f", 2004),
        p("Gil Inacio", "m", 2004),
        p("Helena Jesus", "f", 1999),
    ],
)
# Match-2 lineups: Northland fielded its reserve Hedda Juul on board 3.
NORTH_M2 = (*NORTH.main_players[:2], NORTH.roster[7].player, *NORTH.main_players[3:])
SOUTH_M2 = SOUTH.main_players


def seed(n: int) -> bytes:
    return hashlib.sha256(f"armageddon test {n}".encode()).digest()


def seed_drawing(category: Category) -> bytes:
    """The first fixed seed whose category lot gives ``category`` (found by running the real lot)."""
    for n in range(200):
        if draw_category(fresh(), seed(n)).category is category:
            return seed(n)
    raise AssertionError("no seed drew the category")


def fresh(
    clock: ArmageddonClock = ArmageddonClock(),
    lineups: tuple[Sequence[Player | None], Sequence[Player | None]] = (NORTH_M2, SOUTH_M2),
) -> ArmageddonState:
    """Duel IX's Armageddon before the category lot; ``lineups`` are the two teams' match-2 boards."""
    return start_armageddon(
        duel_key="IX",
        teams=("Northland", "Southland"),
        team_format=FORMAT,
        deadline=DEADLINE,
        match2_lineups=lineups,
        clock=clock,
    )


def drawn(category: Category) -> ArmageddonState:
    return draw_category(fresh(), seed_drawing(category))


def test_the_category_lot_draws_only_categories_of_the_team_format_and_can_be_rechecked() -> None:
    no_girls = TeamFormat((C.OPEN, C.OPEN, C.WOMEN, C.WOMEN, C.JUNIOR, C.JUNIOR), cutoff_year=2000)
    assert armageddon_categories(no_girls) == (C.OPEN, C.WOMEN, C.JUNIOR)
    state = start_armageddon(
        duel_key="I",
        teams=("Northland", "Southland"),
        team_format=no_girls,
        deadline=DEADLINE,
        match2_lineups=((), ()),
    )
    seen = {draw_category(state, seed(n)).category for n in range(60)}
    assert seen == {C.OPEN, C.WOMEN, C.JUNIOR}
    lot = draw_category(state, seed(7)).category_lot
    assert lot is not None and check_lot(lot) and lot.purpose == "Armageddon category, duel I"


def test_the_category_is_drawn_once() -> None:
    with pytest.raises(KnockoutError, match="already drawn"):
        draw_category(drawn(C.OPEN), seed(1))


def test_an_ineligible_nomination_is_refused_with_a_clear_message() -> None:
    junior = drawn(C.JUNIOR)
    with pytest.raises(
        NominationError,
        match=r"Arne Berg cannot play the junior Armageddon: born 1988; "
        r"the junior category is for players born 2000 or later",
    ):
        nominate(junior, NORTH, "arne_berg", BEFORE)
    women = drawn(C.WOMEN)
    with pytest.raises(
        NominationError, match=r"Emil Gran cannot play the women Armageddon: .*female players"
    ):
        nominate(women, NORTH, "emil_gran", BEFORE)
    girl = drawn(C.GIRL)
    with pytest.raises(NominationError, match=r"Dina Foss .* born 1993"):
        nominate(girl, NORTH, "dina_foss", BEFORE)
    with pytest.raises(NominationError, match="'ana_costa' is not on the roster of Northland"):
        nominate(women, NORTH, "ana_costa", BEFORE)


def test_nominations_are_refused_before_the_category_lot_after_the_deadline_and_from_other_teams() -> None:
    with pytest.raises(NominationError, match="not been drawn"):
        nominate(fresh(), NORTH, "cara_eng", BEFORE)
    with pytest.raises(NominationError, match="deadline has passed"):
        nominate(drawn(C.WOMEN), NORTH, "cara_eng", DEADLINE)
    outsider = team("Eastland", [p("Xia Yu", "f", 1990)])
    with pytest.raises(KnockoutError, match="Eastland does not play duel IX"):
        nominate(drawn(C.OPEN), outsider, "xia_yu", BEFORE)


def test_a_reserve_of_the_category_may_be_nominated_and_changed_until_both_are_in() -> None:
    state = nominate(drawn(C.GIRL), NORTH, "frida_holm", BEFORE)
    state = nominate(state, NORTH, "hedda_juul", BEFORE + timedelta(minutes=1))
    assert captain_view(state, "Northland", BEFORE).own_nomination.player == "Hedda Juul"  # type: ignore[union-attr]
    state = nominate(state, SOUTH, "fia_horta", BEFORE)
    with pytest.raises(NominationError, match="revealed"):
        nominate(state, NORTH, "frida_holm", BEFORE)


def test_the_public_view_shows_no_nomination_until_both_are_in() -> None:
    state = nominate(drawn(C.WOMEN), NORTH, "cara_eng", BEFORE)
    view = public_view(state, BEFORE)
    assert view.phase is ArmageddonPhase.NOMINATING
    assert view.nominations is None and view.own_nomination is None
    assert "cara_eng" not in repr(view) and "Cara Eng" not in repr(view)
    with pytest.raises(KnockoutError, match="sealed"):
        reveal(state, BEFORE)

    both = nominate(state, SOUTH, "dora_faria", BEFORE + timedelta(minutes=2))
    shown = public_view(both, BEFORE + timedelta(minutes=2))
    assert shown.nominations is not None
    assert [(n.team, n.player, n.by_default) for n in shown.nominations if n] == [
        ("Northland", "Cara Eng", False),
        ("Southland", "Dora Faria", False),
    ]


def test_a_captains_view_reveals_nothing_about_the_other_teams_choice() -> None:
    state = drawn(C.WOMEN)
    north_first = nominate(state, NORTH, "cara_eng", BEFORE)
    views_of_south_captain = set()
    for north_choice in ("cara_eng", "dina_foss", "hedda_juul", "frida_holm"):
        sealed = nominate(state, NORTH, north_choice, BEFORE)
        views_of_south_captain.add(captain_view(sealed, "Southland", BEFORE))
    assert views_of_south_captain == {captain_view(north_first, "Southland", BEFORE)}
    assert len(views_of_south_captain) == 1
    own = captain_view(north_first, "Northland", BEFORE).own_nomination
    assert own is not None and own.player == "Cara Eng"


def test_at_the_deadline_a_missing_nomination_defaults_to_that_categorys_first_board_in_match_two() -> None:
    state = nominate(drawn(C.WOMEN), SOUTH, "clara_elias", BEFORE)
    assert public_view(state, DEADLINE - timedelta(seconds=1)).nominations is None
    view = public_view(state, DEADLINE)
    assert view.nominations is not None
    north, south = view.nominations
    # Women's first board is board 3; Northland fielded the reserve Hedda Juul there in match 2.
    assert north is not None and (north.player, north.by_default) == ("Hedda Juul", True)
    assert south is not None and (south.player, south.by_default) == ("Clara Elias", False)
    assert reveal(state, DEADLINE).phase is ArmageddonPhase.DRAW_CHOOSER


def test_a_team_with_nobody_on_that_board_in_match_two_and_no_nomination_forfeits_the_armageddon() -> None:
    empty_board_5 = (*SOUTH_M2[:4], None, SOUTH_M2[5])
    state = fresh(lineups=(NORTH_M2, empty_board_5))
    state = draw_category(state, seed_drawing(C.JUNIOR))
    state = reveal(nominate(state, NORTH, "emil_gran", BEFORE), DEADLINE)
    assert state.phase is ArmageddonPhase.FINISHED
    record = DuelRecord("IX", "Northland", "Southland", _level_matches(), armageddon=armageddon_result(state))
    outcome = decide_duel(record)
    assert outcome.winner == "Northland" and outcome.reason is DuelReason.FORFEIT


def test_the_colour_lot_picks_who_chooses_and_only_that_team_chooses() -> None:
    state = nominate(nominate(drawn(C.OPEN), NORTH, "gus_ivar", BEFORE), SOUTH, "bruno_dias", BEFORE)
    state = reveal(state, BEFORE)
    with pytest.raises(KnockoutError, match="not the time to choose"):
        choose_colour(state, "Northland", "W")
    choosers = {draw_chooser(state, seed(n)).chooser for n in range(20)}
    assert choosers == {"Northland", "Southland"}
    state = draw_chooser(state, seed(3))
    assert state.chooser_lot is not None and check_lot(state.chooser_lot)
    other = "Southland" if state.chooser == "Northland" else "Northland"
    with pytest.raises(KnockoutError, match=f"{other} did not win the colour lot"):
        choose_colour(state, other, "W")
    chosen = choose_colour(state, state.chooser, "B")  # type: ignore[arg-type]
    assert chosen.white == other and chosen.phase is ArmageddonPhase.READY


def test_a_full_armageddon_decides_a_three_three_three_three_duel_for_white() -> None:
    clock = ArmageddonClock(white_seconds=300, black_seconds=240, increment_seconds=0)
    state = draw_category(fresh(clock), seed_drawing(C.GIRL))
    state = nominate(state, SOUTH, "fia_horta", BEFORE)
    state = nominate(state, NORTH, "frida_holm", BEFORE)
    state = draw_chooser(reveal(state, BEFORE), seed(11))
    state = choose_colour(state, state.chooser, "W")  # type: ignore[arg-type]
    game = armageddon_game(state)
    assert {game.white.name, game.black.name} == {"Frida Holm", "Fia Horta"}
    assert game.white_team == state.chooser
    assert (game.clock.white_seconds, game.clock.black_seconds, game.clock.increment_seconds) == (300, 240, 0)
    state = record_armageddon(state, GameResult.WHITE_WINS)
    assert state.phase is ArmageddonPhase.FINISHED
    public = public_view(state, BEFORE)
    assert public.result is GameResult.WHITE_WINS and public.white == state.chooser

    outcome = decide_duel(
        DuelRecord("IX", "Northland", "Southland", _level_matches(), armageddon=armageddon_result(state))
    )
    assert outcome.reason is DuelReason.ARMAGEDDON
    assert outcome.winner == game.white_team


def test_the_game_cannot_be_recorded_before_colours_are_settled() -> None:
    with pytest.raises(KnockoutError, match="colours are not settled"):
        record_armageddon(drawn(C.OPEN), GameResult.DRAW)


def _level_matches() -> tuple[DuelMatch, DuelMatch]:
    draws = tuple([GameResult.DRAW] * 6)
    return DuelMatch(draws), DuelMatch(draws)


def both_nominated_in_open() -> ArmageddonState:
    """An open-category Armageddon with both nominations in and revealed before the deadline."""
    state = nominate(nominate(drawn(C.OPEN), NORTH, "gus_ivar", BEFORE), SOUTH, "bruno_dias", BEFORE)
    return reveal(state, BEFORE)


def test_an_armageddon_needs_two_different_teams() -> None:
    with pytest.raises(KnockoutError, match=r"^duel IX: a team cannot meet itself$"):
        start_armageddon(
            duel_key="IX",
            teams=("Northland", "Northland"),
            team_format=FORMAT,
            deadline=DEADLINE,
            match2_lineups=(NORTH_M2, NORTH_M2),
        )


def test_the_armageddon_keeps_the_clock_of_the_event_file() -> None:
    assert fresh(ArmageddonClock(360, 300, 2)).clock == ArmageddonClock(360, 300, 2)


def test_a_male_player_is_refused_for_the_girl_category_because_of_his_sex() -> None:
    with pytest.raises(
        NominationError,
        match=r"^Gus Ivar cannot play the girl Armageddon: the girl category is for female players$",
    ):
        nominate(drawn(C.GIRL), NORTH, "gus_ivar", BEFORE)


def test_a_nomination_keeps_the_time_it_was_submitted() -> None:
    state = nominate(drawn(C.OPEN), SOUTH, "bruno_dias", BEFORE)
    assert state.sealed == (None, Nomination("Southland", SOUTH.roster[1].player, BEFORE))


def test_the_colour_lot_and_the_colour_choice_come_in_their_turn_and_only_w_or_b() -> None:
    with pytest.raises(KnockoutError, match=r"^duel IX: not the time for the colour lot \(nominating\)$"):
        draw_chooser(drawn(C.OPEN), seed(1))
    state = draw_chooser(both_nominated_in_open(), seed(3))
    with pytest.raises(KnockoutError, match=r"^choose W or B, not 'X'$"):
        choose_colour(state, state.chooser, "X")  # type: ignore[arg-type]


def test_no_game_and_no_result_for_the_duel_before_colours_are_settled() -> None:
    state = draw_chooser(both_nominated_in_open(), seed(3))
    assert armageddon_result(state) is None
    with pytest.raises(KnockoutError, match=r"^duel IX: colours are not settled yet \(choose_colour\)$"):
        armageddon_game(state)


def test_the_game_gives_the_second_team_white_when_it_has_white() -> None:
    state = draw_chooser(both_nominated_in_open(), seed(3))
    state = choose_colour(state, state.chooser, "W" if state.chooser == "Southland" else "B")  # type: ignore[arg-type]
    game = armageddon_game(state)
    assert (game.white_team, game.black_team, game.white.name, game.black.name) == (
        "Southland",
        "Northland",
        "Bruno Dias",
        "Gus Ivar",
    )


def forfeited_by_southland() -> ArmageddonState:
    """Southland had nobody on board 1 in match 2 and nominated nobody: Northland has White and wins."""
    state = fresh(lineups=(NORTH_M2, (None, *SOUTH_M2[1:])))
    state = reveal(draw_category(state, seed_drawing(C.OPEN)), DEADLINE)
    assert (state.white, state.result) == ("Northland", GameResult.WHITE_WINS_FORFEIT)
    return state


@pytest.mark.parametrize(
    "state",
    [
        forfeited_by_southland(),
        # As a service could load it: White's side is the one with nobody, or has no nomination at all.
        replace(forfeited_by_southland(), white="Southland"),
        replace(forfeited_by_southland(), sealed=(None, forfeited_by_southland().sealed[1])),
    ],
    ids=["black-missing", "white-has-nobody", "white-not-nominated"],
)
def test_an_armageddon_with_a_side_missing_has_no_game_to_set_up(state: ArmageddonState) -> None:
    with pytest.raises(KnockoutError, match=r"^duel IX: the Armageddon was decided by forfeit, no game$"):
        armageddon_game(state)


def test_a_match_two_lineup_that_ends_on_the_categorys_first_board_still_gives_the_default() -> None:
    # Women's first board is board 3: lineups of three boards hold it.
    state = fresh(lineups=(NORTH_M2[:3], SOUTH_M2[:3]))
    state = reveal(draw_category(state, seed_drawing(C.WOMEN)), DEADLINE)
    assert [(n.player.name, n.by_default) for n in state.sealed if n and n.player] == [
        ("Hedda Juul", True),
        ("Clara Elias", True),
    ]
    assert state.phase is ArmageddonPhase.DRAW_CHOOSER


def test_a_match_two_lineup_shorter_than_the_categorys_first_board_gives_no_default() -> None:
    state = fresh(lineups=((), ()))
    state = reveal(draw_category(state, seed_drawing(C.OPEN)), DEADLINE)
    assert (state.phase, state.result) == (ArmageddonPhase.FINISHED, GameResult.DOUBLE_FORFEIT)


def test_the_public_view_shows_every_settled_step_and_the_nominees_accounts() -> None:
    clock = ArmageddonClock(360, 300, 2)
    state = draw_category(fresh(clock), seed_drawing(C.OPEN))
    state = nominate(nominate(state, NORTH, "gus_ivar", BEFORE), SOUTH, "bruno_dias", BEFORE)
    state = draw_chooser(reveal(state, BEFORE), seed(3))
    view = public_view(state, BEFORE)
    assert (view.duel_key, view.teams, view.phase, view.category, view.deadline, view.clock) == (
        "IX",
        ("Northland", "Southland"),
        ArmageddonPhase.CHOOSE_COLOUR,
        C.OPEN,
        DEADLINE,
        clock,
    )
    assert view.category_lot is not None and view.category_lot == state.category_lot
    assert view.chooser_lot is not None and view.chooser_lot == state.chooser_lot
    assert view.chooser in ("Northland", "Southland") and view.chooser == view.chooser_lot.chosen
    assert view.nominations == (
        PublicNomination("Northland", "Gus Ivar", "gus_ivar", False),
        PublicNomination("Southland", "Bruno Dias", "bruno_dias", False),
    )


def test_the_clock_is_described_for_people_in_minutes_and_seconds() -> None:
    assert ArmageddonClock().describe() == "White 5 min, Black 4 min, no increment"
    assert ArmageddonClock(360, 300, 2).describe() == "White 6 min, Black 5 min, +2 s"
    assert ArmageddonClock(330, 45, 0).describe() == "White 5 min 30 s, Black 45 s, no increment"
