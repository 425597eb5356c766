"""Tables of the game-server side: players' OAuth links and bulk pairing requests (docs/rules.md §8)."""

# No ``from __future__ import annotations``: SQLModel reads the annotations at class creation.

from datetime import datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from orchestrator.adapters.tables_base import BulkStatus, LinkStatus, one_of, reference, timestamp


class PlayerLink(SQLModel, table=True):
    """A player's game-server OAuth link; the token is Fernet-encrypted and never shown."""

    __tablename__ = "player_link"
    __table_args__ = (one_of("status", LinkStatus),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = reference("player.id", cascade=True, unique=True)
    token_encrypted: str | None = Field(default=None, sa_type=Text)
    linked_account: str | None = Field(default=None, max_length=80)  # account the token belongs to
    token_expires_at: datetime | None = timestamp(nullable=True)
    status: str = Field(default=LinkStatus.MISSING.value, max_length=16)
    updated_at: datetime = timestamp()


class GameserverBulk(SQLModel, table=True):
    """One bulk pairing request for a round on the game server (docs/rules.md §8)."""

    __tablename__ = "gameserver_bulk"
    __table_args__ = (one_of("status", BulkStatus),)

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = reference("round.id", cascade=True, index=True)
    bulk_id: str | None = Field(default=None, max_length=64, unique=True)  # the server's id
    status: str = Field(default=BulkStatus.PENDING.value, max_length=16)
    error: str | None = Field(default=None, sa_type=Text)  # says which player must re-link; no tokens
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
