"""The database schema as SQLModel tables (the whole product's schema; later work only adds): the event
structure here, people and access in tables_accounts.py, the game-server side in tables_gameserver.py, the
public record in tables_record.py, the closed vocabularies and column helpers in tables_base.py; every name
of those is importable from here.

Conventions: integer ids, singular snake_case table names, ``_at`` columns are timezone-aware UTC
(``orchestrator.db.UTCDateTime``), closed vocabularies are strings guarded by CHECK constraints whose
values come from the ``StrEnum`` classes of tables_base.py, or from the domain's own for the words the
domain speaks: ``StageKind``, ``Sex``, ``Category``, ``LotKind``, ``Colour`` (stored as its ``word``),
``GameResult`` and ``MatchForfeit``; ``StageKind`` is imported here, so ``tables.StageKind`` is the domain's.
No relationships are declared: repositories run explicit queries (docs/architecture.md, habit 7).
"""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

import hashlib
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, Column, Index, Text, UniqueConstraint
from sqlalchemy import event as sa_event
from sqlalchemy.orm import deferred
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_accounts import AuditLog, LoginAttempt, Outbox, OutboxStatus, User
from orchestrator.adapters.tables_adjustments import ScoreAdjustment
from orchestrator.adapters.tables_base import (
    COLOUR_WORDS,
    FORFEIT_CODES,
    LOT_KINDS,
    OPEN_ROUND_STATUSES,
    RESULT_CODES,
    STAFF_ROLES,
    AppealStatus,
    ArmageddonStatus,
    BulkStatus,
    DuelStatus,
    EventStatus,
    LateChangeCause,
    LateChangeStatus,
    LinkStatus,
    MatchStatus,
    PoolStatus,
    ResultSource,
    Role,
    RoundStatus,
    StageStatus,
    SwissRoundRole,
    one_of,
    reference,
    timestamp,
)
from orchestrator.adapters.tables_gameserver import GameserverBulk, PlayerLink
from orchestrator.adapters.tables_outlook import Outlook
from orchestrator.adapters.tables_record import RecordEntry
from orchestrator.db import UTCDateTime
from orchestrator.domain import teams as domain_teams
from orchestrator.domain.event import POOL_KINDS, StageKind
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.scoring import Colour, GameResult, MatchForfeit
from orchestrator.domain.teams import Category, Sex

# --- event structure ----------------------------------------------------------------------------------


