"""The field of an event file: teams, captains and rosters, with board eligibility (docs/rules.md §1)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from orchestrator.domain.event import Section
from orchestrator.domain.names import MAX_ACCOUNT_NAME, MAX_PLAYER_NAME, MAX_TEAM_NAME
from orchestrator.domain.teams import (
    Category,
    Player,
    RosterEntry,
    Sex,
    Team,
    TeamFormat,
    extra_team_problem,
    fide_data_problems,
    is_eligible,
    section_admits,
    section_problem,
)
from orchestrator.eventfile.drafts import ranges
from orchestrator.eventfile.nodes import NodeReader
from orchestrator.eventfile.validate_sections import read_section_ref
from orchestrator.eventfile.validate_settings import read_category

_PLAYER_KEYS = ("name", "account", "sex", "born", "rating")
_FIDE_KEYS = ("fide_id", "title", "federation", "k")  # optional FIDE data (docs/event-file.md)


@dataclass(slots=True)
class _Seen:
    """Where each name, federation, seed and account was first given (to report the second use)."""

    names: dict[str, int] = field(default_factory=dict)
    # (section, federation) -> the index and node of each team the federation enters in the section
    federations: dict[tuple[str, str], list[tuple[int, yaml.Node]]] = field(default_factory=dict)
    field_sizes: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # teams per section
    seeds: dict[int, int] = field(default_factory=dict)
    accounts: dict[str, str] = field(default_factory=dict)  # lower-case account -> path of its first player


def read_teams(
    reader: NodeReader,
    node: yaml.Node,
    team_format: TeamFormat | None,
    sections: Mapping[str, Section] | None = None,
    organiser: str | None = None,
) -> tuple[list[Team], list[tuple[str, str]]]:
    """The teams that read without problems, and the (team name, captain name) pairs given.

    ``sections``: the file's sections (None: the file has none, one implicit section); ``organiser``: the
    organising federation, the one that may enter a B and a C team (``check_federations``)."""
    items = reader.sequence(node, "teams")
    if items is None:
        return [], []
    teams: list[Team] = []
    captains: list[tuple[str, str]] = []
    seen = _Seen()
    for index, item in enumerate(items):
        team = _read_team(reader, item, index, team_format, seen, captains, sections)
        if team is not None:
            teams.append(team)
    if seen.seeds:
        missing = sorted(set(range(1, len(items) + 1)) - set(seen.seeds))
        if missing:
            reader.report(
                "teams", f"seeds must run 1–{len(items)} without gaps; missing: {ranges(missing)}", node=node
            )
    check_federations(reader, seen, sections, organiser)
    return teams, captains


def check_federations(
    reader: NodeReader, seen: _Seen, sections: Mapping[str, Section] | None, organiser: str | None
) -> None:
    """One team per federation and section, but the organising federation's B team, and its C team when
    the field is odd without it (Olympiad Pairing Rules 2.1–2.2): every extra team reported at its line."""
    for (section, federation), entered in seen.federations.items():
        where = f" in the {sections[section].name} section" if sections and section in sections else ""
        for number, (index, node) in enumerate(entered, start=1):
            problem = extra_team_problem(
                number=number,
                federation=federation,
                organiser=organiser,
                field_size=seen.field_sizes[section],
            )
            if problem is None:
                continue
            earlier = ", ".join(f"teams[{i}]" for i, _node in entered[: number - 1])
            count = "a team" if number == 2 else f"{number - 1} teams"
            reader.report(
                f"teams[{index}].federation",
                f"federation {federation} already has {count}{where} ({earlier}): {problem}",
                node=node,
            )


def _read_team(
    reader: NodeReader,
    item: yaml.Node,
    index: int,
    team_format: TeamFormat | None,
    seen: _Seen,
    captains: list[tuple[str, str]],
    sections: Mapping[str, Section] | None,
) -> Team | None:
    path = f"teams[{index}]"
    fields = reader.mapping(
        item, path, required=("name", "federation", "seed", "players"), optional=("captain", "section")
    )
    if fields is None:
        return None
    name = (
        reader.name(fields["name"], f"{path}.name", what="team name", limit=MAX_TEAM_NAME)
        if "name" in fields
        else None
    )
    if name is not None:
        reader.subjects[path] = name
        if name in seen.names:
            reader.report(
                f"{path}.name", f"team {name!r} is already teams[{seen.names[name]}]", node=fields["name"]
            )
        seen.names.setdefault(name, index)
    section = read_section_ref(reader, fields, path, sections, what="team")
    federation = reader.text(fields["federation"], f"{path}.federation") if "federation" in fields else None
    if federation is not None:
        if not re.fullmatch(r"[A-Z]{3}", federation):
            reader.report(
                f"{path}.federation",
                f"expected a three-letter code such as GEO, found {federation!r}",
                node=fields["federation"],
            )
        elif section is not None:
            seen.federations.setdefault((section, federation), []).append((index, fields["federation"]))
    if section is not None:
        seen.field_sizes[section] += 1
    seed = reader.integer(fields["seed"], f"{path}.seed", minimum=1) if "seed" in fields else None
    if seed is not None:
        if seed in seen.seeds:
            reader.report(
                f"{path}.seed", f"seed {seed} is also given to teams[{seen.seeds[seed]}]", node=fields["seed"]
            )
        seen.seeds.setdefault(seed, index)
    if "captain" in fields and name is not None:
        captain = reader.name(
            fields["captain"], f"{path}.captain", what="captain name", limit=MAX_PLAYER_NAME
        )
        if captain is not None:
            captains.append((name, captain))
    female_only = (
        sections[section] if sections and section and sections[section].eligibility == "female" else None
    )
    roster = (
        _read_roster(reader, fields["players"], f"{path}.players", team_format, seen.accounts, female_only)
        if "players" in fields
        else None
    )
    if (
        name is not None
        and federation is not None
        and seed is not None
        and roster is not None
        and section is not None
    ):
        return Team(name=name, federation=federation, seed=seed, roster=roster, section=section)
    return None


def _eligibility_problem(player: Player, category: Category, cutoff_year: int) -> str:
    if category in (Category.WOMEN, Category.GIRL) and player.sex is not Sex.FEMALE:
        reason = "is not female"
        if category is Category.GIRL and player.birth_year < cutoff_year:
            reason += f" and was born in {player.birth_year}"
    else:
        reason = f"was born in {player.birth_year}"
    born = f", born {cutoff_year} or later" if category in (Category.JUNIOR, Category.GIRL) else ""
    return f"{player.name} {reason}: not eligible for a {category.value} board{born}"


@dataclass(slots=True)
class _Roster:
    """A team's roster as it is read: the entries, who plays each board, reserves per category."""

    entries: list[RosterEntry] = field(default_factory=list)
    mains: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    reserves: dict[Category, int] = field(default_factory=lambda: defaultdict(int))
    ok: bool = True


