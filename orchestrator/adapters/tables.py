"""The database schema as SQLModel tables (the whole product's schema; later work only adds).

Conventions: integer ids, singular snake_case table names, ``_at`` columns are timezone-aware UTC
(``orchestrator.db.UTCDateTime``), closed vocabularies are strings guarded by CHECK constraints whose
values come from the ``StrEnum`` classes below, or from the domain's own for the words the domain speaks:
``StageKind``, ``Sex``, ``Category``, ``LotKind``, ``Colour`` (stored as its ``word``), ``GameResult`` and
``MatchForfeit``; they are imported here, so ``tables.StageKind`` is the domain's.
No relationships are declared: repositories run explicit queries (docs/architecture.md, habit 7).
"""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from orchestrator.db import UTCDateTime, metadata, utcnow
from orchestrator.domain import teams as domain_teams
from orchestrator.domain.event import POOL_KINDS as POOL_KINDS
from orchestrator.domain.event import StageKind
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.lots import LotKind
from orchestrator.domain.scoring import Colour, GameResult, MatchForfeit
from orchestrator.domain.teams import Category, Sex

assert SQLModel.metadata is metadata  # the naming convention is set in orchestrator.db


class Role(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    ARBITER = "arbiter"
    CAPTAIN = "captain"


STAFF_ROLES = frozenset({Role.OWNER, Role.ADMIN, Role.ARBITER})


class EventStatus(StrEnum):
    DRAFT = "draft"
    PUBLISHED = "published"
    RUNNING = "running"
    CLOSED = "closed"


class StageStatus(StrEnum):
    DRAFT = "draft"
    PUBLISHED = "published"
    RUNNING = "running"
    CLOSED = "closed"


class PoolStatus(StrEnum):
    DRAFT = "draft"
    PUBLISHED = "published"


class RoundStatus(StrEnum):
    SCHEDULED = "scheduled"  # known, games not yet created on the game server
    PAIRED = "paired"  # games created (or being created) on the game server
    PLAYING = "playing"
    FINISHED = "finished"  # every board has a final result
    # A Swiss round (docs/swiss.md) is UNPAIRED until staff pair it, DRAFT while its pairing awaits review
    # (``swiss_round.draft``, no matches yet), SCHEDULED once published; CANCELLED when the stage ended early.
    UNPAIRED = "unpaired"
    DRAFT = "draft"
    CANCELLED = "cancelled"


class SwissRoundRole(StrEnum):
    """Why a team of a Swiss stage plays no match in a round (``swiss_round_team``)."""

    BYE = "bye"  # the pairing-allocated bye (C.04.6 art. 3.4)
    ABSENT = "absent"  # staff took the team out of the round (it scores nothing)


class MatchStatus(StrEnum):
    SCHEDULED = "scheduled"
    PLAYING = "playing"
    FINISHED = "finished"


class ResultSource(StrEnum):
    SERVER = "server"  # pulled from the game server
    ARBITER = "arbiter"  # entered by staff; always wins over a later poll (docs/rules.md §6)
    IMPORT = "import"  # read from a file or the Chess.com published-data API


class AppealStatus(StrEnum):
    OPEN = "open"
    UPHELD = "upheld"
    REJECTED = "rejected"


class DuelStatus(StrEnum):
    WAITING = "waiting"  # a side is not known yet
    READY = "ready"
    PLAYING = "playing"
    ARMAGEDDON = "armageddon"
    DECIDED = "decided"


class LateChangeStatus(StrEnum):
    PENDING = "pending"  # staff have not ruled yet
    RESEEDED = "reseeded"  # the later stage was drawn or built again from the corrected standings
    KEPT = "kept"  # the later stage stays as it is, for the recorded reason
    WITHDRAWN = "withdrawn"  # a later change restored what the later stage was built from


class LateChangeCause(StrEnum):
    CORRECTION = "correction"
    ANNULMENT = "annulment"
    APPEAL = "appeal"


class ArmageddonStatus(StrEnum):
    """How the ``armageddon`` row stores its phase (``domain.knockout.ArmageddonPhase``; the two phases of
    the colour, lot and choice, share ``choosing``). Code reads and writes ``Armageddon.phase``."""

    NOMINATING = "nominating"
    CHOOSING = "choosing"  # both nominees known, the chooser picks a colour
    READY = "ready"  # colour chosen, waiting for the arbiter's game
    PLAYING = "playing"
    DECIDED = "decided"


class LinkStatus(StrEnum):
    LINKED = "linked"
    MISSING = "missing"
    REFUSED = "refused"


class BulkStatus(StrEnum):
    PENDING = "pending"
    CREATED = "created"
    REJECTED = "rejected"  # the server refused the bulk (e.g. a bad token): see error
    FAILED = "failed"  # transport errors after retries
    CANCELLED = "cancelled"


RESULT_CODES: tuple[str, ...] = tuple(result.value for result in GameResult)
FORFEIT_CODES: tuple[str, ...] = tuple(code.value for code in MatchForfeit)
LOT_KINDS: tuple[str, ...] = tuple(kind.value for kind in LotKind)
COLOUR_WORDS: tuple[str, ...] = tuple(colour.word for colour in Colour)  # how ``armageddon.colour`` is stored


def one_of(column: str, values: Any, *, name: str | None = None, nullable: bool = False) -> CheckConstraint:
    """A CHECK that ``column`` holds one of ``values`` (named ``ck_<table>_<column>``)."""
    allowed = ", ".join("'" + str(getattr(v, "value", v)).replace("'", "''") + "'" for v in values)
    sql = f"{column} IN ({allowed})"
    if nullable:
        sql = f"{column} IS NULL OR {sql}"
    return CheckConstraint(sql, name=name or column)


def _ref(
    target: str, *, cascade: bool = False, nullable: bool = False, index: bool = False, unique: bool = False
) -> Any:
    """A foreign-key id column; ``cascade`` deletes the row with its parent.

    Other references are checked at commit (DEFERRABLE INITIALLY DEFERRED), so that deleting a whole
    event, whose cascades reach matches and teams by different paths, succeeds in one transaction.
    """
    if cascade:
        fk = ForeignKey(target, ondelete="CASCADE")
    else:
        fk = ForeignKey(target, deferrable=True, initially="DEFERRED")
    if nullable:
        return Field(default=None, sa_column_args=[fk], nullable=True, index=index, unique=unique)
    return Field(sa_column_args=[fk], index=index, unique=unique)


def _at(*, nullable: bool = False, index: bool = False) -> Any:
    """A UTC timestamp column; non-null ones default to now."""
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True, index=index)
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=index)


