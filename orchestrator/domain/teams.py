"""Teams, players, board categories and eligibility (docs/rules.md §1)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    """Board categories of the 2020 format; which board has which category is event configuration. The
    value is the event file's word and the stored ``player.category`` and ``armageddon.category``."""

    OPEN = "open"
    WOMEN = "women"
    JUNIOR = "junior"
    GIRL = "girl"


class Sex(StrEnum):
    """A player's sex as the roster and the stored ``player.sex`` write it (TRF record 001 writes ``w``
    for ``f``, domain/trf/players.py)."""

    MALE = "m"
    FEMALE = "f"


# FIDE titles as TRF record 001 writes them (columns 11-13), and the published development coefficients
# (FIDE B.02 8.3.3) a roster may give.
TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
K_FACTORS = (10, 20, 40)
MAX_FIDE_ID = 99_999_999_999  # TRF record 001 columns 58-68


@dataclass(frozen=True, slots=True)
class Player:
    """A player of a roster. The FIDE data (id, title, federation, the K of the FIDE list) is optional: an
    online event can do without it; a rated event and its TRF need it (docs/ratings.md)."""

    name: str
    account: str  # game-server account name
    sex: Sex
    birth_year: int
    rating: int
    fide_id: int | None = None
    title: str | None = None
    federation: str | None = None  # the player's FIDE federation when it is not the team's
    k_factor: int | None = None


def fide_data_problems(
    *, fide_id: int | None, title: str | None, federation: str | None, k: int | None
) -> list[tuple[str, str]]:
    """What is wrong with a player's FIDE data: (field, one-sentence problem) for every problem."""
    problems: list[tuple[str, str]] = []
    if fide_id is not None and not 1 <= fide_id <= MAX_FIDE_ID:
        problems.append(
            ("fide_id", f"fide_id must be a FIDE number between 1 and {MAX_FIDE_ID}, found {fide_id}")
        )
    if title is not None and title not in TITLES:
        problems.append(("title", f"title must be one of {', '.join(TITLES)}, found {title!r}"))
    if federation is not None and not re.fullmatch(r"[A-Z]{3}", federation):
        problems.append(
            ("federation", f"federation must be a three-letter code such as NOR, found {federation!r}")
        )
    if k is not None and k not in K_FACTORS:
        problems.append(
            ("k", f"k must be one of {', '.join(map(str, K_FACTORS))} (FIDE B.02 8.3.3), found {k}")
        )
    return problems


@dataclass(frozen=True, slots=True)
class BoardOrder:
    """The order every lineup keeps (docs/rules.md §10, "Board order"; the event file's
    ``team_format.board_order``).

    ``fixed``: the team's own order, fixed before the event (the Olympiad: staff rank all players of each
    team, and a lineup plays them in that order): main players by board, then the reserves. ``rating_
    tolerance``: lineups in rating order, a player rated at most this many points above a player on a
    higher board (as some team championships ask). Both may apply; neither is the default."""

    fixed: bool = False
    rating_tolerance: int | None = None


@dataclass(frozen=True, slots=True)
class Seated:
    """A lineup's player as the board-order rule sees it: the name, the team's rank (1 = first in the
    team's order) and the rating."""

    name: str
    rank: int
    rating: int


@dataclass(frozen=True, slots=True)
class OrderBreach:
    """Two players of a lineup out of order: ``above`` (on ``above_board``) should play below ``below`` (on
    ``below_board``); ``rule`` is ``fixed`` (the team's order) or ``rating`` (more than the tolerance)."""

    rule: str
    above_board: int
    above: Seated
    below_board: int
    below: Seated


def board_order_breaches(order: BoardOrder, lineup: Sequence[Seated | None]) -> list[OrderBreach]:
    """Every pair of players of ``lineup`` (board 1 first; None: an empty board) that breaks ``order``, by
    the higher board then the lower one: a player ranked after one on a lower board (fixed order), and a
    player rated more than the tolerance above one on a higher board (rating order)."""
    breaches: list[OrderBreach] = []
    seated = [(board, player) for board, player in enumerate(lineup, start=1) if player is not None]
    for index, (high_board, high) in enumerate(seated):
        for low_board, low in seated[index + 1 :]:
            if order.fixed and high.rank > low.rank:
                breaches.append(OrderBreach("fixed", high_board, high, low_board, low))
            if order.rating_tolerance is not None and low.rating - high.rating > order.rating_tolerance:
                breaches.append(OrderBreach("rating", high_board, high, low_board, low))
    return breaches


def team_ranks(roster: Sequence[tuple[int, int | None]]) -> dict[int, int]:
    """Each player's place in the team's fixed order (1 first) from ``(player key, main board or None)`` in
    roster order: the main players by board, then the reserves in roster order (docs/rules.md §10)."""
    mains = sorted((board, key) for key, board in roster if board is not None)
    reserves = [key for key, board in roster if board is None]
    return {key: rank for rank, key in enumerate([key for _board, key in mains] + reserves, start=1)}