def _read_roster(
    reader: NodeReader,
    node: yaml.Node,
    path: str,
    team_format: TeamFormat | None,
    accounts: dict[str, str],
    female_only: Section | None = None,
) -> tuple[RosterEntry, ...] | None:
    """A team's roster; ``female_only``: the team's section admits female players only."""
    items = reader.sequence(node, path)
    if items is None:
        return None
    roster = _Roster()
    for index, item in enumerate(items):
        player_path = f"{path}[{index}]"
        fields = reader.mapping(
            item, player_path, required=_PLAYER_KEYS, optional=("board", "reserve", *_FIDE_KEYS)
        )
        if fields is None:
            roster.ok = False
            continue
        player = _read_player(reader, item, fields, player_path, accounts)
        if player is None:
            roster.ok = False
            continue
        if female_only is not None and not section_admits(female_only.eligibility, player):
            reader.report(f"{player_path}.sex", section_problem(player, female_only.name), node=fields["sex"])
        if team_format is not None:
            _place_player(reader, player, fields, player_path, team_format, roster)
    if team_format is None:
        return None
    _check_roster(reader, node, path, team_format, roster)
    return tuple(roster.entries) if roster.ok else None


def _read_player(
    reader: NodeReader, item: yaml.Node, fields: dict[str, yaml.Node], path: str, accounts: dict[str, str]
) -> Player | None:
    """The player of a roster line, or None (its problems reported) when the line cannot be used."""
    name = (
        reader.name(fields["name"], f"{path}.name", what="player name", limit=MAX_PLAYER_NAME)
        if "name" in fields
        else None
    )
    account = (
        reader.name(fields["account"], f"{path}.account", what="account name", limit=MAX_ACCOUNT_NAME)
        if "account" in fields
        else None
    )
    sex_text = reader.text(fields["sex"], f"{path}.sex") if "sex" in fields else None
    sex: Sex | None = None
    if sex_text is not None:
        try:
            sex = Sex(sex_text.lower())
        except ValueError:
            reader.report(f"{path}.sex", f"sex must be m or f, found {sex_text!r}", node=fields["sex"])
    born = (
        reader.integer(fields["born"], f"{path}.born", minimum=1900, maximum=2100)
        if "born" in fields
        else None
    )
    rating = (
        reader.integer(fields["rating"], f"{path}.rating", minimum=0, maximum=3500)
        if "rating" in fields
        else None
    )
    if account is not None:
        folded = account.lower()
        if folded in accounts:
            reader.report(
                f"{path}.account",
                f"account {account!r} is already used by {accounts[folded]}: a player belongs to one team",
                node=fields["account"],
            )
        else:
            accounts[folded] = path
    if ("board" in fields) == ("reserve" in fields):
        reader.report(
            path, "give either 'board' (a main player) or 'reserve' (the category of a reserve)", node=item
        )
        return None
    fide = _read_fide_data(reader, fields, path)
    if name is None or account is None or sex is None or born is None or rating is None or fide is None:
        return None
    return Player(name=name, account=account, sex=sex, birth_year=born, rating=rating, **fide)


