"""The demo driver on Swiss events (orchestrator/demo/swiss.py), embedded default, games instant.

- events/olympiad-2026-small.yaml: every round of the Swiss stage paired, published and played, read
  back from the public JSON API; the standings are final and each team's match and game points are
  those its matches and bye add up to; every pairing and publication is in the audit log, the workers'
  (the file says auto_publish).
- tests/fixtures/events/two-swiss-playoff.yaml: two Swiss sections played side by side, then the
  play-off built from both final standings, to a champion the bracket confirms.
- ``olympiad demo --event events/olympiad-2026-small.yaml`` as a real process: the champion it prints is
  the winner of the stage's final standings in the database it leaves; an unknown ``--swiss-engine`` is
  refused before anything is set up.

No timed assertions: the demo's instant speed only shortens the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrator.adapters.tables import StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory
from orchestrator.demo.driver import Demo, DemoResult, DemoSetup
from orchestrator.demo.plan import DemoOptions
from orchestrator.domain.bracket import PoolPlace
from orchestrator.eventfile import parse_event
from orchestrator.jobs.runtime import ACTOR as WORKER
from orchestrator.ports import free_port
from orchestrator.services.playoff.read import bracket_view

pytestmark = [pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
SMALL_2026 = REPO / "events" / "olympiad-2026-small.yaml"
TWO_SECTIONS = REPO / "tests" / "fixtures" / "events" / "two-swiss-playoff.yaml"


def _play(
    event_file: Path, data_dir: Path, *, web: bool, shown: set[str] | None = None
) -> tuple[DemoSetup, DemoResult, dict[str, Any]]:
    """The whole event in demo time zero; with ``web``, every Swiss stage's public JSON read after; the
    stage names the terminal would show go to ``shown``."""
    options = DemoOptions(
        event_file=event_file,
        web=web,
        port=free_port() if web else 8000,
        standin_port=0,
        data_dir=data_dir,
        seed=11,
        speed=0,
        round_gap_s=0,
        tick_s=0.02,
    )
    swiss: dict[str, Any] = {}
    with Demo(options) as demo:
        setup = demo.setup()
        result = demo.run(
            on_status=None if shown is None else lambda status: shown.add(status.stage_name or "")
        )
        if web:
            definition = parse_event(event_file.read_text(encoding="utf-8"))
            with httpx.Client(base_url=setup.web_url or "", timeout=30) as http:
                for stage in definition.stages:
                    if stage.is_swiss:
                        address = f"/api/v1/events/{setup.slug}/stages/{stage.key}/swiss"
                        answer = http.get(address)
                        assert answer.status_code == 200, answer.text
                        view = answer.json()
                        # One round's matches per answer (``?round=N``): gather every round's.
                        for rnd in view["pool"]["rounds"]:
                            one = http.get(address, params={"round": rnd["number"]}).json()
                            rnd["matches"] = one["pool"]["rounds"][rnd["number"] - 1]["matches"]
                        swiss[stage.key] = view
    return setup, result, swiss


def _audit(database: Path, event_id: int) -> list[tuple[int, str, str, int]]:
    """(id, action, actor, entity id) of the event's Swiss audit rows, oldest first."""
    engine = make_engine(f"sqlite:///{database}")
    try:
        with UnitOfWork(make_session_factory(engine)) as uow:
            rows = uow.audit.latest(100_000, event_id=event_id)
            return sorted(
                (r.id or 0, r.action, r.actor, int(r.entity_id or 0))
                for r in rows
                if r.action.startswith("swiss.") or r.action == "round.demo_schedule"
            )
    finally:
        engine.dispose()


