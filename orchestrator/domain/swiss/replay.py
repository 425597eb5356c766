"""Replaying a published team Swiss round by round (docs/swiss.md, "Replaying a real Olympiad").

For each round r the state is built from the published results of the rounds before r (the teams in their
published starting-rank order, a team missing from a published round not paired in it), round r is paired
by our engine and its pairs are compared with the published ones, as unordered pairs of teams. Pure: the
caller reads the published data (``tests/fixtures/olympiads/``) and hands it over as plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.c046 import teams_before
from orchestrator.domain.swiss.model import SwissState, SwissTeam
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022, SwissPairer

# A board's published result (White's score first) as the first-named team's half-points on an odd board
# (White there) and on an even board (Black there). "0-0": both sides lost (a double forfeit). A board with
# no published game (None) gives nothing to either side: the source does not say who forfeited it.
_ODD = {"1-0": 2, "0-1": 0, "1/2-1/2": 1, "0-0": 0}
_EVEN = {"1-0": 0, "0-1": 2, "1/2-1/2": 1, "0-0": 0}


@dataclass(frozen=True, slots=True)
class PublishedMatch:
    """One published match: ``first`` is the first-named team (White on board 1), ``boards`` the results
    board by board ("1-0", "0-1", "1/2-1/2", "0-0", None for a board with no published game)."""

    first: str
    second: str
    boards: tuple[str | None, ...]

    def game_points(self) -> tuple[int, int]:
        """(first, second) game points in half-points."""
        first = second = 0
        for board, result in enumerate(self.boards, 1):
            if result is None:
                continue
            mine = (_ODD if board % 2 else _EVEN)[result]
            theirs = 0 if result == "0-0" else 2 - mine
            first, second = first + mine, second + theirs
        return first, second


@dataclass(frozen=True, slots=True)
class Difference:
    """A published pair our engine did not make: both teams as (name, MP before the round, rank by
    art. 3.2), the opponent our engine gave each (None: the bye or not paired), and the article whose
    step the two pairings part at (``article``): the engines do not report their decisions, so it is
    told from the scores, a float between score groups when the two teams' match points differ, the
    pairing within one score group otherwise."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]
    ours: tuple[str | None, str | None]
    article: str = ""


@dataclass(frozen=True, slots=True)
class RoundReplay:
    round: int
    reproduced: int
    total: int
    differences: tuple[Difference, ...]


def published_state(
    teams: Sequence[str],
    rounds: Mapping[int, Sequence[PublishedMatch]],
    *,
    before: int,
    boards: int,
    total_rounds: int,
    pairing: str,
    unpaired_draws: frozenset[tuple[int, str]] = frozenset(),
) -> SwissState:
    """The stage before round ``before``: ``teams`` in starting-rank order (number 1 first), the published
    results of the earlier rounds, and a team absent from a published round up to ``before`` not paired in
    it (the source cannot tell an unpaired team from a forfeited match: see the fixture's SOURCE.md)."""
    present = {rnd: {t for m in matches for t in (m.first, m.second)} for rnd, matches in rounds.items()}
    entries = tuple(
        SwissTeam(
            name,
            absent=frozenset(r for r in range(1, before + 1) if r in present and name not in present[r]),
        )
        for name in teams
    )
    records = []
    for rnd in range(1, before):
        for match in rounds.get(rnd, ()):
            gp_first, gp_second = match.game_points()
            records.append(MatchRecord(rnd, match.first, match.second, gp_first, gp_second))
        records += [MatchRecord(rnd, name, None, boards, 0) for r, name in sorted(unpaired_draws) if r == rnd]
    return SwissState(
        entries, boards=boards, rounds=total_rounds, matches=tuple(records), pairing=pairing, name="replay"
    )