# --- people and access -------------------------------------------------------------------------------


class User(SQLModel, table=True):
    """A login: staff (owner, admin, arbiter) or a team captain."""

    __tablename__ = "user"
    __table_args__ = (
        one_of("role", Role),
        CheckConstraint("role = 'captain' OR team_id IS NULL", name="team_only_for_captains"),
    )

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=80, unique=True)
    display_name: str = Field(default="", max_length=120)
    role: str = Field(max_length=16)
    team_id: int | None = _ref("team.id", cascade=True, nullable=True, index=True)
    # argon2id; None until an invited user sets a password
    password_hash: str | None = Field(default=None, max_length=255)
    invitation_token_hash: str | None = Field(default=None, max_length=64, unique=True)  # sha256 hex
    invitation_expires_at: datetime | None = _at(nullable=True)
    disabled: bool = Field(default=False)
    # Bumped on password change or disabling: signed session cookies carry it, so old ones stop working.
    session_generation: int = Field(default=1)
    created_at: datetime = _at()
    last_login_at: datetime | None = _at(nullable=True)
    email: str | None = Field(default=None, max_length=254)  # where notifications go (docs/notifications.md)
    notify_off: list[str] = Field(default_factory=list, sa_type=JSON)  # notification kinds turned off
    # the language of the user's e-mails (orchestrator/translation.py LANGUAGES); None: English
    language: str | None = Field(default=None, max_length=8)