@dataclass(frozen=True, slots=True)
class TeamFormat:
    """Board categories in board order, the junior cut-off year, how many reserves per category and the
    board order lineups keep."""

    board_categories: tuple[Category, ...]
    cutoff_year: int
    reserves: tuple[tuple[Category, int], ...] = ()
    board_order: BoardOrder = BoardOrder()

    @property
    def boards(self) -> int:
        return len(self.board_categories)

    def category_of(self, board: int) -> Category:
        return self.board_categories[board - 1]

    def first_board_of(self, category: Category) -> int | None:
        """The first board of a category (Armageddon default nominee, docs/rules.md §5)."""
        for index, board_category in enumerate(self.board_categories, start=1):
            if board_category is category:
                return index
        return None


def is_eligible(player: Player, category: Category, cutoff_year: int) -> bool:
    """Who may play a board of ``category`` (docs/rules.md §1 table)."""
    if category is Category.OPEN:
        return True
    if category is Category.WOMEN:
        return player.sex is Sex.FEMALE
    if category is Category.JUNIOR:
        return player.birth_year >= cutoff_year
    return player.sex is Sex.FEMALE and player.birth_year >= cutoff_year


# Who a section admits (docs/sections.md): anybody, or female players only (the Women section).
SECTION_ELIGIBILITIES = ("open", "female")


def section_admits(eligibility: str, player: Player) -> bool:
    """Whether a section of ``eligibility`` (``open`` or ``female``) admits ``player`` to a team's roster."""
    return eligibility != "female" or player.sex is Sex.FEMALE


def section_problem(player: Player, section_name: str) -> str:
    """Why a player may not be on a roster of a female-only section, as one sentence."""
    return f"{player.name} is not female: the {section_name} section admits female players only"


@dataclass(frozen=True, slots=True)
class RosterEntry:
    player: Player
    main_board: int | None  # board of a main player (default lineup); None for a reserve
    category: Category  # the category the player is registered for


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    federation: str  # three-letter code
    seed: int  # seeding rank (2020: the 2018 Gaprindashvili Cup ranking)
    roster: tuple[RosterEntry, ...]
    section: str = ""  # the key of the team's section; "" in an event without sections (docs/sections.md)

    @property
    def main_players(self) -> tuple[Player, ...]:
        mains = sorted((e for e in self.roster if e.main_board is not None), key=lambda e: e.main_board or 0)
        return tuple(e.player for e in mains)

    @property
    def strength(self) -> int:
        """Average rating of the main players, in whole points rounded down (docs/rules.md §3 pool
        strength)."""
        mains = self.main_players
        return sum(p.rating for p in mains) // len(mains) if mains else 0


# How many teams the organising federation may enter in a section (Olympiad Pairing Rules 2.1–2.2): a
# second ("B") team always, a third ("C") only when the field without it is odd, so that it makes it even.
ORGANISER_TEAMS = ("A", "B", "C")


# Why a federation's extra team may not enter (``extra_team_refusal``).
NOT_ORGANISER, TOO_MANY, ODD_FIELD = "not-organiser", "too-many", "odd-field"


def extra_team_refusal(*, number: int, federation: str, organiser: str | None, field_size: int) -> str | None:
    """Why the ``number``-th team (1, 2, 3...) of ``federation`` in a section of ``field_size`` teams may
    not enter (``NOT_ORGANISER``, ``TOO_MANY``, ``ODD_FIELD``), or None when it may (Olympiad Pairing Rules
    2.1–2.2)."""
    if number <= 1:
        return None
    if federation != organiser:
        return NOT_ORGANISER
    if number == 2:
        return None
    if number > len(ORGANISER_TEAMS):
        return TOO_MANY
    return ODD_FIELD if field_size % 2 else None


def extra_team_problem(*, number: int, federation: str, organiser: str | None, field_size: int) -> str | None:
    """``extra_team_refusal`` as the end of an English sentence (the event file's validator)."""
    refusal = extra_team_refusal(
        number=number, federation=federation, organiser=organiser, field_size=field_size
    )
    if refusal == NOT_ORGANISER:
        return "only the organising federation may enter a second team (Olympiad Pairing Rules 2.1)"
    if refusal == TOO_MANY:
        return (
            f"the organising federation enters at most {len(ORGANISER_TEAMS)} teams "
            f"({', '.join(ORGANISER_TEAMS)}; Olympiad Pairing Rules 2.1–2.2)"
        )
    if refusal == ODD_FIELD:
        return (
            f"a C team is entered only to make an odd field even, and with it the field has {field_size} "
            "teams (Olympiad Pairing Rules 2.2)"
        )
    return None
