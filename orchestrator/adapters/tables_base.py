"""Closed vocabularies of the schema (StrEnums, code tuples) and the column and CHECK helpers of its tables.

A closed vocabulary is a string column guarded by a CHECK constraint whose values come from the ``StrEnum``
classes here, or from the domain's own for the words the domain speaks: ``StageKind``, ``Sex``,
``Category``, ``LotKind``, ``Colour`` (stored as its ``word``), ``GameResult`` and ``MatchForfeit``.
"""

from enum import StrEnum
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey
from sqlmodel import Field, SQLModel

from orchestrator.db import UTCDateTime, metadata, utcnow
from orchestrator.domain.lots import LotKind
from orchestrator.domain.scoring import Colour, GameResult, MatchForfeit

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


# A round whose games exist on the game server and are not all final yet (the ones pulls and reconcile read).
OPEN_ROUND_STATUSES = (RoundStatus.PAIRED.value, RoundStatus.PLAYING.value)


class SwissRoundRole(StrEnum):
    """Why a team of a Swiss stage plays no match in a round (``swiss_round_team``)."""

    BYE = "bye"  # the pairing-allocated bye (C.04.6 art. 3.4)
    ABSENT = "absent"  # staff took the team out of the round (it scores nothing)
    # A bye the team asked for (TRF-2026 record 240 F, H; docs/trf.md, "Requested byes"): not paired, it
    # scores a won match and every board, or a drawn match and half the boards.
    FULL_BYE = "full_bye"
    HALF_BYE = "half_bye"

    @property
    def is_requested_bye(self) -> bool:
        return self in (SwissRoundRole.FULL_BYE, SwissRoundRole.HALF_BYE)


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


def reference(
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


def timestamp(*, nullable: bool = False, index: bool = False) -> Any:
    """A UTC timestamp column; non-null ones default to now."""
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True, index=index)
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=index)