def test_the_demo_plays_every_round_of_the_small_2026_swiss_to_final_standings_its_results_add_up_to(
    tmp_path: Path,
):
    definition = parse_event(SMALL_2026.read_text(encoding="utf-8"))
    stage = next(s for s in definition.stages if s.is_swiss)
    teams = {t.name for t in definition.teams}
    boards = definition.team_format.boards
    scoring = definition.match_scoring

    setup, result, swiss = _play(SMALL_2026, tmp_path / "demo", web=True)
    view = swiss[stage.key]
    pool = view["pool"]

    # every round of the file paired, published and finished
    assert [r["number"] for r in view["rounds"]] == list(range(1, stage.rounds + 1))
    assert {r["status"] for r in view["rounds"]} == {"finished"}
    byes = {r["number"]: r["bye"]["name"] for r in view["rounds"] if r["bye"]}
    mp: Counter[str] = Counter()
    gp_half: Counter[str] = Counter()
    met: set[frozenset[str]] = set()
    for rnd in pool["rounds"]:
        number = rnd["number"]
        playing = [m["first"]["name"] for m in rnd["matches"]] + [m["second"]["name"] for m in rnd["matches"]]
        bye = [byes[number]] if number in byes else []
        assert sorted(playing + bye) == sorted(teams), number  # each team once: a match or the bye
        for match in rnd["matches"]:
            assert match["status"] == "finished" and match["boards_final"] == match["boards"] == boards
            first, second = match["first"]["name"], match["second"]["name"]
            assert frozenset((first, second)) not in met  # no rematch (C.04.1 b)
            met.add(frozenset((first, second)))
            a, b = match["first_half"], match["second_half"]
            assert a + b == 2 * boards  # every game decided: 1, 1/2 or 0 (in halves: 2, 1, 0)
            gp_half[first] += a
            gp_half[second] += b
            mp[first] += scoring.win if a > b else scoring.draw if a == b else scoring.loss
            mp[second] += scoring.win if b > a else scoring.draw if a == b else scoring.loss
        for team in bye:  # a drawn match's points and half the boards' game points (docs/swiss.md)
            mp[team] += scoring.draw
            gp_half[team] += boards
    assert len(pool["rounds"]) == stage.rounds

    # the standings are final and are what the results add up to
    assert pool["provisional"] is False and pool["standings_source"] == "stored"
    lines = pool["standings"]
    assert {line["team"]["name"] for line in lines} == teams
    for line in lines:
        name = line["team"]["name"]
        assert (line["mp"], line["gp_half"]) == (mp[name], gp_half[name]), name
    assert [line["rank"] for line in lines] == sorted(line["rank"] for line in lines)
    assert [line["mp"] for line in lines] == sorted((line["mp"] for line in lines), reverse=True)  # MP first
    assert result.champions == (lines[0]["team"]["name"],) and not result.stopped

    # every round paired and published once, in the audit log, by the workers: the file says auto_publish
    # (docs/workers.md "Event-driven rounds"), so the demo times the stage once at its start and no round
    # is timed or published by its staff
    assert stage.auto_publish
    audit = _audit(tmp_path / "demo" / "olympiad.sqlite3", setup.event_id)
    by_action = Counter(action for _id, action, _actor, _round in audit)
    assert by_action == {"swiss.pair": stage.rounds, "swiss.publish": stage.rounds}
    assert {actor for _id, _action, actor, _round in audit} == {WORKER}
    rounds_paired = [round_id for _id, action, _actor, round_id in audit if action == "swiss.pair"]
    assert len(set(rounds_paired)) == stage.rounds


