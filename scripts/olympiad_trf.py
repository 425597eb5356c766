"""Write a replay fixture (``scripts/olympiad_fixture.py``) as a TRF-2026 team file (docs/trf.md).

    PYTHONPATH=. .venv/bin/python scripts/olympiad_trf.py [fixture.json] [out.trf] [--rounds N]

The fixture knows the teams, the pairings and each board's result (or, from a source with match scores
only, the score: ``olympiad_fixture.match_boards`` spreads it over the boards), not the players: each team
gets one placeholder player a board, named after the team ("India, Board 1"), rated the team's published
rating average (unrated when the source has none). The first-named team has White on the odd boards
(record 352 ``WBWB``). A board with no published game is written as lost by both players (``-`` against
``-``); ``0-0`` as a loss for both (``0`` against ``0``); a match forfeited whole (``"forfeit": true``)
as won and lost by forfeit on every board (``+`` against ``-``), which the reader takes as a forfeited
match, not played; a team with no game in a round as not paired
(``0000 - Z``); a round published as a pairing only (no results) is left out. A team credited a drawn
match for a round it was not paired in (the fixture's ``unpaired_draws``: Chennai's Chad, paired in rounds
2 and 3 as a team on one match point, its SOURCE.md) gets record 299 (1 match point, 2 game points,
counting from the next round), as the replay (``bench/replay_olympiad.py``) credits it; a published
pairing-allocated bye (``byes``) is record 320 (a drawn match's points, Olympiad Pairing Rules 2022, art.
4). Record 192 names the Olympiad Pairing Rules 2022 (``CUSTOM_TEAM_OLYMPIAD_2022``). ``--rounds N``
writes the first N rounds only.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from orchestrator.domain.scoring import board_colours
from orchestrator.domain.trf.records import points_text, put, put_round
from scripts.olympiad_fixture import match_boards

FIXTURE = Path(__file__).resolve().parents[1] / "tests/fixtures/olympiads/chennai-2022-open/fixture.json"
# A board's published result (White's score first) as the letters of White's and Black's players.
_LETTERS = {
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "1/2-1/2": ("=", "="),
    "0-0": ("0", "0"),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    None: ("-", "-"),
}
_HALVES = {"1": 2, "=": 1, "+": 2}


def results_known(rnd: dict[str, Any]) -> bool:
    """Whether a fixture round has its results (a round published as a pairing only has none: it is left
    out of the file, and ``bench/replay_olympiad.py`` compares its pairs with the file's next round)."""
    return all(m.get("boards") is not None or m.get("score") for m in rnd["matches"])


def fixture_trf(data: dict[str, Any], *, rounds: int | None = None) -> str:
    """The TRF-2026 text of a replay fixture, its first ``rounds`` rounds (all by default)."""
    boards: int = data["boards"]
    teams = sorted(data["teams"], key=lambda t: t["no"])
    tpn = {team["name"]: team["no"] for team in teams}
    played = [
        r
        for r in sorted(data["rounds"], key=lambda r: r["round"])
        if (rounds is None or r["round"] <= rounds) and results_known(r)
    ]
    first_player = {team["no"]: (team["no"] - 1) * boards + 1 for team in teams}
    cells: dict[int, dict[int, tuple[int, str, str]]] = {}
    colours = board_colours(boards)
    for rnd in played:
        for match in rnd["matches"]:
            a, b = first_player[tpn[match["first"]]], first_player[tpn[match["second"]]]
            for k, (colour, result) in enumerate(zip(colours, match_boards(match, boards), strict=True)):
                white, black = (a + k, b + k) if colour == "W" else (b + k, a + k)
                letter_w, letter_b = _LETTERS[result]
                cells.setdefault(white, {})[rnd["round"]] = (black, "w", letter_w)
                cells.setdefault(black, {})[rnd["round"]] = (white, "b", letter_b)
    last = played[-1]["round"] if played else 0
    # A drawn match credited to a team not paired (the fixture's SOURCE.md), and the published byes.
    credits = {r: tpn[name] for r, name in data.get("unpaired_draws", []) if r <= last}
    byes = {r: tpn[name] for r, name in data.get("byes", []) if r <= last}
    for rnd, number in byes.items():
        for k in range(boards):
            cells.setdefault(first_player[number] + k, {})[rnd] = (0, "-", " ")
    first_colour = (
        next(
            ("W" if m["first"] == teams[0]["name"] else "B")
            for m in played[0]["matches"]
            if teams[0]["name"] in (m["first"], m["second"])
        )
        if played
        else "W"
    )
    lines = [
        f"012 {data['event']}",
        f"062 {len(teams) * boards}",
        f"082 {len(teams)}",
        "092 Team Swiss",
        f"142 {data['rounds_total']}",
        f"152 {first_colour}",
        "162  W 1.0    D 0.5    L 0.0",
        "192 CUSTOM_TEAM_OLYMPIAD_2022",
        "352 " + "".join(colours),
        "362 TW 2     TD 1     TL 0",
        "### players: one placeholder a board, named after the team, "
        + ("rated the team's rating average" if any(t["rating"] for t in teams) else "unrated (no ratings)"),
    ]
    for team in teams:
        for k in range(boards):
            number = first_player[team["no"]] + k
            line: list[str] = []
            put(line, 1, "001")
            put(line, 5, f"{number:4d}")
            put(line, 15, f"{team['name']}, Board {k + 1}"[:33])
            if team["rating"]:
                put(line, 49, f"{team['rating']:4d}")
            own = cells.get(number, {})
            put(line, 81, points_text(Fraction(sum(_HALVES.get(c[2], 0) for c in own.values()), 2), 4))
            for rnd in played:
                put_round(
                    line,
                    rnd["round"],
                    own.get(rnd["round"], (0, "-", "Z")),
                )
            lines.append("".join(line).rstrip())
    for team in teams:
        line = []
        put(line, 1, "310")
        put(line, 5, f"{team['no']:3d}")
        put(line, 9, team["name"][:32])
        for k in range(boards):
            put(line, 74 + 5 * k, f"{first_player[team['no']] + k:4d}")
        lines.append("".join(line))
    if byes:  # record 320: match points 5-8, game points 10-13, the team of each round from 15
        line = []
        put(line, 1, "320")
        put(line, 5, points_text(1, 4))
        put(line, 10, points_text(Fraction(boards, 2), 4))
        for rnd in range(1, max(byes) + 1):
            put(line, 15 + 4 * (rnd - 1), f"{byes.get(rnd, 0):03d}")
        lines.append("".join(line))
    for rnd, number in sorted(credits.items()):  # record 299: match points 8-11, game points 14-17
        line = []
        put(line, 1, "299")
        put(line, 8, points_text(1, 4))
        put(line, 14, points_text(Fraction(boards, 2), 4))
        put(line, 20, f"{rnd:3d}")
        put(line, 24, f"{number:4d}")
        lines.append("".join(line))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    rounds = None
    if "--rounds" in argv:
        at = argv.index("--rounds")
        rounds = int(argv[at + 1])
        del argv[at : at + 2]
    source = Path(argv[0]) if argv else FIXTURE
    target = Path(argv[1]) if len(argv) > 1 else source.with_name(f"{source.parent.name}.trf")
    data = json.loads(source.read_text(encoding="utf-8"))
    target.write_text(fixture_trf(data, rounds=rounds), encoding="utf-8")
    written = len(
        [r for r in data["rounds"] if results_known(r) and (rounds is None or r["round"] <= rounds)]
    )
    print(f"{target}: {len(data['teams'])} teams, {written} rounds")


if __name__ == "__main__":
    main(sys.argv[1:])
