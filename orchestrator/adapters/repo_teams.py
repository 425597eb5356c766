"""Teams and their rosters (``uow.teams``): players, lineups, annulments and the players'
game-server links.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository, among, constants, known_ids
from orchestrator.adapters.tables import (
    Annulment,
    Event,
    EventStatus,
    Lineup,
    LinkStatus,
    Match,
    Player,
    PlayerLink,
    Pool,
    PoolEntry,
    Team,
)
from orchestrator.domain import teams as domain_teams


@dataclass(frozen=True, slots=True)
class PairingAccount:
    """What pairing a player needs: their name and account, and their link (status, token) if any."""

    player_id: int
    name: str
    account: str
    link_status: str  # LinkStatus value; "missing" without a link row
    linked_account: str | None
    token_encrypted: str | None


@dataclass(frozen=True, slots=True)
class PlayerLinkRow:
    """A player of an event with the state of their game-server link (no token)."""

    player: Player
    team: Team
    status: str
    linked_account: str | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class RosterRow:
    """A player as a roster needs them (plain values, the same names as ``Player``'s columns)."""

    team_id: int
    name: str
    account: str
    sex: str
    birth_year: int
    rating: int
    main_board: int | None
    category: str
    fide_id: int | None
    title: str | None
    federation: str | None
    k_factor: int | None


def domain_player(p: Player | RosterRow) -> domain_teams.Player:
    """A stored player (row or plain roster row) as the pure domain sees it."""
    return domain_teams.Player(
        name=p.name,
        account=p.account,
        sex=domain_teams.Sex(p.sex),
        birth_year=p.birth_year,
        rating=p.rating,
        fide_id=p.fide_id,
        title=p.title,
        federation=p.federation,
        k_factor=p.k_factor,
    )


class TeamRepository(Repository):
    """Teams and their rosters (``uow.teams``): players, lineups, annulments and the players'
    game-server links."""

    # --- teams ----------------------------------------------------------------------------------------------

    def teams_of_event(self, event_id: int) -> Sequence[Team]:
        return self.session.exec(
            select(Team).where(Team.event_id == event_id).order_by(col(Team.seed), col(Team.id))
        ).all()

    def teams_by_id(self, team_ids: Iterable[int | None]) -> dict[int, Team]:
        ids = known_ids(team_ids)
        if not ids:
            return {}
        found = self.session.exec(select(Team).where(among(self.session, col(Team.id), ids))).all()
        return {t.id or 0: t for t in found}

    def names_by_id(self, team_ids: Iterable[int | None]) -> dict[int, str]:
        """Teams' names by id in one query of two columns (``teams_by_id`` builds each ``Team``: a Swiss
        round's pairing names every team of its stage)."""
        ids = known_ids(team_ids)
        if not ids:
            return {}
        rows = self.session.execute(
            sa_select(col(Team.id), col(Team.name)).where(among(self.session, col(Team.id), ids))
        ).all()
        return {int(team_id): name for team_id, name in rows}

    def team_by_name(self, event_id: int, name: str) -> Team | None:
        return self.session.exec(select(Team).where(Team.event_id == event_id, Team.name == name)).first()

    def teams_of_stage(self, stage_id: int) -> Sequence[int]:
        return self.session.exec(
            select(PoolEntry.team_id)
            .join(Pool, col(Pool.id) == PoolEntry.pool_id)
            .where(Pool.stage_id == stage_id)
            .order_by(col(PoolEntry.team_id))
        ).all()

    # --- players and rosters --------------------------------------------------------------------------------

    def players_of_team(self, team_id: int) -> Sequence[Player]:
        """Main players by board, then reserves."""
        return self.session.exec(
            select(Player)
            .where(Player.team_id == team_id)
            .order_by(col(Player.main_board).is_(None), col(Player.main_board), col(Player.id))
        ).all()

    def players_of_event(self, event_id: int) -> Sequence[Player]:
        return self.session.exec(
            select(Player)
            .where(Player.event_id == event_id)
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        ).all()

    def players_by_id(self, player_ids: Iterable[int | None]) -> dict[int, Player]:
        ids = known_ids(player_ids)
        if not ids:
            return {}
        rows = self.session.exec(select(Player).where(among(self.session, col(Player.id), ids))).all()
        return {p.id or 0: p for p in rows}

    def main_boards_by_team(self, team_ids: Iterable[int | None]) -> dict[int, dict[int, int]]:
        """Each team's main players as {board number: player id}, in one query of plain rows."""
        ids = known_ids(team_ids)
        out: dict[int, dict[int, int]] = {i: {} for i in ids}
        if not ids:
            return out
        rows = self.session.execute(
            sa_select(col(Player.team_id), col(Player.main_board), col(Player.id)).where(
                among(self.session, col(Player.team_id), ids), col(Player.main_board).is_not(None)
            )
        ).all()
        for team_id, board, player_id in rows:
            out[team_id][board] = player_id
        return out

    def ratings_by_team(self, team_ids: Iterable[int | None]) -> dict[int, tuple[int, ...]]:
        """Each team's players' ratings in roster order (``roster_rows_of_event``'s), for the given teams
        only: what the Swiss pairing reads of a team, without the event's other section (docs/swiss.md)."""
        ids = known_ids(team_ids)
        if not ids:
            return {}
        found: dict[int, list[int]] = {team_id: [] for team_id in ids}
        rows = self.session.execute(
            sa_select(col(Player.team_id), col(Player.rating))
            .where(among(self.session, col(Player.team_id), ids))
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        ).all()
        for team_id, rating in rows:
            found[team_id].append(rating)
        return {team_id: tuple(ratings) for team_id, ratings in found.items()}

    def roster_rows_of_event(self, event_id: int) -> list[RosterRow]:
        """``players_of_event`` as plain rows (drafting reads the whole field's 1,450 players each time)."""
        rows = self.session.execute(
            sa_select(
                col(Player.team_id),
                col(Player.name),
                col(Player.account),
                col(Player.sex),
                col(Player.birth_year),
                col(Player.rating),
                col(Player.main_board),
                col(Player.category),
                col(Player.fide_id),
                col(Player.title),
                col(Player.federation),
                col(Player.k_factor),
            )
            .where(col(Player.event_id) == event_id)
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        ).all()
        return [RosterRow(*row) for row in rows]

    def delete_players_of_team(self, team_id: int) -> None:
        self.session.execute(delete(Player).where(col(Player.team_id) == team_id))

    # --- lineups --------------------------------------------------------------------------------------------

    def lineup_of(self, match_id: int, team_id: int) -> Lineup | None:
        return self.session.exec(
            select(Lineup).where(Lineup.match_id == match_id, Lineup.team_id == team_id)
        ).first()

    def lineups_of_matches(self, match_ids: Iterable[int | None]) -> dict[tuple[int, int], Lineup]:
        ids = known_ids(match_ids)
        if not ids:
            return {}
        rows = self.session.exec(select(Lineup).where(among(self.session, col(Lineup.match_id), ids))).all()
        return {(lineup.match_id, lineup.team_id): lineup for lineup in rows}

    def lineups_of_round(self, round_id: int) -> set[tuple[int, int]]:
        """(match id, team id) of every lineup submitted for the round's matches."""
        rows = self.session.exec(
            select(Lineup.match_id, Lineup.team_id)
            .join(Match, col(Match.id) == Lineup.match_id)
            .where(Match.round_id == round_id)
        ).all()
        return {(match_id, team_id) for match_id, team_id in rows}

    # --- annulments (docs/rules.md, "Fair-play rulings") ----------------------------------------------------

    def annulled_player_ids(self, event_id: int) -> set[int]:
        """Players of the event whose games were annulled for fair play.

        Read from the annulments, each player's event looked up by its key: rulings are rare, an event has
        thousands of players, and a join let PostgreSQL start from the players whenever its statistics
        took the event for a small one (every page and every standings recompute read them: 1,450 index
        probes, 3.8 ms, for no row; docs/performance.md, "Arrays as parameters").
        """
        event_of_player = select(Player.event_id).where(col(Player.id) == col(Annulment.player_id))
        rows = self.session.exec(
            select(Annulment.player_id).where(event_of_player.scalar_subquery() == event_id)
        ).all()
        return set(rows)

    def annulments_of_event(self, event_id: int) -> Sequence[tuple[Annulment, Player]]:
        rows = self.session.exec(
            select(Annulment, Player)
            .where(Annulment.player_id == Player.id, Player.event_id == event_id)
            .order_by(col(Annulment.annulled_at))
        ).all()
        return [(annulment, player) for annulment, player in rows]

    def annulment_of_player(self, player_id: int) -> Annulment | None:
        return self.session.exec(select(Annulment).where(Annulment.player_id == player_id)).first()

    # --- game-server accounts and links ---------------------------------------------------------------------

    def pairing_accounts(self, player_ids: Iterable[int]) -> dict[int, PairingAccount]:
        """Players with their link columns, keyed by id: one query, plain rows (a round pairs 300)."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        rows = self.session.execute(
            sa_select(
                col(Player.id),
                col(Player.name),
                col(Player.account),
                col(PlayerLink.status),
                col(PlayerLink.linked_account),
                col(PlayerLink.token_encrypted),
            )
            .join(PlayerLink, col(PlayerLink.player_id) == Player.id, isouter=True)
            .where(among(self.session, col(Player.id), ids))
        ).all()
        return {
            pid: PairingAccount(pid, name, account, status or LinkStatus.MISSING.value, linked, token)
            for pid, name, account, status, linked, token in rows
        }

    def link_of_player(self, player_id: int) -> PlayerLink | None:
        return self.session.exec(select(PlayerLink).where(PlayerLink.player_id == player_id)).first()

    def players_with_links(self, event_id: int) -> list[PlayerLinkRow]:
        """Every player of an event with their link state (missing when no link row exists)."""
        rows = self.session.exec(
            select(Player, Team, PlayerLink)
            .join(Team, col(Team.id) == Player.team_id)
            .join(PlayerLink, col(PlayerLink.player_id) == Player.id, isouter=True)
            .where(Player.event_id == event_id)
            .order_by(col(Team.seed), col(Player.main_board).nulls_last(), col(Player.name))
        ).all()
        return [
            PlayerLinkRow(
                player=player,
                team=team,
                status=link.status if link is not None else LinkStatus.MISSING.value,
                linked_account=link.linked_account if link is not None else None,
                updated_at=link.updated_at if link is not None else None,
            )
            for player, team, link in rows
        ]

    def players_to_link(self) -> Sequence[tuple[Player, Team, Event]]:
        """Players with an e-mail address and no working link, in events that are published or running.

        The events first (``ix_event_status``): with none published or running, as between a season's
        events, the players are not asked for, so the scan costs the same beside any number of finished
        events (docs/workers.md, "Idle ticks")."""
        events = self.session.exec(
            select(Event).where(
                col(Event.status).in_(constants([EventStatus.PUBLISHED.value, EventStatus.RUNNING.value]))
            )
        ).all()
        if not events:
            return []
        by_id = {event.id: event for event in events}
        rows = self.session.exec(
            select(Player, Team)
            .join(Team, col(Team.id) == Player.team_id)
            .outerjoin(PlayerLink, col(PlayerLink.player_id) == Player.id)
            .where(
                col(Player.event_id).in_(list(by_id)),
                col(Player.email).is_not(None),
                (col(PlayerLink.id).is_(None)) | (PlayerLink.status != LinkStatus.LINKED.value),
            )
            .order_by(col(Player.id))
        ).all()
        return [(player, team, by_id[player.event_id]) for player, team in rows]
