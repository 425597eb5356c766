"""The public record (``uow.record``, docs/record.md): an event's hash-chained entries, insert-only.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use. The
audit log hands every change of an event to ``append_change`` in the same transaction
(``AuditRepository.record``), which keeps the changes that decide a standing and writes their public part:
what a spectator may see, never an e-mail address, a secret seed or a staff note. There is no update and
no delete: a correction is a new entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from orchestrator.adapters.repo_teams import TeamRepository
from orchestrator.adapters.repositories import among, insert_rows
from orchestrator.adapters.tables import (
    Appeal,
    Armageddon,
    Board,
    Duel,
    Event,
    Lot,
    Match,
    Player,
    Pool,
    Round,
    ScoreAdjustment,
    Stage,
    SwissRoundRole,
    SwissRoundTeam,
    Team,
)
from orchestrator.adapters.tables_record import RecordEntry
from orchestrator.db import utcnow
from orchestrator.domain import record

# Every audit action the record keeps (docs/record.md, "What is recorded").
RECORDED = (
    record.RESULT_KINDS
    | record.PAIRING_KINDS
    | record.CLOSING_KINDS
    | {
        "board.annulled",
        "match.forfeit",
        "appeal.decide",
        "duel.ruling",
        "team.withdraw",
        "swiss.withdraw",
        "swiss.late_entry",
        "swiss.end_early",
        "swiss.adjustment",
        "lot.commit",
        "lot.draw",
        "lot.void",
        "armageddon.nominate",
        "armageddon.reveal",
        "event.close",
    }
)


_HEADS = "record_heads"  # session.info: (transaction, {event id: (last seq, its hash)}), see ``_head``


def time_text(at: datetime) -> str:
    """The entry's time as the canonical form writes it: UTC to the second, ``Z`` suffix."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def as_entry(row: RecordEntry) -> record.Entry:
    return record.Entry(row.seq, time_text(row.recorded_at), row.kind, row.payload, row.prev, row.hash)


class PairedMatch(NamedTuple):
    """A match as a pairing entry describes it (``RecordRepository._described``)."""

    id: int
    pool_id: int | None
    round_id: int
    first_team_id: int
    second_team_id: int


PAIRED_COLUMNS = (
    col(Match.id),
    col(Match.pool_id),
    col(Match.round_id),
    col(Match.first_team_id),
    col(Match.second_team_id),
)


