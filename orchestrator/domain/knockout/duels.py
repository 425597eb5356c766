"""Play-off duels: match points, then the Armageddon, a forfeit or a ruling (docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    GameResult,
    HalfPoints,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    board_colours,
    format_points,
    match_game_points,
)


class KnockoutError(ValueError):
    """A duel, Armageddon step or bracket that does not fit the rules; the message says why."""


def duel_match_colours(match_no: int, boards: int = 6) -> tuple[str, ...]:
    """Colours of the duel's first-named team, board by board: odd boards White in match 1, reversed in 2."""
    if match_no not in (1, 2):
        raise KnockoutError(f"a duel has matches 1 and 2, not {match_no}")
    return board_colours(boards, first_named=match_no == 1)


@dataclass(frozen=True, slots=True)
class DuelMatch:
    """One match of a duel: board results from White's side, or a whole-match forfeit.

    ``MatchForfeit.A_WINS`` means the duel's *first* team wins because the second did not play.
    """

    results: tuple[GameResult, ...] = ()
    forfeit: MatchForfeit = MatchForfeit.NONE

    @property
    def is_final(self) -> bool:
        if self.forfeit is not MatchForfeit.NONE:
            return True
        return bool(self.results) and all(result.is_final for result in self.results)


@dataclass(frozen=True, slots=True)
class ArmageddonResult:
    """The Armageddon game: which team had White, and the result from White's side."""

    white: str
    result: GameResult


@dataclass(frozen=True, slots=True)
class Ruling:
    """An exceptional outcome recorded by staff (2020 final: joint winners after a disconnection appeal)."""

    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class DuelRecord:
    """Everything known about one duel; ``first`` is named first in match 1."""

    key: str
    first: str
    second: str
    matches: tuple[DuelMatch, ...] = ()
    armageddon: ArmageddonResult | None = None
    withdrawn: str | None = None  # withdrew before the duel was decided: loses every remaining game
    ruling: Ruling | None = None
    boards: int = 6


class DuelReason(Enum):
    PENDING = "pending"  # a match is not final yet
    ARMAGEDDON_NEEDED = "armageddon_needed"  # level on match points, Armageddon not played yet
    MATCH_POINTS = "match_points"
    ARMAGEDDON = "armageddon"
    FORFEIT = "forfeit"  # the loser's forfeit (a match or the Armageddon) decided the duel
    WITHDRAWAL = "withdrawal"
    RULING = "ruling"  # staff decision with a reason, one winner
    JOINT_WINNERS = "joint_winners"  # staff decision with a reason, both teams
    NEEDS_RULING = "needs_ruling"  # both Armageddon players forfeited: only staff can decide


