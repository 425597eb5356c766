"""FIDE rating changes for a rated event (FIDE Rating Regulations B.02, effective 1 March 2024 with the
amendment of 1 October 2025, Art. 8.3; docs/ratings.md).

Pure and exact: probabilities come from table 8.1.2 as hundredths, every sum is a Fraction, and only the
rating change of the period is rounded (8.3.4: to the nearest whole number, .5 away from zero).

- A game counts only when it was played over the board against a rated opponent (8.3.1; forfeits are
  not rated, B.02 5.1). Games against unrated opponents and unplayed games are listed as not rated.
- D, the rating difference, counts as at most 400 points for a player rated below 2650; from 2650 up the
  real difference is used (8.3.1 as amended on 1 October 2025).
- K (8.3.3): 40 for a player new to the list (fewer than 30 rated games in all), 40 until the end of the
  year of the player's 18th birthday while rated under 2300, 10 once the published rating has reached
  2400, 20 otherwise; with n rated games in the period, K is lowered to the largest whole number with
  K × n ≤ 700.
- An unrated player gets no rating change here: a first rating (B.02 8.2) needs games from more than one
  event and is FIDE's to compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from orchestrator.domain.teams import K_FACTORS

MAX_COUNTED_DIFFERENCE = 400  # 8.3.1
NO_CAP_FROM = 2650  # 8.3.1 as amended 1 October 2025
K_PRODUCT_CAP = 700  # 8.3.3
NEW_PLAYER_GAMES = 30  # 8.3.3: K = 40 until events with at least 30 games are completed

# B.02 table 8.1.2: the largest D of each band and the higher-rated player's PD in hundredths; the lower
# rated player's PD is 100 minus it. Above 735 the higher-rated player's PD is 1.00.
_PD_BANDS: tuple[tuple[int, int], ...] = (
    (3, 50), (10, 51), (17, 52), (25, 53), (32, 54), (39, 55), (46, 56), (53, 57), (61, 58), (68, 59),
    (76, 60), (83, 61), (91, 62), (98, 63), (106, 64), (113, 65), (121, 66), (129, 67), (137, 68),
    (145, 69), (153, 70), (162, 71), (170, 72), (179, 73), (188, 74), (197, 75), (206, 76), (215, 77),
    (225, 78), (235, 79), (245, 80), (256, 81), (267, 82), (278, 83), (290, 84), (302, 85), (315, 86),
    (328, 87), (344, 88), (357, 89), (374, 90), (391, 91), (411, 92), (432, 93), (456, 94), (484, 95),
    (517, 96), (559, 97), (619, 98), (735, 99),
)  # fmt: skip


class RatingError(ValueError):
    """Input the rating calculation cannot use (a bad score, rating or game count)."""


def expected_score(rating: int, opponent_rating: int) -> Fraction:
    """PD, the player's expected score against the opponent (table 8.1.2), with the 400-point rule of
    8.3.1 applied for a player rated below 2650."""
    difference = abs(rating - opponent_rating)
    if rating < NO_CAP_FROM:
        difference = min(difference, MAX_COUNTED_DIFFERENCE)
    higher = next((pd for top, pd in _PD_BANDS if difference <= top), 100)
    hundredths = higher if rating >= opponent_rating else 100 - higher
    return Fraction(hundredths, 100)


@dataclass(frozen=True, slots=True)
class RatedPlayer:
    """What K depends on (8.3.3): the player's rating before the event, whether the player has completed
    30 rated games, whether the published rating ever reached 2400, and the birth year."""

    rating: int | None  # None: unrated
    rated_games_before: int = NEW_PLAYER_GAMES
    reached_2400: bool = False
    birth_year: int | None = None
    k: int | None = None  # the K of the player's FIDE list entry, when known: used as it is (before the cap)


def base_k(player: RatedPlayer, year: int) -> int:
    """K before the 700 cap (8.3.3); ``year`` is the year the rating period ends in. A K given with the
    player (from the FIDE list) is used as it is."""
    if player.rating is None:
        raise RatingError("an unrated player has no development coefficient")
    if player.k is not None:
        if player.k not in K_FACTORS:
            raise RatingError(f"K is 10, 20 or 40 (B.02 8.3.3), not {player.k}")
        return player.k
    if player.rated_games_before < NEW_PLAYER_GAMES:
        return 40
    junior = player.birth_year is not None and year - player.birth_year <= 18
    if junior and player.rating < 2300:
        return 40
    if player.reached_2400 or player.rating >= 2400:
        return 10
    return 20


def capped_k(k: int, games: int) -> int:
    """The largest whole K' ≤ K with K' × n ≤ 700 (8.3.3)."""
    if games <= 0:
        return k
    return min(k, K_PRODUCT_CAP // games)


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the player: the round, the opponent's rating (None: unrated), the player's score in
    half-points (0, 1, 2) and whether it was played over the board (False: forfeit, bye, unplayed)."""

    round: int
    opponent_rating: int | None
    half_points: int
    played: bool = True

    @property
    def rated(self) -> bool:
        return self.played and self.opponent_rating is not None


@dataclass(frozen=True, slots=True)
class GameChange:
    """A rated game's expected score PD, ΔR = score − PD and its share K × ΔR (unrounded)."""

    round: int
    opponent_rating: int
    score: Fraction
    expected: Fraction
    delta: Fraction
    change: Fraction


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A player's result for the event: K used, each rated game, ΣΔR, the rounded change and the new
    rating; ``not_rated`` lists the rounds whose games did not count."""

    rating: int
    k: int
    games: tuple[GameChange, ...]
    not_rated: tuple[int, ...]
    expected: Fraction  # sum of PD
    score: Fraction
    delta: Fraction  # ΣΔR
    change: int  # round(ΣΔR × K), .5 away from zero (8.3.4)

    @property
    def new_rating(self) -> int:
        return self.rating + self.change


def round_half_away(value: Fraction) -> int:
    """Nearest whole number, .5 rounded away from zero (8.3.4)."""
    magnitude = (2 * abs(value.numerator) + value.denominator) // (2 * value.denominator)
    return magnitude if value >= 0 else -magnitude


def rating_change(player: RatedPlayer, games: Sequence[Game], *, year: int) -> RatingChange | None:
    """The player's rating change over the event's games (8.3.2): None for an unrated player."""
    if player.rating is None:
        return None
    for game in games:
        if game.half_points not in (0, 1, 2):
            raise RatingError(f"round {game.round}: a game scores 0, ½ or 1, not {game.half_points}/2")
    rated = [game for game in games if game.rated]
    k = capped_k(base_k(player, year), len(rated))
    changes: list[GameChange] = []
    for game in rated:
        assert game.opponent_rating is not None  # rated games have a rated opponent
        score = Fraction(game.half_points, 2)
        expected = expected_score(player.rating, game.opponent_rating)
        changes.append(GameChange(game.round, game.opponent_rating, score, expected, score - expected,
                                  (score - expected) * k))  # fmt: skip
    delta = sum((change.delta for change in changes), Fraction(0))
    return RatingChange(
        rating=player.rating,
        k=k,
        games=tuple(changes),
        not_rated=tuple(game.round for game in games if not game.rated),
        expected=sum((change.expected for change in changes), Fraction(0)),
        score=sum((change.score for change in changes), Fraction(0)),
        delta=delta,
        change=round_half_away(delta * k),
    )