class LoginAttempt(SQLModel, table=True):
    """One login attempt, for throttling (services/accounts/users.py ``authenticate``; docs/security.md)."""

    __tablename__ = "login_attempt"
    __table_args__ = (
        Index("ix_login_attempt_username_at", "username", "at"),
        Index("ix_login_attempt_ip_at", "ip", "at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=80)  # as typed, lower-cased; may not exist
    ip: str = Field(default="", max_length=64)
    at: datetime = _at()
    success: bool = Field(default=False)


class AuditLog(SQLModel, table=True):
    """Who changed what, when and why (docs/rules.md §6, §7). ``old``/``new`` never hold secrets."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_entity_entity_id", "entity", "entity_id"),)

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = _at(index=True)
    actor: str = Field(max_length=80)  # username, or "system", "worker", "cli"
    action: str = Field(max_length=64)  # e.g. "board.result", "user.create", "lot.draw"
    entity: str = Field(max_length=32)  # table name
    entity_id: int | None = Field(default=None)
    event_id: int | None = _ref("event.id", cascade=True, nullable=True, index=True)
    old: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    new: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    reason: str | None = Field(default=None, sa_type=Text)


# --- event structure ----------------------------------------------------------------------------------


class Event(SQLModel, table=True):
    __tablename__ = "event"
    __table_args__ = (one_of("status", EventStatus),)

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=80, unique=True)
    name: str = Field(max_length=200)
    definition_text: str = Field(default="", sa_type=Text)  # the YAML definition as staff wrote it
    status: str = Field(default=EventStatus.DRAFT.value, max_length=16)
    created_at: datetime = _at()
    updated_at: datetime = _at()


class Stage(SQLModel, table=True):
    __tablename__ = "stage"
    __table_args__ = (
        UniqueConstraint("event_id", "key"),
        one_of("kind", StageKind),
        one_of("status", StageStatus),
    )

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = _ref("event.id", cascade=True, index=True)
    key: str = Field(max_length=40)  # "base", "div4", ..., "playoff"
    name: str = Field(max_length=120)
    kind: str = Field(max_length=16)
    position: int = Field(default=0)  # order of stages within the event
    status: str = Field(default=StageStatus.DRAFT.value, max_length=16)
    tiebreaks: list[str] = Field(default_factory=list, sa_type=JSON)  # tie-break codes in order
    closed_at: datetime | None = _at(nullable=True)
    section: str = Field(default="", max_length=40)  # the section's key; "" without sections


class Team(SQLModel, table=True):
    __tablename__ = "team"
    __table_args__ = (UniqueConstraint("event_id", "name"), UniqueConstraint("event_id", "seed"))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = _ref("event.id", cascade=True, index=True)
    name: str = Field(max_length=120)
    federation: str = Field(max_length=8)  # three-letter code
    seed: int
    withdrawn_at: datetime | None = _at(nullable=True)
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
    event_id: int = _ref("event.id", cascade=True, index=True)
    team_id: int = _ref("team.id", cascade=True, index=True)
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
    stage_id: int = _ref("stage.id", cascade=True, index=True)
    letter: str = Field(max_length=4)
    status: str = Field(default=PoolStatus.DRAFT.value, max_length=16)
    published_at: datetime | None = _at(nullable=True)


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
    pool_id: int = _ref("pool.id", cascade=True, index=True)
    team_id: int = _ref("team.id", cascade=True, index=True)
    pairing_number: int  # Berger table number (C.05 Annex 1)
    withdrawn_at: datetime | None = _at(nullable=True)
    withdrawn_by: str | None = Field(default=None, max_length=80)
    withdrawn_round: int | None = Field(default=None)
    joined_round: int | None = Field(default=None)  # a Swiss late entry's first round (None: round 1)


class SwissStage(SQLModel, table=True):
    """A Swiss stage's own settings (docs/swiss.md): the initial colour drawn at its start (C.04.6 art.
    4.3.1)."""

    __tablename__ = "swiss_stage"
    __table_args__ = (one_of("initial_colour", Colour),)

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = _ref("stage.id", cascade=True, unique=True)
    initial_colour: str = Field(default=Colour.WHITE.value, max_length=1)


class SwissRound(SQLModel, table=True):
    """A Swiss round's pairing: the draft staff review (``draft``: team ids of each match in board order,
    first-named first, and the bye), who paired and published it, and whether unfinished games of the
    previous rounds were counted as draws to pair it."""

    __tablename__ = "swiss_round"

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = _ref("round.id", cascade=True, unique=True)
    draft: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    paired_by: str | None = Field(default=None, max_length=80)
    paired_at: datetime | None = _at(nullable=True)
    published_by: str | None = Field(default=None, max_length=80)
    published_at: datetime | None = _at(nullable=True)
    unfinished_as_draws: bool = Field(default=False)


class SwissRoundTeam(SQLModel, table=True):
    """A team of a Swiss stage without a match in a round: its bye (once the round is published), or its
    absence (recorded before the round is paired)."""

    __tablename__ = "swiss_round_team"
    __table_args__ = (UniqueConstraint("round_id", "team_id"), one_of("role", SwissRoundRole))

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = _ref("round.id", cascade=True, index=True)
    team_id: int = _ref("team.id", cascade=True, index=True)
    role: str = Field(max_length=8)
    reason: str | None = Field(default=None, sa_type=Text)
    recorded_by: str = Field(max_length=80)
    recorded_at: datetime = _at()


class Duel(SQLModel, table=True):
    """A play-off duel: two matches, then Armageddon on 1–1 in match points (docs/rules.md §5)."""

    __tablename__ = "duel"
    __table_args__ = (UniqueConstraint("stage_id", "key"), one_of("status", DuelStatus))

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = _ref("stage.id", cascade=True, index=True)
    key: str = Field(max_length=16)  # "I" .. "XI"
    round_name: str = Field(max_length=40)
    first_source: str = Field(default="", max_length=80)  # slot reference as written, "Top A 2"
    second_source: str = Field(default="", max_length=80)
    first_team_id: int | None = _ref("team.id", nullable=True, index=True)
    second_team_id: int | None = _ref("team.id", nullable=True, index=True)
    status: str = Field(default=DuelStatus.WAITING.value, max_length=16)
    # Exceptional outcomes recorded by staff (e.g. joint winners) with their reason; None for normal ones.
    outcome: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    winner_team_id: int | None = _ref("team.id", nullable=True)
    decided_at: datetime | None = _at(nullable=True)


class Round(SQLModel, table=True):
    __tablename__ = "round"
    __table_args__ = (UniqueConstraint("stage_id", "number"), one_of("status", RoundStatus))

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = _ref("stage.id", cascade=True, index=True)
    number: int
    name: str = Field(default="", max_length=80)
    scheduled_at: datetime | None = _at(nullable=True)
    lineup_deadline_at: datetime | None = _at(nullable=True)
    status: str = Field(default=RoundStatus.SCHEDULED.value, max_length=16)


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
    round_id: int = _ref("round.id", cascade=True, index=True)
    pool_id: int | None = _ref("pool.id", cascade=True, nullable=True, index=True)
    duel_id: int | None = _ref("duel.id", cascade=True, nullable=True, index=True)
    leg: int | None = Field(default=None)  # 1 or 2 within a duel
    match_no: int  # table number within the round
    first_team_id: int = _ref("team.id", index=True)  # White on odd boards
    second_team_id: int = _ref("team.id", index=True)
    forfeit: str = Field(default=MatchForfeit.NONE.value, max_length=4)  # whole-match forfeit code
    status: str = Field(default=MatchStatus.SCHEDULED.value, max_length=16)
    finished_at: datetime | None = _at(nullable=True)


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
    match_id: int = _ref("match.id", cascade=True, index=True)
    board_no: int
    white_player_id: int | None = _ref("player.id", nullable=True, index=True)
    black_player_id: int | None = _ref("player.id", nullable=True, index=True)
    result: str = Field(default=GameResult.PENDING.value, max_length=8)
    result_source: str | None = Field(default=None, max_length=16)
    game_status: str | None = Field(default=None, max_length=32)  # the game server's status, e.g. "mate"
    version: int = Field(default=1)
    game_id: str | None = Field(default=None, max_length=64, unique=True)
    game_url: str | None = Field(default=None, max_length=255)
    pgn: str | None = Field(default=None, sa_type=Text)
    updated_at: datetime = _at()
    updated_by: str = Field(default="system", max_length=80)


class Lineup(SQLModel, table=True):
    """A captain's lineup for one match: ``boards`` lists player ids by board (None = board not filled)."""

    __tablename__ = "lineup"
    __table_args__ = (UniqueConstraint("match_id", "team_id"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = _ref("match.id", cascade=True, index=True)
    team_id: int = _ref("team.id", cascade=True, index=True)
    submitted_by: str = Field(max_length=80)
    submitted_at: datetime = _at()
    boards: list[int | None] = Field(default_factory=list, sa_type=JSON)


class Appeal(SQLModel, table=True):
    __tablename__ = "appeal"
    __table_args__ = (one_of("status", AppealStatus),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = _ref("match.id", cascade=True, index=True)
    team_id: int | None = _ref("team.id", nullable=True)  # the appealing team
    opened_by: str = Field(default="", max_length=80)
    grounds: str = Field(default="", sa_type=Text)
    opened_at: datetime = _at()
    deadline_at: datetime = Field(sa_type=UTCDateTime)
    status: str = Field(default=AppealStatus.OPEN.value, max_length=16)
    decision: str | None = Field(default=None, sa_type=Text)
    decided_by: str | None = Field(default=None, max_length=80)
    decided_at: datetime | None = _at(nullable=True)


class Lot(SQLModel, table=True):
    """A draw by lot: the SHA-256 commitment is published first, the seed after the draw (docs/rules.md
    §7)."""

    __tablename__ = "lot"
    __table_args__ = (one_of("kind", LOT_KINDS),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = _ref("event.id", cascade=True, index=True)
    purpose: str = Field(max_length=120)  # e.g. "armageddon-category duel XI", "tiebreak Top A"
    commitment: str = Field(max_length=64, unique=True)  # sha256 hex of the seed
    seed_hex: str | None = Field(default=None, max_length=128)  # None until revealed
    # The secret seed between commit and reveal (cleared on reveal); never shown or logged.
    sealed_seed_hex: str | None = Field(default=None, max_length=128)
    kind: str = Field(default="order", max_length=8, sa_column_kwargs={"server_default": "order"})
    candidates: list[Any] = Field(default_factory=list, sa_type=JSON)
    outcome: list[Any] | None = Field(default=None, sa_type=JSON)
    drawn_by: str = Field(max_length=80)
    committed_at: datetime = _at()
    revealed_at: datetime | None = _at(nullable=True)


class Standing(SQLModel, table=True):
    """A computed standings row; ``values`` holds every tie-break column by code (integers)."""

    __tablename__ = "standing"
    __table_args__ = (UniqueConstraint("stage_id", "pool_id", "team_id"),)

    id: int | None = Field(default=None, primary_key=True)
    stage_id: int = _ref("stage.id", cascade=True, index=True)
    pool_id: int | None = _ref("pool.id", cascade=True, nullable=True, index=True)
    team_id: int = _ref("team.id", cascade=True, index=True)
    rank: int
    values: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # the tie-break that split this row from the one above
    separated_by: str | None = Field(default=None, max_length=32)
    provisional: bool = Field(default=True)
    computed_at: datetime = _at()


class Annulment(SQLModel, table=True):
    """A fair-play ruling: all of a player's results in the event become losses (docs/rules.md §2)."""

    __tablename__ = "annulment"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = _ref("player.id", cascade=True, index=True)
    reason: str = Field(sa_type=Text)
    annulled_by: str = Field(max_length=80)
    annulled_at: datetime = _at()


class LateChange(SQLModel, table=True):
    """A closed stage's final standings changed after a later stage was built from them
    (docs/rules.md §6): who would qualify now, what it affects, and the staff's ruling."""

    __tablename__ = "late_change"
    __table_args__ = (one_of("status", LateChangeStatus), one_of("cause", LateChangeCause))

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = _ref("event.id", cascade=True, index=True)
    source_stage_id: int = _ref("stage.id", cascade=True, index=True)  # the closed stage that changed
    affected_stage_id: int = _ref("stage.id", cascade=True, index=True)  # built from its standings
    cause: str = Field(max_length=16)
    cause_text: str = Field(default="", sa_type=Text)  # what changed, in words
    # {"now_in": [...], "now_out": [...], "places": [{"slot", "built", "now", "affects"}], "affects": [...]}
    consequence: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    affected_started: bool = Field(default=False)  # a game of the later stage existed when last checked
    status: str = Field(default=LateChangeStatus.PENDING.value, max_length=16)
    detected_by: str = Field(max_length=80)
    detected_at: datetime = _at()
    ruled_by: str | None = Field(default=None, max_length=80)
    ruled_at: datetime | None = _at(nullable=True)
    ruling_reason: str | None = Field(default=None, sa_type=Text)


class Armageddon(SQLModel, table=True):
    """The deciding game of a 1–1 duel; nominations stay sealed until both are in (docs/rules.md §5)."""

    __tablename__ = "armageddon"
    __table_args__ = (
        one_of("category", Category),
        one_of("status", ArmageddonStatus),
        one_of("colour", COLOUR_WORDS, nullable=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    duel_id: int = _ref("duel.id", cascade=True, unique=True)
    category: str = Field(max_length=16)
    category_lot_id: int | None = _ref("lot.id", nullable=True)
    chooser_lot_id: int | None = _ref("lot.id", nullable=True)
    first_nominee_id: int | None = _ref("player.id", nullable=True)
    first_submitted_at: datetime | None = _at(nullable=True)
    second_nominee_id: int | None = _ref("player.id", nullable=True)
    second_submitted_at: datetime | None = _at(nullable=True)
    deadline_at: datetime | None = _at(nullable=True)
    chooser_player_id: int | None = _ref("player.id", nullable=True)
    colour: str | None = Field(default=None, max_length=8)  # the colour the chooser took
    status: str = Field(default=ArmageddonStatus.NOMINATING.value, max_length=16)
    board_id: int | None = _ref("board.id", nullable=True)  # the game, once known

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


class PlayerLink(SQLModel, table=True):
    """A player's game-server OAuth link; the token is Fernet-encrypted and never shown."""

    __tablename__ = "player_link"
    __table_args__ = (one_of("status", LinkStatus),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = _ref("player.id", cascade=True, unique=True)
    token_encrypted: str | None = Field(default=None, sa_type=Text)
    linked_account: str | None = Field(default=None, max_length=80)  # account the token belongs to
    token_expires_at: datetime | None = _at(nullable=True)
    status: str = Field(default=LinkStatus.MISSING.value, max_length=16)
    updated_at: datetime = _at()


class GameserverBulk(SQLModel, table=True):
    """One bulk pairing request for a round on the game server (docs/rules.md §8)."""

    __tablename__ = "gameserver_bulk"
    __table_args__ = (one_of("status", BulkStatus),)

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = _ref("round.id", cascade=True, index=True)
    bulk_id: str | None = Field(default=None, max_length=64, unique=True)  # the server's id
    status: str = Field(default=BulkStatus.PENDING.value, max_length=16)
    error: str | None = Field(default=None, sa_type=Text)  # says which player must re-link; no tokens
    created_at: datetime = _at()
    updated_at: datetime = _at()


class OutboxStatus(StrEnum):
    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"


class Outbox(SQLModel, table=True):
    """One e-mail to send (docs/notifications.md); ``key`` keeps a re-run job from queuing it twice."""

    __tablename__ = "outbox"
    __table_args__ = (one_of("status", OutboxStatus), Index("ix_outbox_status_next", "status", "next_at"))

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)  # idempotency key, e.g. "lineup_due:match:7:team:3"
    kind: str = Field(max_length=32)
    recipient: str = Field(max_length=254)
    subject: str = Field(max_length=255)
    body_text: str = Field(sa_type=Text)
    body_html: str | None = Field(default=None, sa_type=Text)
    status: str = Field(default=OutboxStatus.QUEUED.value, max_length=8)
    attempts: int = Field(default=0)
    last_error: str | None = Field(default=None, sa_type=Text)  # the server's reply; never a secret
    created_at: datetime = _at()
    updated_at: datetime = _at()
    next_at: datetime | None = _at(nullable=True)  # a queued mail is not tried before this
    sent_at: datetime | None = _at(nullable=True)


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
)
