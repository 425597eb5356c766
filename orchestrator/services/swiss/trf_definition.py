"""The event definition (docs/event-file.md) of one or two TRF-2026 team files (docs/trf.md, "Importing").

The import stores an event the way an event file does (``setup.event_setup.create_event``), so the files
are first written as one: a Swiss stage per file (two files: two sections, Open and Women, each with its
stage), its teams in the file's order as seeds, each team's players in board order (the first ``boards``
main players, the others reserves), the match points of record 362, the rounds of record 142 and the
pairing system of record 192. What the event file needs and a TRF file may not say is filled in, and
docs/trf.md lists it: a player without sex (column 10) is entered as ``m``, without birth year (columns
70-73) as born in 1900, the clock of the rounds still to play is 90+30, each player's game-server
account is ``trf-<section>-<number>``, and a team whose federation (record 310, columns 42-46) is not a
three-letter code of its own in its section gets an unused one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from string import ascii_uppercase
from typing import Any

import yaml

from orchestrator.domain.trf.event_read import TrfEvent, TrfTeam

UNKNOWN_SEX = "m"
TIME_CONTROL = "90+30"  # record 122 is free text; the clock of the rounds still to play, changeable
UNKNOWN_BIRTH_YEAR = 1900
SECTIONS = (("open", "Open"), ("women", "Women"))


@dataclass(frozen=True, slots=True)
class Section:
    """One file of the import: its section key and name, and what it holds."""

    key: str
    name: str
    source: str
    event: TrfEvent


def slug_of(name: str) -> str:
    """An event slug from the file's name (record 012): lower-case words joined by ``-``."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:60].strip("-") or "trf-import"


def account(section: str, number: int) -> str:
    """The game-server account a player of the file is entered with (unique in the event)."""
    return f"trf-{section}-{number:04d}"


def _federations(teams: Sequence[TrfTeam]) -> dict[int, str]:
    """Each team's federation: its own three-letter code when no earlier team of the section has it,
    else an unused code (the event file allows one team per federation and section)."""
    given: dict[int, str] = {}
    used: set[str] = set()
    for team in teams:
        code = team.federation.upper()
        if len(code) == 3 and code.isascii() and code.isalpha() and code not in used:
            given[team.number] = code
            used.add(code)
    spare = ("".join(letters) for letters in product(ascii_uppercase, repeat=3))
    for team in teams:
        if team.number not in given:
            code = next(c for c in spare if c not in used)
            given[team.number] = code
            used.add(code)
    return given


def _player(section: str, player: Any, board: int | None, fide_ids: set[int]) -> dict[str, Any]:
    entry: dict[str, Any] = {"board": board} if board is not None else {"reserve": "open"}
    entry |= {
        "name": player.name,
        "account": account(section, player.number),
        "sex": player.sex or UNKNOWN_SEX,
        "born": player.birth_year
        if player.birth_year and 1900 <= player.birth_year <= 2100
        else UNKNOWN_BIRTH_YEAR,
        "rating": min(max(player.rating, 0), 3500),
    }
    if player.fide_id is not None and player.fide_id not in fide_ids:
        fide_ids.add(player.fide_id)
        entry["fide_id"] = player.fide_id
    if player.title is not None:
        entry["title"] = player.title
    return entry


def definition_text(sections: Sequence[Section], *, slug: str) -> str:
    """The event file (YAML) of the files, one Swiss stage each."""
    first = sections[0].event
    boards = first.state.boards
    reserves = max((len(t.players) - boards for s in sections for t in s.event.teams), default=0)
    team_format: dict[str, Any] = {"boards": ["open"] * boards, "cutoff_year": 2000}
    if reserves > 0:
        team_format["reserves"] = {"open": reserves}
    scoring = first.state.scoring
    definition: dict[str, Any] = {
        "name": first.name,
        "slug": slug,
        "timezone": "UTC",
        "team_format": team_format,
        "time_control": TIME_CONTROL,
        "match_scoring": {"win": scoring.win, "draw": scoring.draw, "loss": scoring.loss},
    }
    many = len(sections) > 1
    if many:
        definition["sections"] = [
            {
                "key": s.key,
                "name": s.name,
                "eligibility": "female"
                if all(p.sex == "f" for t in s.event.teams for p in t.players)
                else "open",
            }
            for s in sections
        ]
    stages: list[dict[str, Any]] = []
    teams: list[dict[str, Any]] = []
    fide_ids: set[int] = set()
    seed = 0
    for section in sections:
        state = section.event.state
        stage: dict[str, Any] = {
            "key": section.key,
            "name": section.name,
            "kind": "swiss",
            "rounds": state.rounds,
            "pairing": state.pairing,
            "entrants": [{"seeds": f"{seed + 1}-{seed + len(section.event.teams)}"}],
        }
        if many:
            stage["section"] = section.key
        stages.append(stage)
        federations = _federations(section.event.teams)
        for team in section.event.teams:
            seed += 1
            entry: dict[str, Any] = {"name": team.name, "federation": federations[team.number], "seed": seed}
            if many:
                entry["section"] = section.key
            entry["players"] = [
                _player(section.key, player, index if index <= boards else None, fide_ids)
                for index, player in enumerate(team.players, 1)
            ]
            teams.append(entry)
    definition["stages"] = stages
    definition["teams"] = teams
    return yaml.safe_dump(definition, sort_keys=False, allow_unicode=True, width=200)
