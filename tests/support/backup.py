"""What the backup tests need: a busy event (play-off results, an Armageddon, appeals, a sealed lot, users
with passwords and invitations, a linked player), the public JSON documents of an event, and row counts.

    full_event(factory)                      # on any database; returns the PlayoffSetup
    documents(app, slug)                     # {"/api/v1/...": json} for every public document of the event
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlmodel import col

from orchestrator.adapters.event_archive import MANIFEST, member_name
from orchestrator.adapters.tables import Duel, Match, Player, PlayerLink, Role, Round, Stage, Team
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import metadata
from orchestrator.services.accounts.users import AuthUser, create_user, invite_captain
from orchestrator.services.playoff.armageddon import (
    choose_colour,
    commit_armageddon_lot,
    nominate,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.armageddon_game import record_armageddon_result
from orchestrator.services.results.appeals import decide_appeal, open_appeal
from tests.support.playoff import (
    SEED_B,
    PlayoffSetup,
    draw_category,
    duel,
    duel_match,
    eligible_accounts,
    play_duel,
    playoff_with_bracket,
)
from tests.support.web import PASSWORD

ARBITER = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)
TOKEN_CIPHERTEXT = "gAAAAA-secret-token-ciphertext-of-the-test"


def _armageddon(factory: UnitOfWorkFactory, setup: PlayoffSetup, key: str) -> None:
    """Duel ``key`` level 1-1, then its Armageddon from the category lot to the result."""
    play_duel(factory, setup, key, "DDDDDD", "DDDDDD")
    duel_id, _category = draw_category(factory, setup, key)
    with factory() as uow:
        d = duel(uow, setup, key)
        sides = [t for t in (d.first_team_id, d.second_team_id) if t is not None]
        names = {team_id: name for name, team_id in setup.team_ids.items()}
        accounts = {t: eligible_accounts(uow, setup, key, names[t])[0] for t in sides}
    for team_id, account in accounts.items():
        with factory() as uow:
            nominate(uow, duel_id=duel_id, team_id=team_id, account=account, actor=ARBITER)
    with factory() as uow:
        commit_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter", seed=SEED_B)
    with factory() as uow:
        chooser = reveal_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter")
    with factory() as uow:
        choose_colour(uow, duel_id=duel_id, team_id=setup.team_ids[chooser], colour="black", actor=ARBITER)
    with factory() as uow:
        record_armageddon_result(uow, duel_id=duel_id, result="0-1", actor="arbiter")


def full_event(factory: UnitOfWorkFactory, *, slug: str = "backup-cup") -> PlayoffSetup:
    """The 2020 event's play-off: duel IV by Armageddon, duel I with a rejected and an open appeal, duel II
    level with its category lot committed but not drawn (a sealed seed), staff and captain accounts with
    passwords and an invitation, and a player linked to the game server."""
    setup = playoff_with_bracket(factory, slug=slug)
    _armageddon(factory, setup, "IV")
    play_duel(factory, setup, "I", "WWWDDD", "WDDDDD")
    with factory() as uow:
        first = duel_match(uow, setup, "I", 1)
        appeal = open_appeal(uow, match_id=first.id or 0, actor="arbiter", grounds="clock fault")
    with factory() as uow:
        decide_appeal(
            uow, appeal_id=appeal.appeal_id, decision="no fault found", upheld=False, actor="arbiter"
        )
    with factory() as uow:
        second = duel_match(uow, setup, "I", 2)
        open_appeal(uow, match_id=second.id or 0, actor="arbiter", grounds="late start", deadline_minutes=600)
    play_duel(factory, setup, "II", "DDDDDD", "DDDDDD")
    with factory() as uow:
        duel_id = duel(uow, setup, "II").id or 0
        commit_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")
    with factory() as uow:
        create_user(uow, username="owner", password=PASSWORD, role=Role.OWNER, actor="test")
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER, actor="test")
        team_id = next(iter(setup.team_ids.values()))
        create_user(
            uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=team_id, actor="test"
        )
        invite_captain(uow, username="captain-two", team_id=team_id, actor="test")
    _link_a_player(factory, setup)
    return setup


def _link_a_player(factory: UnitOfWorkFactory, setup: PlayoffSetup) -> None:
    with factory() as uow:
        player_id = (
            uow.session.execute(
                select(Player.id).where(Player.event_id == setup.event_id).order_by(Player.id)
            )
            .scalars()
            .first()
        )
        uow.teams.insert(
            PlayerLink(player_id=player_id or 0, token_encrypted=TOKEN_CIPHERTEXT, status="linked")
        )


def sealed_duel_id(factory: UnitOfWorkFactory, setup: PlayoffSetup) -> int:
    with factory() as uow:
        found: Duel = duel(uow, setup, "II")
        return found.id or 0


def damaged_archive(archive: Path, tmp_path: Path, how: str) -> Path:
    data = bytearray(archive.read_bytes())
    bad = tmp_path / f"{how}.zip"
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "flipped":  # a byte inside the board table's compressed rows
        with zipfile.ZipFile(archive) as opened:
            info = opened.getinfo(member_name("board"))
        data[info.header_offset + 30 + len(info.filename) + info.compress_size // 2] ^= 0x20
    elif how == "not-a-zip":
        data = bytearray(b"slug,name\nbackup-cup,Cup\n")
    bad.write_bytes(bytes(data))
    return bad


def rewritten_archive(archive: Path, tmp_path: Path, change: str) -> Path:
    """The archive written again with one change (its checksums made to agree where the test needs)."""
    bad = tmp_path / f"{change}.zip"
    with zipfile.ZipFile(archive) as opened, zipfile.ZipFile(bad, "w") as out:
        manifest = json.loads(opened.read(MANIFEST))
        members = {name: opened.read(name) for name in opened.namelist()[1:]}
        if change == "newer-format":
            manifest["format_version"] = 2
        elif change == "newer-schema":
            manifest["schema_revision"] = "ffffffffffff"
        elif change == "missing-member":
            members.pop(member_name("match"))
        elif change == "no-players":  # boards and links then refer to players the archive lacks
            members[member_name("player")] = b""
            entry = next(e for e in manifest["tables"] if e["name"] == "player")
            entry["rows"], entry["sha256"] = 0, hashlib.sha256(b"").hexdigest()
        elif change == "bad-values":  # a seed as text and a time without its zone, checksums made right
            rows = [json.loads(line) for line in members[member_name("team")].splitlines()]
            rows[0] = {**rows[0], "seed": "one", "withdrawn_at": "2020-08-27T10:00:00"}
            body = "".join(json.dumps(r) + "\n" for r in rows).encode()
            members[member_name("team")] = body
            entry = next(e for e in manifest["tables"] if e["name"] == "team")
            entry["sha256"] = hashlib.sha256(body).hexdigest()
        elif change == "unknown-table":
            body = b'{"id": 1}\n'
            members[member_name("mystery")] = body
            manifest["tables"].append(
                {
                    "name": "mystery",
                    "member": member_name("mystery"),
                    "columns": ["id"],
                    "rows": 1,
                    "sha256": hashlib.sha256(body).hexdigest(),
                }
            )
        elif change == "unknown-column":
            rows = [json.loads(line) for line in members[member_name("team")].splitlines()]
            body = "".join(json.dumps({**r, "colour": "red"}) + "\n" for r in rows).encode()
            members[member_name("team")] = body
            entry = next(e for e in manifest["tables"] if e["name"] == "team")
            entry["columns"].append("colour")
            entry["sha256"] = hashlib.sha256(body).hexdigest()
        out.writestr(MANIFEST, json.dumps(manifest))
        for name, body in members.items():
            out.writestr(name, body)
    return bad


def row_counts(factory: UnitOfWorkFactory) -> dict[str, int]:
    """Rows in every table of the schema."""
    with factory() as uow:
        return {
            table.name: uow.session.execute(select(func.count()).select_from(table)).scalar_one()
            for table in metadata.sorted_tables
        }


def match_and_team_ids(factory: UnitOfWorkFactory, event_id: int) -> tuple[list[int], list[int]]:
    """Every match and every team of the event, by id."""
    with factory() as uow:
        stages = select(Stage.id).where(Stage.event_id == event_id)
        rounds = select(Round.id).where(col(Round.stage_id).in_(stages))
        matches = uow.session.execute(select(Match.id).where(col(Match.round_id).in_(rounds))).scalars()
        teams = uow.session.execute(select(Team.id).where(Team.event_id == event_id)).scalars()
        return sorted(m for m in matches if m), sorted(t for t in teams if t)


def documents(app: FastAPI, slug: str, match_ids: list[int], team_ids: list[int]) -> dict[str, Any]:
    """Every public JSON document of the event: the event list, the event, its stages and their pools,
    the bracket, the matches and teams given."""
    client = TestClient(app)

    def get(path: str) -> Any:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        found[path] = answer.json()
        return found[path]

    found: dict[str, Any] = {}
    base = f"/api/v1/events/{slug}"
    get("/api/v1/events")
    get(f"{base}/bracket")
    for stage in get(base)["stages"]:
        for pool in get(f"{base}/stages/{stage['key']}")["pools"]:
            get(f"{base}/stages/{stage['key']}/pools/{pool['letter']}")
    for match_id in match_ids:
        get(f"{base}/matches/{match_id}")
    for team_id in team_ids:
        get(f"{base}/teams/{team_id}")
    return found
