"""What a simulated section ends with (docs/sections.md): its final lines for the combined classification
and its board prizes, read from its Swiss stages as played.

Pure helpers of ``domain/simulation.py``: a section's final standings become ``SectionPlace`` lines
(domain/combined.py), its Swiss boards the ``BoardPlayer`` games of the board prizes
(domain/board_prizes.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from orchestrator.domain.board_prizes import BoardPlayer
from orchestrator.domain.combined import SectionPlace
from orchestrator.domain.performance import PlayedGame
from orchestrator.domain.scoring import board_colours
from orchestrator.domain.standings import Standings
from orchestrator.domain.swiss.simulate import SimulatedSwiss
from orchestrator.domain.teams import Player, Team


def section_places(standings: Standings, teams: Mapping[str, Team]) -> tuple[SectionPlace, ...]:
    """A section's final standings as the combined classification reads them: place, match points and the
    tie-breaks that follow them in the chain (TB1-TB3 of Appendix 2.I with the Olympiad 2026 chain)."""
    chain = [code for code in standings.chain if code != "LOT"]
    return tuple(
        SectionPlace(
            federation=teams[row.team].federation,
            team=row.team,
            place=row.rank,
            mp=row.values[chain[0]],
            tiebreaks=tuple(row.values[code] for code in chain[1:]),
        )
        for row in standings.rows
    )


def board_players(stages: Iterable[SimulatedSwiss], teams: Mapping[str, Team]) -> tuple[BoardPlayer, ...]:
    """Every player who played in ``stages``, at their board number of the team list (a reserve after the
    last main board, as docs/board-prizes.md lists them), with the games played (each match's lineups as
    fielded: the main players when the round kept none; a bye is no game)."""
    games: dict[tuple[str, str], list[PlayedGame]] = {}
    fielded: dict[tuple[str, str], Player] = {}
    for stage in stages:
        for played in stage.rounds:
            lineups = played.lineups or tuple(
                (teams[p.first].main_players, teams[p.second].main_players) for p in played.pairing.pairings
            )
            for pairing, results, (first, second) in zip(
                played.pairing.pairings, played.boards, lineups, strict=True
            ):
                colours = board_colours(len(results))
                for a, b, result, colour in zip(first, second, results, colours, strict=True):
                    a_half, b_half = (
                        (result.white_half, result.black_half)
                        if colour == "W"
                        else (result.black_half, result.white_half)
                    )
                    for team, player, opponent, half in (
                        (pairing.first, a, b, a_half),
                        (pairing.second, b, a, b_half),
                    ):
                        fielded[(team, player.account)] = player
                        games.setdefault((team, player.account), []).append(PlayedGame(opponent.rating, half))
    players: list[BoardPlayer] = []
    for (team, account), played_games in games.items():
        number = _list_number(teams[team], account)
        players.append(BoardPlayer(account, fielded[team, account].name, team, number, tuple(played_games)))
    return tuple(players)


def _list_number(team: Team, account: str) -> int:
    """The player's board number of the team list: a main player's board, a reserve after the last one."""
    entry = next(entry for entry in team.roster if entry.player.account == account)
    if entry.main_board is not None:
        return entry.main_board
    return sum(1 for e in team.roster if e.main_board is not None) + 1
