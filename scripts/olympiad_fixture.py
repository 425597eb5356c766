"""Build the compact replay fixture of the 44th Chess Olympiad (Chennai 2022), Open section.

    .venv/bin/python scripts/olympiad_fixture.py /path/to/2022-chennai-open

The source folder holds ``olym22.pgn`` (every played game, with round "<round>.<match>", board and both
team names) and ``ChessOlympiad22/derived-csv/teams.csv`` (starting rank ``no`` and ``rtg_avg``); see
tests/fixtures/olympiads/chennai-2022-open/SOURCE.md for where they come from. The fixture keeps facts
only: the teams with their starting rank and seeding rating, and per round the published matches (the
first-named team is the team with White on board 1) with each board's result as published ("1-0", "0-1",
"1/2-1/2", "0-0"; null for a board with no game in the source). Moves, player names and ratings are left
out.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "olympiads" / "chennai-2022-open"
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
        "teams": teams,
        "rounds": rounds,
    }


def write(fixture: dict[str, object], out: Path = OUT) -> Path:
    """One JSON file, one match a line, so that a diff stays readable."""
    out.mkdir(parents=True, exist_ok=True)
    lines = ["{"]
    for key in ("event", "boards", "rounds_total"):
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
        lines.append("    ]}" + ("," if index < len(rounds) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    path = out / "fixture.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(write(build(Path(sys.argv[1]))))
