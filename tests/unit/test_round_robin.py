from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import board_colours

# FIDE C.05 Annex 1, "9 or 10 players": the first number of each pair has White (board 1 for teams).
FIDE_10 = """\
1-10 2-9 3-8 4-7 5-6
10-6 7-5 8-4 9-3 1-2
2-10 3-1 4-9 5-8 6-7
10-7 8-6 9-5 1-4 2-3
3-10 4-2 5-1 6-9 7-8
10-8 9-7 1-6 2-5 3-4
4-10 5-3 6-2 7-1 8-9
10-9 1-8 2-7 3-6 4-5
5-10 6-4 7-3 8-2 9-1"""


def render(players: int) -> str:
    return "\n".join(" ".join(f"{p.first}-{p.second}" for p in rnd.pairings) for rnd in berger_table(players))


def test_ten_team_table_is_fide_berger_table_exactly() -> None:
    assert render(10) == FIDE_10


def test_first_named_team_has_white_on_odd_boards() -> None:
    assert board_colours(6) == ("W", "B", "W", "B", "W", "B")
    assert board_colours(6, first_named=False) == ("B", "W", "B", "W", "B", "W")


def test_nine_teams_use_the_ten_table_with_ten_as_bye() -> None:
    nine = berger_table(9)
    ten = berger_table(10)
    for r9, r10 in zip(nine, ten, strict=True):
        expected = [(p.first, p.second) for p in r10.pairings if 10 not in (p.first, p.second)]
        assert [(p.first, p.second) for p in r9.pairings] == expected
        assert r9.bye == next(p.first + p.second - 10 for p in r10.pairings if 10 in (p.first, p.second))


def test_every_pair_meets_exactly_once_for_sizes_up_to_twenty() -> None:
    for size in range(2, 21):
        met = [tuple(sorted((p.first, p.second))) for rnd in berger_table(size) for p in rnd.pairings]
        assert len(met) == len(set(met)) == size * (size - 1) // 2