def definition_digest(text: str) -> str:
    """The digest ``Event.definition_digest`` holds for a definition ``text`` (32 hex digits)."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# The YAML as staff wrote it (a 350-team file is 260 kB): read only when used, not with every event row.
_DEFINITION_TEXT = Column("definition_text", Text, nullable=False, default="")


class Event(SQLModel, table=True):
    """An event; ``definition_text`` loads on first use (deferred), ``definition_digest`` names it.

    Jobs and pages load the event row many times a round and mostly need its parsed definition, which the
    definition cache keeps under the digest (services/definitions.py): the text is read and parsed only
    when the digest is new to the process. Setting ``definition_text`` sets the digest (listener below),
    an import makes it from the text (services/backup), and a row with an empty digest has its text read
    and hashed.
    """

    __tablename__ = "event"
    __table_args__ = (one_of("status", EventStatus), Index("ix_event_status", "status"))
    __mapper_args__ = {"properties": {"definition_text": deferred(_DEFINITION_TEXT)}}

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=80, unique=True)
    name: str = Field(max_length=200)
    definition_text: str = Field(default="", sa_column=_DEFINITION_TEXT)
    definition_digest: str = Field(default="", max_length=32)
    status: str = Field(default=EventStatus.DRAFT.value, max_length=16)
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()


@sa_event.listens_for(Event.definition_text, "set")
def _digest_follows_the_text(target: Event, value: str, _old: object, _initiator: object) -> None:
    target.definition_digest = definition_digest(value)


@sa_event.listens_for(Event, "before_insert")
def _digest_of_a_new_event(_mapper: object, _connection: object, target: Event) -> None:
    # SQLModel's constructor fills the fields without attribute events: the digest is made at the insert.
    target.definition_digest = definition_digest(target.definition_text)


class Stage(SQLModel, table=True):
    __tablename__ = "stage"
    __table_args__ = (
        UniqueConstraint("event_id", "key"),
        one_of("kind", StageKind),
        one_of("status", StageStatus),
        Index("ix_stage_status", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    key: str = Field(max_length=40)  # "base", "div4", ..., "playoff"
    name: str = Field(max_length=120)
    kind: str = Field(max_length=16)
    position: int = Field(default=0)  # order of stages within the event
    status: str = Field(default=StageStatus.DRAFT.value, max_length=16)
    tiebreaks: list[str] = Field(default_factory=list, sa_type=JSON)  # tie-break codes in order
    closed_at: datetime | None = timestamp(nullable=True)
    section: str = Field(default="", max_length=40)  # the section's key; "" without sections


class Team(SQLModel, table=True):
    __tablename__ = "team"
    __table_args__ = (UniqueConstraint("event_id", "name"), UniqueConstraint("event_id", "seed"))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    name: str = Field(max_length=120)
    federation: str = Field(max_length=8)  # three-letter code
    seed: int
    withdrawn_at: datetime | None = timestamp(nullable=True)
    section: str = Field(default="", max_length=40)  # the section's key; "" without sections


class Player(SQLModel, table=True):
    __tablename__ = "player"
    __table_args__ = (
        UniqueConstraint("event_id", "account"),  # a player belongs to one team (docs/rules.md §1)
        UniqueConstraint("team_id", "main_board"),
        UniqueConstraint("event_id", "fide_id"),
        one_of("sex", Sex),
        one_of("category", Category),
        CheckConstraint("main_board IS NULL OR main_board >= 1", name="main_board_positive"),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    name: str = Field(max_length=120)
    account: str = Field(max_length=80)  # game-server account name, lower-cased
    sex: str = Field(max_length=1)
    birth_year: int
    rating: int
    main_board: int | None = Field(default=None)  # board of a main player; None for a reserve
    category: str = Field(max_length=16)
    # FIDE data (optional; docs/ratings.md): id, title, federation when not the team's, K of the FIDE list.
    fide_id: int | None = Field(default=None, sa_type=BigInteger)
    title: str | None = Field(default=None, max_length=3)
    federation: str | None = Field(default=None, max_length=3)
    k_factor: int | None = Field(default=None)
    email: str | None = Field(default=None, max_length=254)  # for "link your account" (notifications)
    # language of the "link your account" mail; None: the captains' language (docs/notifications.md)
    language: str | None = Field(default=None, max_length=8)

    @classmethod
    def of(cls, event_id: int, team_id: int, entry: domain_teams.RosterEntry) -> "Player":
        """The row of a roster entry (a main player on its board, or a reserve)."""
        p = entry.player
        return cls(
            event_id=event_id,
            team_id=team_id,
            name=p.name,
            account=p.account.lower(),
            sex=p.sex.value,
            birth_year=p.birth_year,
            rating=p.rating,
            main_board=entry.main_board,
            category=entry.category.value,
            fide_id=p.fide_id,
            title=p.title,
            federation=p.federation,
            k_factor=p.k_factor,
        )


class Pool(SQLModel, table=True):
    __tablename__ = "pool"
    __table_args__ = (UniqueConstraint("stage_id", "letter"), one_of("status", PoolStatus))

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    letter: str = Field(max_length=4)
    status: str = Field(default=PoolStatus.DRAFT.value, max_length=16)
    published_at: datetime | None = timestamp(nullable=True)


class PoolEntry(SQLModel, table=True):
    """A team in a pool; ``withdrawn_*`` record its withdrawal from the stage (docs/rules.md §6): when, by
    whom, and the first round whose match it lost by forfeit (services/results/withdrawals.py)."""

    __tablename__ = "pool_entry"
    __table_args__ = (
        UniqueConstraint("pool_id", "team_id"),
        UniqueConstraint("pool_id", "pairing_number"),
        CheckConstraint(
            "(withdrawn_at IS NULL) = (withdrawn_by IS NULL)"
            " AND (withdrawn_at IS NULL) = (withdrawn_round IS NULL)",
            name="withdrawal_complete",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    pool_id: int = reference("pool.id", cascade=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    pairing_number: int  # Berger table number (C.05 Annex 1)
    withdrawn_at: datetime | None = timestamp(nullable=True)
    withdrawn_by: str | None = Field(default=None, max_length=80)
    withdrawn_round: int | None = Field(default=None)
    joined_round: int | None = Field(default=None)  # a Swiss late entry's first round (None: round 1)


class SwissStage(SQLModel, table=True):
    """A Swiss stage's own settings (docs/swiss.md): the initial colour drawn at its start (C.04.6 art.
    4.3.1)."""

    __tablename__ = "swiss_stage"
    __table_args__ = (one_of("initial_colour", Colour),)

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, unique=True)
    initial_colour: str = Field(default=Colour.WHITE.value, max_length=1)


class SwissRound(SQLModel, table=True):
    """A Swiss round's pairing: the draft staff review (``draft``: team ids of each match in board order,
    first-named first, and the bye), who paired and published it, and whether unfinished games of the
    previous rounds were counted as draws to pair it."""

    __tablename__ = "swiss_round"

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = reference("round.id", cascade=True, unique=True)
    draft: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    paired_by: str | None = Field(default=None, max_length=80)
    paired_at: datetime | None = timestamp(nullable=True)
    published_by: str | None = Field(default=None, max_length=80)
    published_at: datetime | None = timestamp(nullable=True)
    unfinished_as_draws: bool = Field(default=False)


class SwissRoundTeam(SQLModel, table=True):
    """A team of a Swiss stage without a match in a round: its bye (once the round is published), or its
    absence (recorded before the round is paired)."""

    __tablename__ = "swiss_round_team"
    __table_args__ = (UniqueConstraint("round_id", "team_id"), one_of("role", SwissRoundRole))

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = reference("round.id", cascade=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    role: str = Field(max_length=8)
    reason: str | None = Field(default=None, sa_type=Text)
    recorded_by: str = Field(max_length=80)
    recorded_at: datetime = timestamp()


class Duel(SQLModel, table=True):
    """A play-off duel: two matches, then Armageddon on 1–1 in match points (docs/rules.md §5)."""

    __tablename__ = "duel"
    __table_args__ = (UniqueConstraint("stage_id", "key"), one_of("status", DuelStatus))

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    key: str = Field(max_length=16)  # "I" .. "XI"
    round_name: str = Field(max_length=40)
    first_source: str = Field(default="", max_length=80)  # slot reference as written, "Top A 2"
    second_source: str = Field(default="", max_length=80)
    first_team_id: int | None = reference("team.id", nullable=True, index=True)
    second_team_id: int | None = reference("team.id", nullable=True, index=True)
    status: str = Field(default=DuelStatus.WAITING.value, max_length=16)
    # Exceptional outcomes recorded by staff (e.g. joint winners) with their reason; None for normal ones.
    outcome: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    winner_team_id: int | None = reference("team.id", nullable=True)
    decided_at: datetime | None = timestamp(nullable=True)


class Round(SQLModel, table=True):
    __tablename__ = "round"
    # The periodic jobs look rounds, stages and events up by status (docs/workers.md, "Idle ticks").
    __table_args__ = (
        UniqueConstraint("stage_id", "number"),
        one_of("status", RoundStatus),
        Index("ix_round_status", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    number: int
    name: str = Field(default="", max_length=80)
    scheduled_at: datetime | None = timestamp(nullable=True)
    lineup_deadline_at: datetime | None = timestamp(nullable=True)
    status: str = Field(default=RoundStatus.SCHEDULED.value, max_length=16)
    last_pull_at: datetime | None = timestamp(nullable=True)  # the game server last answered a pull


class Match(SQLModel, table=True):
    """One team match of a round: in a pool (pool_id) or one leg of a duel (duel_id, leg)."""

    __tablename__ = "match"
    __table_args__ = (
        UniqueConstraint("round_id", "match_no"),
        UniqueConstraint("duel_id", "leg"),
        one_of("status", MatchStatus),
        one_of("forfeit", FORFEIT_CODES),
        CheckConstraint("first_team_id <> second_team_id", name="two_teams"),
    )

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = reference("round.id", cascade=True, index=True)
    pool_id: int | None = reference("pool.id", cascade=True, nullable=True, index=True)
    duel_id: int | None = reference("duel.id", cascade=True, nullable=True, index=True)
    leg: int | None = Field(default=None)  # 1 or 2 within a duel
    match_no: int  # table number within the round
    first_team_id: int = reference("team.id", index=True)  # White on odd boards
    second_team_id: int = reference("team.id", index=True)
    forfeit: str = Field(default=MatchForfeit.NONE.value, max_length=4)  # whole-match forfeit code
    status: str = Field(default=MatchStatus.SCHEDULED.value, max_length=16)
    finished_at: datetime | None = timestamp(nullable=True)


class Board(SQLModel, table=True):
    """One game of a match; ``version`` guards concurrent result entry (docs/rules.md §6)."""

    __tablename__ = "board"
    __table_args__ = (
        UniqueConstraint("match_id", "board_no"),
        one_of("result", RESULT_CODES),
        one_of("result_source", ResultSource, nullable=True),
        CheckConstraint("board_no >= 1", name="board_no_positive"),
    )

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = reference("match.id", cascade=True, index=True)
    board_no: int
    white_player_id: int | None = reference("player.id", nullable=True, index=True)
    black_player_id: int | None = reference("player.id", nullable=True, index=True)
    result: str = Field(default=GameResult.PENDING.value, max_length=8)
    result_source: str | None = Field(default=None, max_length=16)
    game_status: str | None = Field(default=None, max_length=32)  # the game server's status, e.g. "mate"
    version: int = Field(default=1)
    game_id: str | None = Field(default=None, max_length=64, unique=True)
    game_url: str | None = Field(default=None, max_length=255)
    pgn: str | None = Field(default=None, sa_type=Text)
    updated_at: datetime = timestamp()
    updated_by: str = Field(default="system", max_length=80)


class Lineup(SQLModel, table=True):
    """A captain's lineup for one match: ``boards`` lists player ids by board (None = board not filled)."""

    __tablename__ = "lineup"
    __table_args__ = (UniqueConstraint("match_id", "team_id"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = reference("match.id", cascade=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    submitted_by: str = Field(max_length=80)
    submitted_at: datetime = timestamp()
    boards: list[int | None] = Field(default_factory=list, sa_type=JSON)


class Appeal(SQLModel, table=True):
    __tablename__ = "appeal"
    __table_args__ = (one_of("status", AppealStatus),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = reference("match.id", cascade=True, index=True)
    team_id: int | None = reference("team.id", nullable=True)  # the appealing team
    opened_by: str = Field(default="", max_length=80)
    grounds: str = Field(default="", sa_type=Text)
    opened_at: datetime = timestamp()
    deadline_at: datetime = Field(sa_type=UTCDateTime)
    status: str = Field(default=AppealStatus.OPEN.value, max_length=16)
    decision: str | None = Field(default=None, sa_type=Text)
    decided_by: str | None = Field(default=None, max_length=80)
    decided_at: datetime | None = timestamp(nullable=True)


class Lot(SQLModel, table=True):
    """A draw by lot: the SHA-256 commitment is published first, the seed after the draw (docs/rules.md
    §7)."""

    __tablename__ = "lot"
    __table_args__ = (one_of("kind", LOT_KINDS),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    purpose: str = Field(max_length=120)  # e.g. "armageddon-category duel XI", "tiebreak Top A"
    commitment: str = Field(max_length=64, unique=True)  # sha256 hex of the seed
    seed_hex: str | None = Field(default=None, max_length=128)  # None until revealed
    # The secret seed between commit and reveal (cleared on reveal); never shown or logged.
    sealed_seed_hex: str | None = Field(default=None, max_length=128)
    kind: str = Field(default="order", max_length=8, sa_column_kwargs={"server_default": "order"})
    candidates: list[Any] = Field(default_factory=list, sa_type=JSON)
    outcome: list[Any] | None = Field(default=None, sa_type=JSON)
    drawn_by: str = Field(max_length=80)
    committed_at: datetime = timestamp()
    revealed_at: datetime | None = timestamp(nullable=True)


class Standing(SQLModel, table=True):
    """A computed standings row; ``values`` holds every tie-break column by code (integers)."""

    __tablename__ = "standing"
    __table_args__ = (UniqueConstraint("stage_id", "pool_id", "team_id"),)

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = reference("stage.id", cascade=True, index=True)
    pool_id: int | None = reference("pool.id", cascade=True, nullable=True, index=True)
    team_id: int = reference("team.id", cascade=True, index=True)
    rank: int
    values: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # the tie-break that split this row from the one above
    separated_by: str | None = Field(default=None, max_length=32)
    provisional: bool = Field(default=True)
    computed_at: datetime = timestamp()


class Annulment(SQLModel, table=True):
    """A fair-play ruling: all of a player's results in the event become losses (docs/rules.md §2)."""

    __tablename__ = "annulment"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = reference("player.id", cascade=True, index=True)
    reason: str = Field(sa_type=Text)
    annulled_by: str = Field(max_length=80)
    annulled_at: datetime = timestamp()


class LateChange(SQLModel, table=True):
    """A closed stage's final standings changed after a later stage was built from them
    (docs/rules.md §6): who would qualify now, what it affects, and the staff's ruling."""

    __tablename__ = "late_change"
    __table_args__ = (one_of("status", LateChangeStatus), one_of("cause", LateChangeCause))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = reference("event.id", cascade=True, index=True)
    source_stage_id: int = reference("stage.id", cascade=True, index=True)  # the closed stage that changed
    affected_stage_id: int = reference("stage.id", cascade=True, index=True)  # built from its standings
    cause: str = Field(max_length=16)
    cause_text: str = Field(default="", sa_type=Text)  # what changed, in words
    # {"now_in": [...], "now_out": [...], "places": [{"slot", "built", "now", "affects"}], "affects": [...]}
    consequence: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    affected_started: bool = Field(default=False)  # a game of the later stage existed when last checked
    status: str = Field(default=LateChangeStatus.PENDING.value, max_length=16)
    detected_by: str = Field(max_length=80)
    detected_at: datetime = timestamp()
    ruled_by: str | None = Field(default=None, max_length=80)
    ruled_at: datetime | None = timestamp(nullable=True)
    ruling_reason: str | None = Field(default=None, sa_type=Text)


class Armageddon(SQLModel, table=True):
    """The deciding game of a 1–1 duel; nominations stay sealed until both are in (docs/rules.md §5)."""

    __tablename__ = "armageddon"
    __table_args__ = (
        one_of("category", Category),
        one_of("status", ArmageddonStatus),
        Index("ix_armageddon_status", "status"),
        one_of("colour", COLOUR_WORDS, nullable=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    duel_id: int = reference("duel.id", cascade=True, unique=True)
    category: str = Field(max_length=16)
    category_lot_id: int | None = reference("lot.id", nullable=True)
    chooser_lot_id: int | None = reference("lot.id", nullable=True)
    first_nominee_id: int | None = reference("player.id", nullable=True)
    first_submitted_at: datetime | None = timestamp(nullable=True)
    second_nominee_id: int | None = reference("player.id", nullable=True)
    second_submitted_at: datetime | None = timestamp(nullable=True)
    deadline_at: datetime | None = timestamp(nullable=True)
    chooser_player_id: int | None = reference("player.id", nullable=True)
    colour: str | None = Field(default=None, max_length=8)  # the colour the chooser took
    status: str = Field(default=ArmageddonStatus.NOMINATING.value, max_length=16)
    board_id: int | None = reference("board.id", nullable=True)  # the game, once known

    @property
    def phase(self) -> ArmageddonPhase:
        """The stored status as a phase (a row exists once the category is drawn)."""
        status = ArmageddonStatus(self.status)
        if status is ArmageddonStatus.CHOOSING:
            return (
                ArmageddonPhase.DRAW_CHOOSER if self.chooser_lot_id is None else ArmageddonPhase.CHOOSE_COLOUR
            )
        return _PHASE_OF_STATUS[status]

    def enter(self, phase: ArmageddonPhase) -> None:
        """Store ``phase`` (the column keeps its codes: no migration)."""
        self.status = _STATUS_OF_PHASE[phase].value


_STATUS_OF_PHASE = {
    ArmageddonPhase.NOMINATING: ArmageddonStatus.NOMINATING,
    ArmageddonPhase.DRAW_CHOOSER: ArmageddonStatus.CHOOSING,
    ArmageddonPhase.CHOOSE_COLOUR: ArmageddonStatus.CHOOSING,
    ArmageddonPhase.READY: ArmageddonStatus.READY,
    ArmageddonPhase.PLAYING: ArmageddonStatus.PLAYING,
    ArmageddonPhase.FINISHED: ArmageddonStatus.DECIDED,
}
_PHASE_OF_STATUS = {
    ArmageddonStatus.NOMINATING: ArmageddonPhase.NOMINATING,
    ArmageddonStatus.READY: ArmageddonPhase.READY,
    ArmageddonStatus.PLAYING: ArmageddonPhase.PLAYING,
    ArmageddonStatus.DECIDED: ArmageddonPhase.FINISHED,
}


ALL_TABLES: tuple[type[SQLModel], ...] = (
    User,
    LoginAttempt,
    AuditLog,
    Event,
    Stage,
    Team,
    Player,
    Pool,
    PoolEntry,
    SwissStage,
    SwissRound,
    SwissRoundTeam,
    Duel,
    Round,
    Match,
    Board,
    Lineup,
    Appeal,
    Lot,
    Standing,
    Annulment,
    LateChange,
    Armageddon,
    PlayerLink,
    GameserverBulk,
    Outbox,
    Outlook,
    ScoreAdjustment,
)

# Every name of the schema, whichever of the tables modules defines it.
__all__ = [
    "ALL_TABLES",
    "COLOUR_WORDS",
    "FORFEIT_CODES",
    "LOT_KINDS",
    "OPEN_ROUND_STATUSES",
    "POOL_KINDS",
    "RESULT_CODES",
    "STAFF_ROLES",
    "Annulment",
    "Appeal",
    "AppealStatus",
    "Armageddon",
    "ArmageddonStatus",
    "AuditLog",
    "Board",
    "BulkStatus",
    "Duel",
    "DuelStatus",
    "Event",
    "EventStatus",
    "GameserverBulk",
    "LateChange",
    "LateChangeCause",
    "LateChangeStatus",
    "Lineup",
    "LinkStatus",
    "LoginAttempt",
    "Lot",
    "Match",
    "MatchStatus",
    "Outbox",
    "OutboxStatus",
    "Outlook",
    "Player",
    "PlayerLink",
    "Pool",
    "PoolEntry",
    "PoolStatus",
    "RecordEntry",
    "ResultSource",
    "Role",
    "Round",
    "RoundStatus",
    "ScoreAdjustment",
    "Stage",
    "StageKind",
    "StageStatus",
    "Standing",
    "SwissRound",
    "SwissRoundRole",
    "SwissRoundTeam",
    "SwissStage",
    "Team",
    "User",
    "one_of",
    "reference",
    "timestamp",
]