def replay_round(
    pairer: SwissPairer,
    teams: Sequence[str],
    rounds: Mapping[int, Sequence[PublishedMatch]],
    round_no: int,
    *,
    boards: int,
    total_rounds: int,
    pairing: str,
    unpaired_draws: frozenset[tuple[int, str]] = frozenset(),
) -> RoundReplay:
    """Round ``round_no`` paired by ``pairer`` from the published results before it, against the
    published pairs."""
    state = published_state(
        teams,
        rounds,
        before=round_no,
        boards=boards,
        total_rounds=total_rounds,
        pairing=pairing,
        unpaired_draws=unpaired_draws,
    )
    published = rounds[round_no]
    return _compare(pairer, state, round_no, [(m.first, m.second) for m in published])


# The step of each system a difference is told from (``Difference.article``): (a float, within a group).
ARTICLES = {
    OLYMPIAD_2022: (
        "Olympiad Pairing Rules 2022, art. 6 (a float between score groups)",
        "Olympiad Pairing Rules 2022, arts. 6-7 (the pairing within a score group)",
    ),
}
_C046 = ("C.04.6 (a float between brackets)", "C.04.6 (the pairing within a bracket)")


def _compare(
    pairer: SwissPairer, state: SwissState, round_no: int, published: Sequence[tuple[str, str]]
) -> RoundReplay:
    """Round ``round_no`` paired by ``pairer`` from ``state`` against the ``published`` pairs."""
    ours = pairer.pair_round(state, round_no)
    opponent: dict[str, str] = {}
    for p in ours.pairings:
        opponent[p.first], opponent[p.second] = p.second, p.first
    standing = teams_before(state, round_no)
    by_name = {team.name: team for team in standing.values()}
    ranked = sorted(standing.values(), key=lambda t: (-t.mp, t.tpn))
    rank = {team.name: index for index, team in enumerate(ranked, 1)}

    def who(name: str) -> tuple[str, int, int]:
        return name, by_name[name].mp, rank[name]

    float_, within = ARTICLES.get(state.pairing, _C046)
    differences = tuple(
        Difference(
            who(first),
            who(second),
            (opponent.get(first), opponent.get(second)),
            float_ if by_name[first].mp != by_name[second].mp else within,
        )
        for first, second in published
        if opponent.get(first) != second
    )
    return RoundReplay(round_no, len(published) - len(differences), len(published), differences)


def state_before(state: SwissState, round_no: int) -> SwissState:
    """A stage's state before ``round_no``: the matches, byes and points adjusted of the rounds before it
    (record 299's points of round r count from round r + 1 on), absences and requested byes up to
    ``round_no``."""
    teams = tuple(replace(t, absent=frozenset(r for r in t.absent if r <= round_no)) for t in state.teams)
    return replace(
        state,
        teams=teams,
        matches=tuple(m for m in state.matches if m.round < round_no),
        adjustments=tuple(a for a in state.adjustments if a.round < round_no or not a.pairing),
        requested_byes=tuple(b for b in state.requested_byes if b.round <= round_no),
    )


def replay_state(pairer: SwissPairer, state: SwissState, played: int) -> tuple[RoundReplay, ...]:
    """Every round 1..``played`` of a whole stage (a TRF file's, ``read_team_trf``) paired by ``pairer``
    from the rounds before it and compared with the stage's own pairs."""
    return tuple(
        _compare(
            pairer,
            state_before(state, rnd),
            rnd,
            [(m.team_a, m.team_b) for m in state.matches if m.round == rnd and m.team_b is not None],
        )
        for rnd in range(1, played + 1)
    )


def replay(
    pairer: SwissPairer,
    teams: Sequence[str],
    rounds: Mapping[int, Sequence[PublishedMatch]],
    *,
    boards: int,
    total_rounds: int,
    pairing: str,
    unpaired_draws: frozenset[tuple[int, str]] = frozenset(),
) -> tuple[RoundReplay, ...]:
    """Every published round replayed (``replay_round``)."""
    return tuple(
        replay_round(
            pairer,
            teams,
            rounds,
            rnd,
            boards=boards,
            total_rounds=total_rounds,
            pairing=pairing,
            unpaired_draws=unpaired_draws,
        )
        for rnd in sorted(rounds)
    )