class RecordRepository:
    """An event's public record (``uow.record``): append, read; no update, no delete."""

    def __init__(self, session: Session) -> None:
        self.session = session

    # --- writing ------------------------------------------------------------------------------------

    def append(
        self, *, event_id: int, kind: str, payload: Mapping[str, Any], at: datetime | None = None
    ) -> RecordEntry:
        """Link a new entry after the event's last one and write it now (the event's row is locked first
        on PostgreSQL, so two transactions never take the same sequence number)."""
        row = self._linked(event_id, self._head(event_id), kind, payload, at)
        self.session.add(row)
        self.session.flush()
        self._heads()[event_id] = (row.seq, row.hash)
        return row

    def _head(self, event_id: int) -> tuple[int, str]:
        """The event's last sequence number and hash (0 and the genesis hash for an empty record), read
        under the event's row lock.

        Read once per transaction: the lock is held until it ends and every entry this session links moves
        the kept head on, so the next entry of the same unit of work (a stage start records a lot per pool)
        needs neither the lock nor the read again. A head kept wrongly could not go unnoticed: the next
        entry would take a sequence number already taken, which ``(event_id, seq)`` refuses."""
        heads = self._heads()
        if event_id in heads:
            return heads[event_id]
        self.session.exec(
            select(Event.id).where(Event.id == event_id).with_for_update(key_share=True)
        ).first()
        last = self.session.exec(
            select(RecordEntry.seq, RecordEntry.hash)
            .where(RecordEntry.event_id == event_id)
            .order_by(col(RecordEntry.seq).desc())
            .limit(1)
        ).first()
        heads[event_id] = (last[0], last[1]) if last else (0, record.GENESIS)
        return heads[event_id]

    def _heads(self) -> dict[int, tuple[int, str]]:
        """The heads read or moved in the session's current transaction (a new transaction, a new dict; a
        savepoint counts as one, so that its rollback cannot leave a head ahead of the chain)."""
        self.session.connection()  # the transaction begins now if it has not yet
        transaction = self.session.get_nested_transaction() or self.session.get_transaction()
        kept = self.session.info.get(_HEADS)
        if kept is None or kept[0] is not transaction:
            kept = (transaction, {})
            self.session.info[_HEADS] = kept
        heads: dict[int, tuple[int, str]] = kept[1]
        return heads

    @staticmethod
    def _linked(
        event_id: int, head: tuple[int, str], kind: str, payload: Mapping[str, Any], at: datetime | None
    ) -> RecordEntry:
        return RecordEntry(**RecordRepository._linked_values(event_id, head, kind, payload, at))

    @staticmethod
    def _linked_values(
        event_id: int, head: tuple[int, str], kind: str, payload: Mapping[str, Any], at: datetime | None
    ) -> dict[str, Any]:
        """The column values of the entry after ``head`` (its sequence number and hash)."""
        seq, prev = head[0] + 1, head[1]
        when = (at or utcnow()).replace(microsecond=0)
        return {
            "event_id": event_id,
            "seq": seq,
            "recorded_at": when,
            "kind": kind,
            "payload": dict(payload),
            "prev": prev,
            "hash": record.entry_hash(seq, time_text(when), kind, payload, prev),
        }

    def append_changes(self, changes: Sequence[Mapping[str, Any]]) -> None:
        """``append_change`` for many audited changes (audit rows' column values), in their order: the same
        entries, with one lock and one read of the chain's end per event and the boards of result entries
        read in one query, instead of four statements an entry (a pull's ingestion records hundreds); the
        rows are inserted as column values in one statement, not built as model objects (a pull of the 2020
        event's pools records over a hundred, a whole event 6,000: docs/performance.md)."""
        wanted = [
            c
            for c in changes
            if c.get("event_id") is not None and c.get("entity_id") is not None and c["action"] in RECORDED
        ]
        if not wanted:
            return
        result_ids = {c["entity_id"] for c in wanted if c["action"] in record.RESULT_KINDS}
        boards = (
            {
                row[0]: row
                for row in self.session.exec(
                    select(Board.id, Board.match_id, Board.board_no, Board.result).where(
                        among(self.session, col(Board.id), sorted(result_ids))
                    )
                ).all()
            }
            if result_ids
            else {}
        )
        heads: dict[int, tuple[int, str]] = {}
        rows: list[dict[str, Any]] = []
        for change in wanted:
            action, entity_id, event_id = change["action"], int(change["entity_id"]), int(change["event_id"])
            old, new = dict(change.get("old") or {}), dict(change.get("new") or {})
            board = boards.get(entity_id) if action in record.RESULT_KINDS else None
            if board is not None:  # as _payload writes a result entry
                payload: dict[str, Any] = {
                    "board": entity_id,
                    "match": board[1],
                    "board_no": board[2],
                    "result": new.get("result", board[3]),
                    "previous": old.get("result"),
                }
            else:
                payload = self._payload(action, change["entity"], entity_id, old, new)
            if event_id not in heads:
                heads[event_id] = self._head(event_id)
            row = self._linked_values(event_id, heads[event_id], action, payload, change.get("at"))
            heads[event_id] = (row["seq"], row["hash"])
            rows.append(row)
        self.session.flush()  # as the ORM's own insert did: the unit of work's pending rows go first
        insert_rows(self.session.connection(), RecordEntry.__table__, rows)  # type: ignore[attr-defined]
        self._heads().update(heads)

    def append_change(
        self,
        *,
        action: str,
        entity: str,
        entity_id: int | None,
        event_id: int | None,
        old: Mapping[str, Any] | None = None,
        new: Mapping[str, Any] | None = None,
        at: datetime | None = None,
    ) -> RecordEntry | None:
        """Append the public entry of an audited change when it decides a standing (``RECORDED``)."""
        if event_id is None or action not in RECORDED or entity_id is None:
            return None
        payload = self._payload(action, entity, entity_id, dict(old or {}), dict(new or {}))
        return self.append(event_id=event_id, kind=action, payload=payload, at=at)

    def _payload(
        self, action: str, entity: str, entity_id: int, old: dict[str, Any], new: dict[str, Any]
    ) -> dict[str, Any]:
        if action in record.RESULT_KINDS or action == "board.annulled":
            board = self._get(Board, entity_id)
            payload = {"board": entity_id, "match": board.match_id, "board_no": board.board_no}
            if action == "board.annulled":
                return {**payload, "counted_as": new.get("counted_as")}
            return {**payload, "result": new.get("result", board.result), "previous": old.get("result")}
        if action == "match.forfeit":
            match = self._get(Match, entity_id)
            return {"match": entity_id, "forfeits": {str(entity_id): new.get("forfeit", match.forfeit)}}
        if action in record.PAIRING_KINDS:
            return self._pairing(action, entity_id, new)
        if action in record.CLOSING_KINDS:
            stage = self._get(Stage, entity_id)
            return {
                "stage": entity_id,
                "stage_kind": stage.kind,
                "scoring": new.get("scoring", {}),
                "pools": new.get("pools", {}),
            }
        if entity == "lot":
            return self._lot(action, entity_id)
        if action == "team.withdraw":
            # the forfeit of each remaining match follows as its own ``match.forfeit`` entry
            return {
                "team": self._team_name(entity_id),
                "stage": new.get("stage_id"),
                "round": new.get("round"),
                "forfeited_matches": list(new.get("forfeited_match_ids", [])),
            }
        if action == "swiss.adjustment":
            return self._adjustment(entity, entity_id, new)
        if action in ("swiss.withdraw", "swiss.late_entry", "swiss.end_early"):
            return {"entity": entity, "id": entity_id, **_plain(new)}
        if action == "appeal.decide":
            appeal = self._get(Appeal, entity_id)
            return {"appeal": entity_id, "match": appeal.match_id, "status": new.get("status")}
        if action == "duel.ruling":
            return {
                "duel": entity_id,
                "winner_team_ids": (new.get("ruling") or {}).get("winner_team_ids", []),
            }
        if action == "armageddon.nominate":
            return self._nomination(entity_id, new)
        if action == "armageddon.reveal":
            return {"armageddon": entity_id, "nominations": new.get("nominations", {})}
        return {"entity": entity, "id": entity_id, "status": new.get("status")}  # event.close

    def _pairing(self, action: str, entity_id: int, new: Mapping[str, Any]) -> dict[str, Any]:
        if action == "stage.start":
            stage = self._get(Stage, entity_id)
            rounds = select(Round.id).where(Round.stage_id == entity_id)
            matches = self._matches(col(Match.round_id).in_(rounds))
            return {"stage": entity_id, "stage_kind": stage.kind, "matches": self._described(matches)}
        return self._swiss_round(entity_id, new)

    def _swiss_round(self, round_id: int, new: Mapping[str, Any]) -> dict[str, Any]:
        """A Swiss round's publication: its matches and every team of the stage not paired in it, by why
        (docs/record.md): the pairing-allocated bye (``byes``), the byes teams asked for (``full_byes``,
        ``half_byes``), the teams absent (``absent``), with the round's pool and the boards of a match, so
        that the stage's closing can be recomputed from the record alone. ``new`` is the audited change:
        its ``boards`` when the caller gives them, else those of the round's matches."""
        rnd = self._get(Round, round_id)
        not_paired = self.session.exec(
            select(SwissRoundTeam.team_id, SwissRoundTeam.role)
            .where(SwissRoundTeam.round_id == round_id)
            .order_by(col(SwissRoundTeam.id))
        ).all()
        matches = self._matches(Match.round_id == round_id)
        described = self._described(matches)
        names = self._team_names(team_id for team_id, _role in not_paired)

        def named(role: SwissRoundRole) -> list[str]:
            return [names.get(t, f"team {t}") for t, r in not_paired if r == role.value]

        pool = self._first_pool(rnd.stage_id)
        boards = new.get("boards")
        return {
            "stage": rnd.stage_id,
            "round": rnd.number,
            "pool": str(pool) if pool is not None else None,
            "boards": int(boards) if boards is not None else max((m["boards"] for m in described), default=0),
            "matches": described,
            "byes": named(SwissRoundRole.BYE),
            "full_byes": named(SwissRoundRole.FULL_BYE),
            "half_byes": named(SwissRoundRole.HALF_BYE),
            "absent": named(SwissRoundRole.ABSENT),
        }

    def _first_pool(self, stage_id: int) -> int | None:
        """A Swiss stage's pool (its only one): what a Swiss entry names so verify-record can count it."""
        return self.session.exec(
            select(Pool.id).where(Pool.stage_id == stage_id).order_by(col(Pool.id))
        ).first()

    def _adjustment(self, entity: str, entity_id: int, new: Mapping[str, Any]) -> dict[str, Any]:
        """A bonus or penalty with its stage's id and pool, so that ``verify-record`` counts it in the
        stage's closing (docs/record.md); the stage's name stays as ``stage_name``."""
        row = self._get(ScoreAdjustment, entity_id)
        pool = self._first_pool(row.stage_id)
        plain = _plain(new)
        return {
            "entity": entity,
            "id": entity_id,
            **plain,
            "stage": row.stage_id,
            "stage_name": plain.get("stage"),
            "pool": str(pool) if pool is not None else None,
        }

    def _described(self, matches: Sequence[PairedMatch]) -> list[dict[str, Any]]:
        ids = [m.id for m in matches]
        counts = dict(
            self.session.exec(
                select(Board.match_id, func.count())
                .where(among(self.session, col(Board.match_id), ids))
                .group_by(col(Board.match_id))
            ).all()
        )
        rounds = dict(
            self.session.exec(
                select(Round.id, Round.number).where(
                    among(self.session, col(Round.id), sorted({m.round_id for m in matches}))
                )
            ).all()
        )
        names = self._team_names(t for m in matches for t in (m.first_team_id, m.second_team_id))
        return [
            {
                "match": m.id,
                "pool": str(m.pool_id) if m.pool_id is not None else None,
                "round": rounds.get(m.round_id),
                "a": names.get(m.first_team_id, f"team {m.first_team_id}"),
                "b": names.get(m.second_team_id, f"team {m.second_team_id}"),
                "boards": counts.get(m.id or 0, 0),
            }
            for m in sorted(matches, key=lambda m: m.id or 0)
        ]

    def _lot(self, action: str, lot_id: int) -> dict[str, Any]:
        lot = self._get(Lot, lot_id)
        if action == "lot.commit":  # the commitment only: the seed stays sealed until the draw
            return {
                "lot": lot_id,
                "purpose": lot.purpose,
                "kind": lot.kind,
                "candidates": list(lot.candidates),
                "commitment": lot.commitment,
            }
        payload: dict[str, Any] = {"lot": lot_id, "purpose": lot.purpose, "seed_hex": lot.seed_hex}
        if lot.outcome is not None:
            payload["outcome"] = list(lot.outcome)
        return payload

    def _nomination(self, armageddon_id: int, new: Mapping[str, Any]) -> dict[str, Any]:
        """Whom a team nominated: sealed on the public record until the Armageddon leaves its nomination
        phase (docs/rules.md §5); the record page shows the entry's hash only until then."""
        arm = self._get(Armageddon, armageddon_id)
        team_id = new.get("team_id")
        duel = self._get(Duel, arm.duel_id)
        nominee_id = arm.first_nominee_id if team_id == duel.first_team_id else arm.second_nominee_id
        player = self.session.get(Player, nominee_id) if nominee_id is not None else None
        return {
            "armageddon": armageddon_id,
            "duel": arm.duel_id,
            "team": self._team_name(int(team_id)) if team_id is not None else None,
            "player": player.name if player is not None else None,
        }

    def _get(self, model: Any, row_id: int) -> Any:
        row = self.session.get(model, row_id)
        if row is None:
            raise LookupError(f"{model.__tablename__} {row_id} is not there to record")
        return row

    def _matches(self, where: Any) -> list[PairedMatch]:
        """The matches a pairing entry describes, as plain values (a stage start's 675 matches, a Swiss
        round's 95: building model objects of rows just inserted was most of the entry's time)."""
        rows = self.session.execute(sa_select(*PAIRED_COLUMNS).where(where))
        return [PairedMatch._make(row) for row in rows]

    def _team_names(self, team_ids: Iterable[int]) -> dict[int, str]:
        """Teams' names in one query (a round's pairing names every team of the stage)."""
        return TeamRepository(self.session).names_by_id(team_ids)

    def _team_name(self, team_id: int) -> str:
        team = self.session.get(Team, team_id)
        return team.name if team is not None else f"team {team_id}"

    # --- reading ------------------------------------------------------------------------------------

    def last(self, event_id: int) -> RecordEntry | None:
        return self.session.exec(
            select(RecordEntry).where(RecordEntry.event_id == event_id).order_by(col(RecordEntry.seq).desc())
        ).first()

    def count(self, event_id: int) -> int:
        return int(
            self.session.exec(
                select(func.count()).select_from(RecordEntry).where(RecordEntry.event_id == event_id)
            ).one()
        )

    def newest_first(self, event_id: int, *, offset: int, limit: int) -> Sequence[RecordEntry]:
        return self.session.exec(
            select(RecordEntry)
            .where(RecordEntry.event_id == event_id)
            .order_by(col(RecordEntry.seq).desc())
            .offset(offset)
            .limit(limit)
        ).all()

    def oldest_first(self, event_id: int) -> Sequence[RecordEntry]:
        return self.session.exec(
            select(RecordEntry).where(RecordEntry.event_id == event_id).order_by(col(RecordEntry.seq))
        ).all()


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """The scalar fields of an audit's ``new`` (numbers, words, lists of them): nothing nested."""
    return {k: v for k, v in values.items() if isinstance(v, str | int | bool | list) or v is None}
