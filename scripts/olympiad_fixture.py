"""Build the compact replay fixture of a real Olympiad section (tests/fixtures/olympiads/<event>/).

    PYTHONPATH=. .venv/bin/python scripts/olympiad_fixture.py /path/to/2022-chennai-open
    PYTHONPATH=. .venv/bin/python scripts/olympiad_fixture.py --team-json olympiad.json FOLDER EVENT B [MORE]

Chennai 2022 Open (the first form): the source folder holds ``olym22.pgn`` (every played game, with
round "<round>.<match>", board and both team names) and ``ChessOlympiad22/derived-csv/teams.csv``
(starting rank ``no`` and ``rtg_avg``); see
tests/fixtures/olympiads/chennai-2022-open/SOURCE.md for where they come from. The fixture keeps facts
only: the teams with their starting rank and seeding rating, and per round the published matches (the
first-named team is the team with White on board 1) with each board's result as published ("1-0", "0-1",
"1/2-1/2", "0-0"; null for a board with no game in the source). Moves, player names and ratings are left
out.

A chess-results export of team results (the second form, ``--team-json``): one JSON file in the layout of
the public repository named in the fixture's SOURCE.md (``teams``, each with its starting rank ``id``,
``name``, ``federation`` and per round ``rank`` after the round, ``opponentId``, ``scoreFor``,
``scoreAgainst``, ``status`` "played", "bye" or "notPaired"). It has the match scores, not the boards,
and not who had White: the fixture keeps each match's ``score`` as published (the first-named team's
first, ``boards`` null), every published rank after each round (``ranks``) and the pairing-allocated byes
(``byes``), marks a match forfeited whole (every board published "+" or "-") ``"forfeit": true`` (not
played: no colour, C.04.6 art. 1.6.1), and names first the team our art. 7 allocation gives White on
board 1 (Olympiad Pairing Rules 2022, art. 7; round 1 from the colour drawn by lot, the last argument, W
or B), round by round from the colours so inferred (``"first_named": "inferred"``). The source's
SOURCE.md says how that was checked.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.domain.scoring import MatchForfeit
from orchestrator.domain.swiss.c046 import teams_before
from orchestrator.domain.swiss.olympiad2022 import art7_colours, rank_key
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022
from orchestrator.domain.swiss.replay import PublishedMatch, published_state

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "olympiads"
OUT = FIXTURES / "chennai-2022-open"
TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
BOARDS = 4


def games(pgn: Path) -> list[dict[str, str]]:
    """The tag pairs of every game (moves skipped)."""
    found: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in pgn.read_text(encoding="utf-8", errors="replace").splitlines():
        tag = TAG.match(line)
        if tag:
            if tag.group(1) == "Event" and current:
                found.append(current)
                current = {}
            current[tag.group(1)] = tag.group(2)
    if current:
        found.append(current)
    return found


def build(source: Path) -> dict[str, object]:
    with (source / "ChessOlympiad22" / "derived-csv" / "teams.csv").open(encoding="utf-8") as handle:
        teams = [
            {"no": int(row["no"]), "name": row["country"], "rating": int(float(row["rtg_avg"]))}
            for row in csv.DictReader(handle)
        ]
    teams.sort(key=lambda team: team["no"])
    known = {team["name"] for team in teams}
    matches: dict[tuple[int, int], dict[str, object]] = {}
    for game in games(source / "olym22.pgn"):
        rnd, table = (int(part) for part in game["Round"].split("."))
        board = int(game["Board"])
        white, black = game["WhiteTeam"], game["BlackTeam"]
        if white not in known or black not in known:
            raise SystemExit(f"round {rnd}.{table}: unknown team {white!r} or {black!r}")
        # Odd boards: the first-named team has White; even boards: Black.
        first, second = (white, black) if board % 2 else (black, white)
        entry = matches.setdefault(
            (rnd, table), {"table": table, "first": first, "second": second, "boards": [None] * BOARDS}
        )
        if (entry["first"], entry["second"]) != (first, second):
            raise SystemExit(f"round {rnd}.{table}: board {board} names other teams")
        entry["boards"][board - 1] = game["Result"]  # type: ignore[index]
    rounds = []
    for rnd in sorted({key[0] for key in matches}):
        rows = [matches[key] for key in sorted(matches) if key[0] == rnd]
        rounds.append({"round": rnd, "matches": rows})
    return {
        "event": "44th Chess Olympiad 2022, Chennai, Open section",
        "boards": BOARDS,
        "rounds_total": 11,
        # Chad, not paired in round 1, is paired in rounds 2-3 as a team on 1 MP (SOURCE.md).
        "unpaired_draws": [[1, "Chad"]],
        "teams": teams,
        "rounds": rounds,
    }


def score_boards(first: float, second: float, boards: int = BOARDS) -> list[str | None]:
    """Board results (White's score first; the first-named team White on the odd boards) adding up to a
    match score known only as a total: the first team's wins from board 1, one draw for an odd half-point,
    then the second team's wins; boards beyond the total (no game) None. As ``records.synthesise_boards``
    writes a match known by its total (docs/trf.md); only the totals are facts."""
    a, b = round(2 * first), round(2 * second)
    out: list[str | None] = []
    for board in range(1, boards + 1):
        odd = board % 2 == 1
        if a >= 2:
            out.append("1-0" if odd else "0-1")
            a -= 2
        elif a == 1:
            out.append("1/2-1/2")
            a, b = 0, b - 1
        elif b >= 2:
            out.append("0-1" if odd else "1-0")
            b -= 2
        else:
            out.append(None)
    if a or b:
        raise ValueError(f"{first}-{second} does not fit {boards} boards")
    return out


def forfeit_boards(first_wins: bool, boards: int = BOARDS) -> list[str]:
    """The boards of a match forfeited whole (every board "+" against "-"), White's letter first: the
    first-named team, White on the odd boards, wins them all or loses them all."""
    return ["+-" if (board % 2 == 1) == first_wins else "-+" for board in range(1, boards + 1)]


def match_boards(match: dict[str, Any], boards: int = BOARDS) -> tuple[str | None, ...]:
    """A fixture match's board results: as published, or (``score`` only) ``score_boards``, or for a
    match forfeited whole (``"forfeit": true``) ``forfeit_boards``."""
    if match.get("boards") is not None:
        return tuple(match["boards"])
    first, second = (float(part) for part in match["score"].split("-"))
    if match.get("forfeit"):
        return tuple(forfeit_boards(first > second, boards))
    return tuple(score_boards(first, second, boards))


def _forfeited(record: dict[str, Any]) -> bool:
    """Whether a team record's match was forfeited whole: every board published "+" or "-"."""
    boards = record.get("boards") or []
    return bool(boards) and all(b["scoreFor"] in ("+", "-") for b in boards)


def build_team_json(source: Path, event: str, initial: str, more: Sequence[Path] = ()) -> dict[str, object]:
    """The fixture of a section from a chess-results team export (module docstring, second form), with
    ``more`` files of the same source: a round's records (a list of team records, each with its
    ``round``), or a round's pairing published before its results (``pairings``: per team ``id`` and
    ``opponentId``; the fixture's matches of that round have no ``score``)."""
    data = json.loads(source.read_text(encoding="utf-8"))
    entries = sorted(data["teams"], key=lambda t: t["startRank"])
    if [t["startRank"] for t in entries] != list(range(1, len(entries) + 1)):
        raise SystemExit("the starting ranks are not 1..n")
    by_id = {t["id"]: t for t in entries}
    scheduled: dict[int, list[tuple[int, int]]] = {}
    for path in more:
        extra = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(extra, dict):  # a pairing: every team once, no results
            scheduled[extra["round"]] = [(p["id"], p["opponentId"]) for p in extra["pairings"]]
            continue
        for record in extra:
            rounds_of = by_id[record["id"]]["rounds"]
            if any(r["round"] == record["round"] for r in rounds_of):
                raise SystemExit(f"round {record['round']}: {record['name']} twice")
            rounds_of.append({k: v for k, v in record.items() if k not in ("id", "name", "federation")})
    name = {t["id"]: t["name"] for t in entries}
    names = [t["name"] for t in entries]
    played = sorted({r["round"] for t in entries for r in t["rounds"]})
    pairs: dict[int, list[tuple[str, str, float | None, float | None, bool]]] = {
        rnd: [] for rnd in [*played, *scheduled]
    }
    for rnd, opponents in scheduled.items():
        pairs[rnd] = [(name[a], name[b], None, None, False) for a, b in opponents if a < b]
    byes: list[tuple[int, str]] = []
    ranks: dict[int, dict[str, int]] = {rnd: {} for rnd in played}
    for team in entries:
        for r in team["rounds"]:
            ranks[r["round"]][team["name"]] = r["rank"]
            if r["status"] == "bye":
                byes.append((r["round"], team["name"]))
            elif r["status"] == "played" and team["id"] < r["opponentId"]:
                pairs[r["round"]].append(
                    (team["name"], name[r["opponentId"]], r["scoreFor"], r["scoreAgainst"], _forfeited(r))
                )
            elif r["status"] not in ("played", "notPaired"):
                raise SystemExit(f"round {r['round']}: {team['name']}: unknown status {r['status']!r}")
    byes.sort()
    credits = frozenset(byes)  # a bye is worth a drawn match's points (art. 4)
    inferred: dict[int, list[PublishedMatch]] = {}
    forfeits: dict[tuple[int, str, str], MatchForfeit] = {}  # not played: no colour (art. 7)
    rounds = []
    for rnd in sorted(pairs):
        state = published_state(
            names,
            inferred,
            before=rnd,
            boards=BOARDS,
            total_rounds=11,
            pairing=OLYMPIAD_2022,
            unpaired_draws=frozenset(c for c in credits if c[0] < rnd),
        )
        state = replace(
            state,
            matches=tuple(
                replace(
                    m,
                    gp_a=2 * BOARDS if kind is MatchForfeit.A_WINS else 0,
                    gp_b=2 * BOARDS if kind is MatchForfeit.B_WINS else 0,
                    forfeit=kind,
                )
                if m.team_b is not None and (kind := forfeits.get((m.round, m.team_a, m.team_b)))
                else m
                for m in state.matches
            ),
        )
        standing = {team.name: team for team in teams_before(state, rnd).values()}
        ordered = sorted(pairs[rnd], key=lambda p: min(rank_key(standing[p[0]]), rank_key(standing[p[1]])))
        matches, published = [], []
        for table, (a, b, score_a, score_b, forfeit) in enumerate(ordered, 1):
            high, low = sorted((standing[a], standing[b]), key=rank_key)
            white, _black = art7_colours(high, low, table, initial.lower())
            first, second, score = (
                (a, b, (score_a, score_b)) if white.name == a else (b, a, (score_b, score_a))
            )
            match: dict[str, object] = {"table": table, "first": first, "second": second, "boards": None}
            if score[0] is None or score[1] is None:
                matches.append(match | {"score": None})
                continue
            matches.append(
                match | {"score": "-".join(f"{s:g}" for s in score)} | ({"forfeit": True} if forfeit else {})
            )
            if forfeit:  # a match forfeited whole: entered as not played, its points as awarded
                forfeits[rnd, first, second] = (
                    MatchForfeit.A_WINS
                    if score[0] > score[1]
                    else MatchForfeit.B_WINS
                    if score[0] < score[1]
                    else MatchForfeit.DOUBLE
                )
                published.append(PublishedMatch(first, second, (None,) * BOARDS))
                continue
            published.append(PublishedMatch(first, second, tuple(score_boards(score[0], score[1]))))
        inferred[rnd] = published
        rounds.append({"round": rnd, "matches": matches} | ({"ranks": ranks[rnd]} if rnd in ranks else {}))
    return {
        "event": event,
        "boards": BOARDS,
        "rounds_total": 11,
        "first_named": "inferred",
        "initial_colour": initial.upper(),
        "unpaired_draws": [],
        "byes": [list(bye) for bye in byes],
        "teams": [
            {"no": t["startRank"], "name": t["name"], "federation": t["federation"], "rating": None}
            for t in entries
        ],
        "rounds": rounds,
    }


def write(fixture: dict[str, object], out: Path = OUT) -> Path:
    """One JSON file, one match a line, so that a diff stays readable."""
    out.mkdir(parents=True, exist_ok=True)
    lines = ["{"]
    keys = ("event", "boards", "rounds_total", "first_named", "initial_colour", "unpaired_draws", "byes")
    for key in (k for k in keys if k in fixture):
        lines.append(f"  {json.dumps(key)}: {json.dumps(fixture[key], ensure_ascii=False)},")
    lines.append('  "teams": [')
    teams = fixture["teams"]
    assert isinstance(teams, list)
    lines += [f"    {json.dumps(t, ensure_ascii=False)}," for t in teams]
    lines[-1] = lines[-1].rstrip(",")
    lines.append("  ],")
    lines.append('  "rounds": [')
    rounds = fixture["rounds"]
    assert isinstance(rounds, list)
    for index, rnd in enumerate(rounds):
        lines.append(f'    {{"round": {rnd["round"]}, "matches": [')
        rows = [f"      {json.dumps(m, ensure_ascii=False)}," for m in rnd["matches"]]
        rows[-1] = rows[-1].rstrip(",")
        lines += rows
        ranks = f', "ranks": {json.dumps(rnd["ranks"], ensure_ascii=False)}' if "ranks" in rnd else ""
        lines.append(f"    ]{ranks}}}" + ("," if index < len(rounds) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    path = out / "fixture.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "--team-json":
        source, folder, event, initial, *more = sys.argv[2:]
        fixture = build_team_json(Path(source), event, initial, [Path(m) for m in more])
        print(write(fixture, FIXTURES / folder))
    elif len(sys.argv) == 2:
        print(write(build(Path(sys.argv[1]))))
    else:
        raise SystemExit(__doc__)