def test_two_swiss_sections_run_side_by_side_and_feed_the_play_off_to_its_champion(tmp_path: Path):
    definition = parse_event(TWO_SECTIONS.read_text(encoding="utf-8"))
    sections = [s for s in definition.stages if s.is_swiss]
    assert len(sections) == 2

    shown: set[str] = set()
    setup, result, swiss = _play(TWO_SECTIONS, tmp_path / "demo", web=True, shown=shown)
    assert not result.stopped
    assert f"{sections[0].name} and {sections[1].name}" in shown  # the terminal shows both running

    # side by side: the second section's first round is paired before the first section's last round
    engine = make_engine(f"sqlite:///{tmp_path / 'demo' / 'olympiad.sqlite3'}")
    try:
        with UnitOfWork(make_session_factory(engine)) as uow:
            stages = list(uow.events.stages_of_event(setup.event_id))
            stage_of_round = {
                rnd.id or 0: (stage.key, rnd.number)
                for stage in stages
                for rnd in uow.rounds.rounds_of_stage(stage.id or 0)
            }
            knockout = next(s for s in stages if s.kind == StageKind.KNOCKOUT.value)
            bracket = bracket_view(uow, stage_id=knockout.id or 0)
    finally:
        engine.dispose()
    paired_at: dict[tuple[str, int], int] = {}
    for audit_id, action, _actor, round_id in _audit(tmp_path / "demo" / "olympiad.sqlite3", setup.event_id):
        if action == "swiss.pair":
            paired_at[stage_of_round[round_id]] = audit_id
    first, second = sections
    assert set(paired_at) == {(s.key, n) for s in sections for n in range(1, s.rounds + 1)}
    assert paired_at[(second.key, 1)] < paired_at[(first.key, first.rounds)]
    assert paired_at[(first.key, 1)] < paired_at[(second.key, second.rounds)]

    # the play-off's semi-finals are the sections' final places the bracket names, and its champion is ours
    for section in sections:
        view = swiss[section.key]
        assert {r["status"] for r in view["rounds"]} == {"finished"}
        assert view["pool"]["provisional"] is False
    semi_finals = {
        duel.key: [_placed(swiss, duel.first), _placed(swiss, duel.second)]
        for duel in definition.bracket
        if isinstance(duel.first, PoolPlace) and isinstance(duel.second, PoolPlace)
    }
    assert len(semi_finals) == 2
    shown = {duel.key: [duel.first, duel.second] for duel in bracket.duels()}
    for key, teams in semi_finals.items():
        assert shown[key] == teams, key
    assert bracket.champions and result.champions == tuple(bracket.champions)


def _placed(swiss: dict[str, Any], ref: PoolPlace) -> str:
    """The team in ``ref``'s place of its Swiss stage's final standings (read from the public JSON)."""
    lines = swiss[ref.stage]["pool"]["standings"]
    return str(lines[ref.place - 1]["team"]["name"])


def test_olympiad_demo_plays_the_small_2026_file_and_prints_the_winner_of_the_final_standings(tmp_path: Path):
    data_dir = tmp_path / "demo"
    command = [sys.executable, "-m", "orchestrator.cli", "demo", "--event", str(SMALL_2026), "--no-web"]
    command += ["--minutes", "0", "--standin-port", "0", "--data-dir", str(data_dir), "--seed", "5"]
    command += ["--swiss-engine", "own"]
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=280)

    assert done.returncode == 0, done.stdout + done.stderr
    printed = [
        line.removeprefix("Champion: ") for line in done.stdout.splitlines() if line.startswith("Champion: ")
    ]
    engine = make_engine(f"sqlite:///{data_dir / 'olympiad.sqlite3'}")
    try:
        with UnitOfWork(make_session_factory(engine)) as uow:
            event = uow.events.get_by_slug(parse_event(SMALL_2026.read_text(encoding="utf-8")).slug)
            assert event is not None
            stage = next(
                s for s in uow.events.stages_of_event(event.id or 0) if s.kind == StageKind.SWISS.value
            )
            final = list(uow.rounds.final_standings(stage.id or 0))
            winners = uow.teams.teams_by_id(r.team_id for r in final if r.rank == 1)
    finally:
        engine.dispose()
    assert stage.status == "closed"
    assert printed and printed[-1] == " and ".join(team.name for team in winners.values())


def test_olympiad_demo_refuses_an_unknown_swiss_engine_before_it_sets_anything_up(tmp_path: Path):
    command = [sys.executable, "-m", "orchestrator.cli", "demo", "--event", str(SMALL_2026), "--no-web"]
    command += ["--standin-port", "0", "--data-dir", str(tmp_path / "demo"), "--swiss-engine", "fastest"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "unknown Swiss engine 'fastest'" in done.stdout + done.stderr
    assert not (tmp_path / "demo" / "olympiad.sqlite3").exists()
