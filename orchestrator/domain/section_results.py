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
from orchestrator.domain.teams import Team


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
    """Every main player of the teams that played ``stages``, at their board of the team list, with the
    games they played (the simulation fields the main players on their boards; a bye is no game)."""
    games: dict[tuple[str, int], list[PlayedGame]] = {}
    for stage in stages:
        for played in stage.rounds:
            for pairing, results in zip(played.pairing.pairings, played.boards, strict=True):
                first, second = teams[pairing.first].main_players, teams[pairing.second].main_players
                colours = board_colours(len(results))
                for board, (result, colour) in enumerate(zip(results, colours, strict=True), start=1):
                    a, b = first[board - 1], second[board - 1]
                    a_half, b_half = (
                        (result.white_half, result.black_half)
                        if colour == "W"
                        else (result.black_half, result.white_half)
                    )
                    games.setdefault((pairing.first, board), []).append(PlayedGame(b.rating, a_half))
                    games.setdefault((pairing.second, board), []).append(PlayedGame(a.rating, b_half))
    players: list[BoardPlayer] = []
    for (team, board), played_games in games.items():
        player = teams[team].main_players[board - 1]
        players.append(BoardPlayer(player.account, player.name, team, board, tuple(played_games)))
    return tuple(players)
