"""The rating file (docs/ratings.md, "The rating file"): TRF-2026 with the real players.

Field positions are checked against lines written out by hand from the TRF-2026 layout (record 001: 5-8
number, 10 sex, 11-13 title, 15-47 name, 49-52 rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date,
81-84 points, 86-89 rank, 92-95/97/99 round 1; records 013 and 310). Then a played Swiss stage is
downloaded by staff and read by FIDE's checker gacrux, whose points and ranks must agree with ours.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.domain.scoring import GameResult, MatchRecord
from orchestrator.domain.trf.players import TrfPlayer, write_players_trf
from orchestrator.services.accounts.users import create_user
from orchestrator.services.read import rating_trf
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup.stage_start import start_stage
from tests.support.factories import make_event, running_stage, stage_id_of
from tests.support.playoff import duel, play_duel, playoff_with_bracket
from tests.support.swiss import ACTOR, SWISS_EVENT, pair_publish_play, play_round
from tests.support.web import PASSWORD, login

ROSTERS = {
    "Alpha": [
        TrfPlayer("a1", "Zeta, Anna", sex="f", title="WGM", rating=2401, federation="ABC", fide_id=1234567,
                  birth_year=1999),
        TrfPlayer("a2", "Young, Yuri", sex="m", title="GM", rating=2650, federation="ABC", birth_year=2001),
        TrfPlayer("a3", "Reserve, Ray", sex="m"),
    ],
    "Beta": [
        TrfPlayer("b1", "Xu, Xin", sex="m", rating=2300, federation="XYZ", fide_id=99),
        TrfPlayer("b2", "Wu, Wei", sex="f", rating=2200, federation="XYZ"),
    ],
}  # fmt: skip


def _one_round() -> str:
    # Alpha – Beta 1.5-0.5 over two boards: board 1 (Alpha White) 1-0, board 2 (Beta White) ½-½.
    return write_players_trf(
        ["Alpha", "Beta"],
        [MatchRecord(1, "Alpha", "Beta", 3, 1)],
        rosters=ROSTERS,
        seats={(1, "Alpha"): [("a1", "b1"), ("a2", "b2")]},
        games={(1, "Alpha"): (GameResult.WHITE_WINS, GameResult.DRAW)},
        chain=["MP", "GP"],
        name="Hand Cup",
        boards=2,
    )


def test_player_records_put_every_field_in_its_trf_2026_columns() -> None:
    records = {line[4:8]: line for line in _one_round().splitlines() if line.startswith("001")}
    # Numbers: team by team, each team's list in order: a1=1, a2=2, a3=3, b1=4, b2=5.
    anna = (
        "001 "  # 1-4
        + "   1 "  # 5-8 number, 9
        + "w"  # 10 sex: TRF writes w for a woman
        + " wg "  # 11-13 title code of WGM, 14
        + "Zeta, Anna".ljust(33) + " "  # 15-47 name, 48
        + "2401 "  # 49-52 rating, 53
        + "ABC "  # 54-56 federation, 57
        + "    1234567 "  # 58-68 FIDE id (11 wide), 69
        + "1999/00/00 "  # 70-79 birth date, year only known, 80
        + " 1.0 "  # 81-84 points: won board 1, 85
        + "   1  "  # 86-89 rank (Alpha's: 2 MP to 0), 90-91
        + "   4 w 1"  # 92-95 opponent b1 = 4, 97 colour White, 99 result 1
    )  # fmt: skip
    assert records["   1"] == anna
    yuri = records["   2"]
    assert (yuri[9], yuri[10:13], yuri[48:52], yuri[57:68], yuri[69:79]) == (
        "m",
        "  g",
        "2650",
        " " * 11,
        "2001/00/00",
    )
    assert (yuri[80:84], yuri[91:99]) == (" 0.5", "   5 b =")  # board 2: Black, drawn
    ray = records["   3"]  # the reserve did not play: not paired, blank result, no rating, no id
    assert ray[48:79].strip() == "" and ray[80:89] == " 0.0    1" and ray[91:99] == "0000 -  "
    wei = records["   5"]
    assert (wei[9], wei[80:84], wei[85:89], wei[91:99]) == ("w", " 0.5", "   2", "   2 w =")


def test_team_records_013_and_310_list_the_players_of_each_team() -> None:
    text = _one_round()
    team_013 = [line for line in text.splitlines() if line.startswith("013")]
    # 013: 5-36 team name, then player k at 37 + 5(k − 1).
    assert team_013[0] == "013 " + "Alpha".ljust(32) + "   1" + " " + "   2" + " " + "   3"
    assert team_013[1] == "013 " + "Beta".ljust(32) + "   4" + " " + "   5"
    team_310 = [line for line in text.splitlines() if line.startswith("310")]
    # 310: 5-7 number, 9-40 name, 55-60 MP, 62-67 GP, 69-71 rank, players from 74 every 5 columns.
    alpha = "310   1 " + "Alpha".ljust(46) + "   2.0" + " " + "   1.5" + " " + "  1" + "  " + "   1    2    3"
    assert team_310[0] == alpha
    assert [line for line in text.splitlines() if line[:3] in ("062", "072")] == ["062 5", "072 4"]


def test_a_board_without_an_opponent_gives_the_seated_player_the_forfeit_letter() -> None:
    text = write_players_trf(
        ["Alpha", "Beta"],
        [MatchRecord(1, "Alpha", "Beta", 2, 2)],
        rosters=ROSTERS,
        seats={(1, "Alpha"): [("a1", "b1"), (None, "b2")]},
        games={(1, "Alpha"): (GameResult.BLACK_WINS, GameResult.WHITE_WINS_FORFEIT)},
        chain=["MP"],
        boards=2,
    )
    wei = next(line for line in text.splitlines() if line.startswith("001    5"))
    assert wei[91:99] == "0000 - +" and wei[80:84] == " 1.0"


def gacrux_standings(
    trf: str, tmp_path: Path, mode: str = "-s", codes: tuple[str, ...] = ("MPTS", "GPTS")
) -> dict[int, dict[str, Any]]:
    path = tmp_path / "rating.trf"
    path.write_text(trf, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(path), mode, "-t", *codes],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    result = json.loads(run.stdout)
    assert result["status"]["code"] == 0, result["status"]
    return {c["cid"]: c for c in result["tiebreakResult"]["competitors"]}


@pytest.fixture
def swiss_played(app: FastAPI, sent: list[Any]) -> tuple[FastAPI, int]:
    factory = app.state.uow_factory
    with factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        stage_id = stage_id_of(uow, make_event(uow, SWISS_EVENT), "open")
        start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    for _ in range(3):
        pair_publish_play(factory, stage_id)
    with factory() as uow:
        pool_id = uow.read.pools_of_stages([stage_id])[0].id or 0
    return app, pool_id


def test_gacrux_reads_the_swiss_rating_file_and_agrees_on_points_and_ranks(
    swiss_played: tuple[FastAPI, int], tmp_path: Path
) -> None:
    app, pool_id = swiss_played
    assert TestClient(app).get(f"/staff/pools/{pool_id}/rating.trf", follow_redirects=False).status_code in (
        303,
        401,
    )  # staff only: it carries birth years and FIDE ids
    arbiter, _ = login(app, "arbiter")
    answer = arbiter.get(f"/staff/pools/{pool_id}/rating.trf")
    assert answer.status_code == 200 and answer.headers["content-disposition"].endswith('-rating.trf"')
    assert arbiter.get(f"/api/v1/pools/{pool_id}/rating.trf").text == answer.text
    text = answer.text
    with app.state.uow_factory() as uow:
        data = standings_service.pool_records(uow, pool_id=pool_id)
        ours = standings_service.pool_standings(uow, pool_id=pool_id)
    # Rounds 1-3 are scheduled on 16, 17 and 18 September 2030 (tests/fixtures/events/swiss-small.yaml).
    assert "042 2030/09/16" in text.splitlines() and "052 2030/09/18" in text.splitlines()
    players = [line for line in text.splitlines() if line.startswith("001")]
    assert len(players) == 7 * 5  # seven teams of four boards and a reserve
    theirs = gacrux_standings(text, tmp_path)
    rows = {row.team: row for row in ours.rows}
    for tpn, team in enumerate(data.teams, 1):
        assert Fraction(Decimal(str(theirs[tpn]["tiebreakScore"][0]))) == rows[team].values["MP"], team
        assert Fraction(Decimal(str(theirs[tpn]["tiebreakScore"][1]))) == rows[team].values["GP"], team
    # gacrux ranks by MP then GP here; ours by the Olympiad chain (MP first, then its own tie-breaks):
    # wherever MP tells two teams apart, the two rankings must order them alike.
    for a in data.teams:
        for b in data.teams:
            if rows[a].values["MP"] > rows[b].values["MP"]:
                assert rows[a].rank < rows[b].rank
                assert theirs[data.teams.index(a) + 1]["rank"] < theirs[data.teams.index(b) + 1]["rank"], (
                    a,
                    b,
                )
    # The rank we wrote in each 310 record is our standings' rank.
    for line in (line for line in text.splitlines() if line.startswith("310")):
        assert int(line[68:71]) == rows[data.teams[int(line[4:7]) - 1]].rank


def test_a_round_robin_pool_and_a_duel_are_written_with_their_players_and_gacrux_reads_them(
    app: FastAPI, sent: list[Any], tmp_path: Path
) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = running_stage(uow)
        pool = uow.read.pools_of_stages([stage_id])[0]
        round_ids = [r.id or 0 for r in sorted(uow.rounds.rounds_of_stage(stage_id), key=lambda r: r.number)]
    for round_id in round_ids:  # the whole round robin: 4 teams, 3 rounds
        assert play_round(factory, round_id) == []
    with factory() as uow:
        _, text = rating_trf.pool_rating_trf(uow, pool_id=pool.id or 0)
        data = standings_service.pool_records(uow, pool_id=pool.id or 0)
        ours = {row.team: row for row in standings_service.pool_standings(uow, pool_id=pool.id or 0).rows}
    assert "192 FIDE_TEAM_ROUNDROBIN" in text
    # The group's chain is online-2020: MP, GP, DE:MP, DE:GP, EMMSB, EGGSB, then a lot (not drawn here:
    # teams still tied share their rank, in gacrux's standings as in ours).
    codes = ("MPTS", "GPTS", "DE:MP", "DE:GP", "EMMSB", "EGGSB")
    theirs = gacrux_standings(text, tmp_path, "-p", codes)
    for tpn, team in enumerate(data.teams, 1):
        assert Fraction(Decimal(str(theirs[tpn]["tiebreakScore"][0]))) == ours[team].values["MP"], team
        assert Fraction(Decimal(str(theirs[tpn]["tiebreakScore"][1]))) == ours[team].values["GP"], team
        assert theirs[tpn]["rank"] == ours[team].rank, (team, text)

    setup = playoff_with_bracket(factory, slug="duel-cup")
    play_duel(factory, setup, "I", "WWWDDD", "LLDDDW")
    with factory() as uow:
        duel_id = duel(uow, setup, "I").id or 0
        _, duel_text = rating_trf.duel_rating_trf(uow, duel_id=duel_id)
    team_records = [line for line in duel_text.splitlines() if line.startswith("310")]
    assert len(team_records) == 2
    # From the first team's side: leg 1, 3 wins and 3 draws = 4.5 of 6, won (2 MP); leg 2, 1 win, 3 draws
    # and 2 losses = 2.5 of 6, lost (0 MP). Together 7.0 game points and 2 match points.
    first = team_records[0]
    assert first[61:67] == "   7.0" and first[54:60] == "   2.0"
    players = [line for line in duel_text.splitlines() if line.startswith("001")]
    assert all(len(line) >= 109 for line in players)  # two rounds of ten columns from column 92
    theirs_duel = gacrux_standings(duel_text, tmp_path)
    assert Fraction(Decimal(str(theirs_duel[1]["tiebreakScore"][1]))) == Fraction(7)