@dataclass(frozen=True, slots=True)
class DuelOutcome:
    """Where a duel stands: who goes through (if anyone yet), why, and a sentence for the public pages."""

    key: str
    first: str
    second: str
    reason: DuelReason
    winners: tuple[str, ...]
    mp: tuple[int, int]  # first, second; over the final matches
    gp: tuple[HalfPoints, HalfPoints]  # shown, never used to decide
    sentence: str

    @property
    def is_decided(self) -> bool:
        return bool(self.winners)

    @property
    def winner(self) -> str | None:
        """The one team that goes through, or None (undecided or joint winners)."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def loser(self) -> str | None:
        winner = self.winner
        if winner is None:
            return None
        return self.second if winner == self.first else self.first


def _other(record: DuelRecord, team: str) -> str:
    return record.second if team == record.first else record.first


def _check_record(record: DuelRecord) -> None:
    teams = (record.first, record.second)
    if record.first == record.second:
        raise KnockoutError(f"duel {record.key}: a team cannot meet itself ({record.first})")
    if len(record.matches) > 2:
        raise KnockoutError(f"duel {record.key}: a duel has two matches, got {len(record.matches)}")
    for match_no, match in enumerate(record.matches, start=1):
        if match.results and len(match.results) != record.boards:
            raise KnockoutError(
                f"duel {record.key} match {match_no}: {len(match.results)} results for {record.boards} boards"
            )
        if match.results and match.forfeit is not MatchForfeit.NONE:
            raise KnockoutError(f"duel {record.key} match {match_no}: board results and a match forfeit")
    if record.withdrawn is not None and record.withdrawn not in teams:
        raise KnockoutError(f"duel {record.key}: {record.withdrawn} does not play in this duel")
    if record.armageddon is not None and record.armageddon.white not in teams:
        raise KnockoutError(
            f"duel {record.key}: Armageddon White {record.armageddon.white} is not in the duel"
        )
    if record.ruling is not None:
        if not record.ruling.winners or not set(record.ruling.winners) <= set(teams):
            raise KnockoutError(f"duel {record.key}: a ruling must name one or both teams of the duel")
        if not record.ruling.reason.strip():
            raise KnockoutError(f"duel {record.key}: an exceptional outcome needs a reason")


def duel_match_records(record: DuelRecord) -> list[MatchRecord]:
    """Final matches as MatchRecords (team_a = the duel's first team); a withdrawal forfeits the rest."""
    out: list[MatchRecord] = []
    matches = list(record.matches) + [DuelMatch()] * (2 - len(record.matches))
    for match_no, match in enumerate(matches, start=1):
        full = 2 * record.boards
        if match.forfeit is not MatchForfeit.NONE:
            gp = {
                MatchForfeit.A_WINS: (full, 0),
                MatchForfeit.B_WINS: (0, full),
                MatchForfeit.DOUBLE: (0, 0),
            }[match.forfeit]
            out.append(MatchRecord(match_no, record.first, record.second, *gp, match.forfeit))
        elif match.is_final:
            a, b = match_game_points(match.results, a_is_first_named=match_no == 1)
            out.append(MatchRecord(match_no, record.first, record.second, a, b))
        elif record.withdrawn is not None:
            forfeit = MatchForfeit.B_WINS if record.withdrawn == record.first else MatchForfeit.A_WINS
            gp = (0, full) if forfeit is MatchForfeit.B_WINS else (full, 0)
            out.append(MatchRecord(match_no, record.first, record.second, *gp, forfeit))
        else:
            break  # match 2 is not counted before match 1 is final
    return out


def _scores_text(matches: Sequence[MatchRecord]) -> str:
    parts = []
    for m in matches:
        note = " by forfeit" if m.forfeit is not MatchForfeit.NONE else ""
        parts.append(f"match {m.round} {format_points(m.gp_a)}–{format_points(m.gp_b)}{note}")
    return ", ".join(parts) if parts else "no match played"


def _forfeited_by(team: str, record: DuelRecord, matches: Sequence[MatchRecord]) -> bool:
    lost = MatchForfeit.B_WINS if team == record.first else MatchForfeit.A_WINS
    return any(m.forfeit in (lost, MatchForfeit.DOUBLE) for m in matches)


def decide_duel(record: DuelRecord, *, scoring: MatchScoring = DEFAULT_SCORING) -> DuelOutcome:
    """Where a duel stands (docs/rules.md §5): match points decide, then Armageddon; then forfeits or
    rulings."""
    _check_record(record)
    matches = duel_match_records(record)
    mp_a = sum(m.mp(scoring)[0] for m in matches)
    mp_b = sum(m.mp(scoring)[1] for m in matches)
    gp = (sum(m.gp_a for m in matches), sum(m.gp_b for m in matches))
    head = f"{record.first} – {record.second}: {_scores_text(matches)}"

    def outcome(reason: DuelReason, winners: tuple[str, ...], tail: str) -> DuelOutcome:
        return DuelOutcome(record.key, record.first, record.second, reason, winners, (mp_a, mp_b), gp, tail)

    if record.ruling is not None:
        winners = tuple(t for t in (record.first, record.second) if t in record.ruling.winners)
        if len(winners) == 2:
            text = f"{head}. {record.first} and {record.second} are joint winners: {record.ruling.reason}."
            return outcome(DuelReason.JOINT_WINNERS, winners, text)
        text = f"{head}. {winners[0]} goes through by decision: {record.ruling.reason}."
        return outcome(DuelReason.RULING, winners, text)

    if record.withdrawn is not None:
        winner = _other(record, record.withdrawn)
        text = f"{head}. {record.withdrawn} withdrew; {winner} goes through."
        return outcome(DuelReason.WITHDRAWAL, (winner,), text)

    if len(matches) < 2:
        return outcome(DuelReason.PENDING, (), f"{head}; the duel is not decided yet.")

    if mp_a != mp_b:
        winner, loser = (record.first, record.second) if mp_a > mp_b else (record.second, record.first)
        if record.armageddon is not None:
            raise KnockoutError(
                f"duel {record.key}: an Armageddon was recorded but {winner} won on match points"
            )
        high, low = max(mp_a, mp_b), min(mp_a, mp_b)
        if _forfeited_by(loser, record, matches):
            text = f"{head}. {winner} wins {high}–{low} on match points; {loser} forfeited a match."
            return outcome(DuelReason.FORFEIT, (winner,), text)
        text = f"{head}. {winner} wins {high}–{low} on match points."
        return outcome(DuelReason.MATCH_POINTS, (winner,), text)

    level = f"{head}. Level {mp_a}–{mp_b} on match points"
    game = record.armageddon
    if game is None or not game.result.is_final:
        return outcome(DuelReason.ARMAGEDDON_NEEDED, (), f"{level}: an Armageddon game decides.")
    black = _other(record, game.white)
    result = game.result
    if result is GameResult.DOUBLE_FORFEIT:
        text = f"{level}; both Armageddon players forfeited: staff must rule."
        return outcome(DuelReason.NEEDS_RULING, (), text)
    if result in (GameResult.WHITE_WINS, GameResult.WHITE_WINS_FORFEIT):
        winner, how = game.white, "White won"
    elif result is GameResult.DRAW:
        winner, how = black, "drawn with Black"
    else:
        winner, how = black, "Black won"
    if result.is_forfeit:
        loser = _other(record, winner)
        text = f"{level}; {loser} forfeited the Armageddon game, {winner} goes through."
        return outcome(DuelReason.FORFEIT, (winner,), text)
    colours = f"{game.white} White, {black} Black"
    text = f"{level}; Armageddon {result.value} ({colours}): {how}, {winner} goes through."
    return outcome(DuelReason.ARMAGEDDON, (winner,), text)