def _read_fide_data(reader: NodeReader, fields: dict[str, yaml.Node], path: str) -> dict[str, Any] | None:
    """The optional FIDE data of a player (``fide_id``, ``title``, ``federation``, ``k``), or None when
    any of it is wrong (each problem reported at its key)."""
    present = {key: fields[key] for key in _FIDE_KEYS if key in fields}
    numbers = {
        key: reader.integer(present[key], f"{path}.{key}") for key in ("fide_id", "k") if key in present
    }
    texts = {
        key: reader.text(present[key], f"{path}.{key}") for key in ("title", "federation") if key in present
    }
    if any(value is None for value in (*numbers.values(), *texts.values())):
        return None  # reported by the reader
    title, federation = ((texts.get(key) or "").upper() or None for key in ("title", "federation"))
    fide_id, k = numbers.get("fide_id"), numbers.get("k")
    problems = fide_data_problems(fide_id=fide_id, title=title, federation=federation, k=k)
    for key, problem in problems:
        reader.report(f"{path}.{key}", problem, node=present[key])
    if problems:
        return None
    return {"fide_id": fide_id, "title": title, "federation": federation, "k_factor": k}


def _place_player(
    reader: NodeReader,
    player: Player,
    fields: dict[str, yaml.Node],
    path: str,
    team_format: TeamFormat,
    roster: _Roster,
) -> None:
    """Enter the player on the board or as the reserve the line gives, checking eligibility."""
    if "board" in fields:
        board = reader.integer(fields["board"], f"{path}.board", minimum=1)
        if board is None:
            roster.ok = False
            return
        if board > team_format.boards:
            reader.report(
                f"{path}.board",
                f"board {board} does not exist: teams play on {team_format.boards} boards",
                node=fields["board"],
            )
            roster.ok = False
            return
        category = team_format.category_of(board)
        if not is_eligible(player, category, team_format.cutoff_year):
            reader.report(
                f"{path}.board",
                f"board {board}: {_eligibility_problem(player, category, team_format.cutoff_year)}",
                node=fields["board"],
            )
        roster.mains[board].append(player.name)
        roster.entries.append(RosterEntry(player=player, main_board=board, category=category))
        return
    reserve_category = read_category(reader, fields["reserve"], f"{path}.reserve")
    if reserve_category is None:
        roster.ok = False
        return
    if not is_eligible(player, reserve_category, team_format.cutoff_year):
        reader.report(
            f"{path}.reserve",
            _eligibility_problem(player, reserve_category, team_format.cutoff_year),
            node=fields["reserve"],
        )
    roster.reserves[reserve_category] += 1
    roster.entries.append(RosterEntry(player=player, main_board=None, category=reserve_category))


def _check_roster(
    reader: NodeReader, node: yaml.Node, path: str, team_format: TeamFormat, roster: _Roster
) -> None:
    """One main player per board, and no more reserves of a category than the format allows."""
    for board in range(1, team_format.boards + 1):
        if board not in roster.mains and roster.ok:
            reader.report(
                path, f"board {board} ({team_format.category_of(board).value}) has no main player", node=node
            )
        elif len(roster.mains[board]) > 1:
            reader.report(
                path,
                f"board {board} has {len(roster.mains[board])} main players: "
                f"{', '.join(roster.mains[board])}",
                node=node,
            )
    allowed = dict(team_format.reserves)
    for category, count in roster.reserves.items():
        if count > allowed.get(category, 0):
            reader.report(
                path,
                f"{count} {category.value} reserves, at most {allowed.get(category, 0)} allowed",
                node=node,
            )
