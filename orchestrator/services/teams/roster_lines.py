"""Reading a roster file (docs/rules.md §1, §9): its header, its lines checked one by one, and its
players grouped by team. The columns are those ``rosters`` describes; what the lines mean together (seeds,
boards, accounts, started stages) is checked there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from orchestrator.adapters.csv_files import CsvReadError, read_rows
from orchestrator.domain.event import Section
from orchestrator.domain.names import (
    MAX_ACCOUNT_NAME,
    MAX_PLAYER_NAME,
    MAX_TEAM_NAME,
    name_problem,
)
from orchestrator.domain.teams import (
    MAX_FIDE_ID,
    Category,
    Sex,
    TeamFormat,
    fide_data_problems,
    is_eligible,
    section_admits,
    section_problem,
)
from orchestrator.domain.teams import Player as DomainPlayer
from orchestrator.errors import ValidationFailed
from orchestrator.translation import gettext as _

COLUMNS = ("team", "federation", "seed", "name", "account", "sex", "birth_year", "rating", "role")
OPTIONAL_COLUMNS = ("fide_id", "title", "fide_federation", "k", "section")
_ALIASES = {
    "player": "name",
    "player_name": "name",
    "born": "birth_year",
    "birthyear": "birth_year",
    "fide_number": "fide_id",
    "fideid": "fide_id",
    "player_federation": "fide_federation",
    "k_factor": "k",
}
MAX_CSV_BYTES = 2_000_000
Report = Callable[[int, str], None]  # (line, message)
_NAME_LIMITS = {"team": MAX_TEAM_NAME, "name": MAX_PLAYER_NAME, "account": MAX_ACCOUNT_NAME}


@dataclass
class RosterLine:
    line: int
    team: str
    federation: str
    seed: int
    main_board: int | None
    category: Category
    player: DomainPlayer
    section: str = ""

    @property
    def account(self) -> str:
        return self.player.account


@dataclass
class TeamRows:
    name: str
    first_line: int
    federation: str
    seed: int
    section: str = ""
    rows: list[RosterLine] = field(default_factory=list)


def _column(name: str) -> str:
    key = re.sub(r"[\s-]+", "_", name.strip().lower())
    return _ALIASES.get(key, key)


def _integer(text: str, what: str, low: int, high: int, problems: list[str]) -> int | None:
    try:
        value = int(text.strip())
    except ValueError:
        problems.append(
            _("%(field)s must be a whole number, found %(found)r") % {"field": what, "found": text.strip()}
        )
        return None
    if not low <= value <= high:
        problems.append(
            _("%(field)s must be between %(low)s and %(high)s, found %(found)s")
            % {"field": what, "low": low, "high": high, "found": value}
        )
        return None
    return value


def _category_problem(player: DomainPlayer, category: Category, cutoff_year: int) -> str:
    needs = {
        Category.WOMEN: _("a female player"),
        Category.JUNIOR: _("a player born in %(year)s or later") % {"year": cutoff_year},
        Category.GIRL: _("a female player born in %(year)s or later") % {"year": cutoff_year},
    }.get(category, _("any player"))
    return _("%(player)s (%(sex)s, born %(year)s) is not eligible for %(category)s: it needs %(needs)s") % {
        "player": player.name,
        "sex": player.sex.value,
        "year": player.birth_year,
        "category": category.value,
        "needs": needs,
    }


def _read_section(text: str, sections: Mapping[str, Section], problems: list[str]) -> str | None:
    """The section a line names: "" in an event without sections; None (with its problem) when wrong."""
    if not sections:
        if text:
            problems.append(_("section %(section)r given, but the event has no sections") % {"section": text})
            return None
        return ""
    key = text.lower()
    if key not in sections:
        found = _("found %(section)r") % {"section": text} if text else _("the section is empty")
        problems.append(
            _("section must be one of %(sections)s: %(found)s")
            % {"sections": ", ".join(sections), "found": found}
        )
        return None
    return key


def _check_names(text: Mapping[str, str], problems: list[str]) -> None:
    """The team's, the player's and the account's names: given, and within the names' rules."""
    for key in ("team", "name", "account"):
        if not text[key]:
            problems.append(_("%(field)s is empty") % {"field": key})
        elif problem := name_problem(text[key], what=key, limit=_NAME_LIMITS[key]):
            problems.append(problem)


def _read_federation(text: str, problems: list[str]) -> str:
    """The team's federation code, upper case (``nor`` reads as NOR)."""
    federation = text.upper()
    if not re.fullmatch(r"[A-Z]{3}", federation):
        problems.append(
            _("federation must be a three-letter code such as NOR, found %(found)r") % {"found": text}
        )
    return federation


@dataclass(frozen=True, slots=True)
class _FideData:
    """The optional FIDE columns of a rated event (docs/ratings.md); None where a column is empty."""

    fide_id: int | None
    title: str | None
    federation: str | None
    k: int | None


def _read_fide_data(text: Mapping[str, str], problems: list[str]) -> _FideData:
    fide_id = _integer(text["fide_id"], "fide_id", 1, MAX_FIDE_ID, problems) if text["fide_id"] else None
    k = _integer(text["k"], "k", 1, 40, problems) if text["k"] else None
    title = text["title"].upper() or None
    federation = text["fide_federation"].upper() or None
    problems += [
        problem
        for _field, problem in fide_data_problems(fide_id=fide_id, title=title, federation=federation, k=k)
    ]
    return _FideData(fide_id, title, federation, k)


def _read_sex(text: str, problems: list[str]) -> Sex | None:
    try:
        return Sex(text.lower())
    except ValueError:
        problems.append(_("sex must be m or f, found %(found)r") % {"found": text})
        return None


def _read_role(text: str, team_format: TeamFormat, problems: list[str]) -> tuple[int | None, Category | None]:
    """The player's place in the team: (main board, its category) or (None, the reserve's category)."""
    role = text.lower().replace(" ", "")
    if role.startswith("reserve"):
        name = role.partition(":")[2]
        try:
            return None, Category(name)
        except ValueError:
            known = ", ".join(c.value for c in Category)
            problems.append(
                _("unknown category %(category)r in role %(role)r (use reserve:<%(known)s>)")
                % {"category": name, "role": text, "known": known}
            )
            return None, None
    if role.isascii() and role.isdigit():
        digits = role.lstrip("0")  # int() refuses more than 4300 digits; no team plays on a thousand boards
        main_board = int(digits or "0") if len(digits) <= 3 else 0
        if not 1 <= main_board <= team_format.boards:
            board = str(main_board) if len(digits) <= 3 else digits[:12] + "…"
            problems.append(
                _("board %(board)s does not exist: teams play on %(boards)s boards")
                % {"board": board, "boards": team_format.boards}
            )
            return None, None
        return main_board, team_format.category_of(main_board)
    problems.append(
        _("role must be a main board number (1-%(boards)s) or reserve:<category>, found %(found)r")
        % {"boards": team_format.boards, "found": text}
    )
    return None, None


def _eligibility_problem(
    player: DomainPlayer,
    main_board: int | None,
    category: Category,
    section: str,
    sections: Mapping[str, Section],
    team_format: TeamFormat,
) -> str | None:
    """Why the player may not play in that place (the board's category, then the team's section)."""
    if not is_eligible(player, category, team_format.cutoff_year):
        where = _("board %(board)s") % {"board": main_board} if main_board is not None else _("reserve")
        return f"{where}: {_category_problem(player, category, team_format.cutoff_year)}"
    if section and not section_admits(sections[section].eligibility, player):
        problem = section_problem(player, sections[section].name)
        return _("%(problem)s (sex %(sex)s)") % {"problem": problem, "sex": player.sex.value}
    return None


def _read_row(
    values: dict[str, str], line: int, team_format: TeamFormat, sections: Mapping[str, Section]
) -> tuple[RosterLine | None, list[str]]:
    """One player's line as a row, or every problem of the line.

    Each field is read on its own and a bad one only adds its problem, so that the refusal of the file
    (all or nothing) names every mistake of every line at once; eligibility needs the whole player, so it
    is checked only on a line whose fields all read, and its problem is then the line's only one.
    """
    problems: list[str] = []
    text = {key: (values.get(key) or "").strip() for key in (*COLUMNS, *OPTIONAL_COLUMNS)}
    _check_names(text, problems)
    federation = _read_federation(text["federation"], problems)
    seed = _integer(text["seed"], "seed", 1, 100_000, problems)
    birth_year = _integer(text["birth_year"], "birth_year", 1900, 2100, problems)
    rating = _integer(text["rating"], "rating", 0, 3500, problems)
    fide = _read_fide_data(text, problems)
    sex = _read_sex(text["sex"], problems)
    section = _read_section(text["section"], sections, problems)
    main_board, category = _read_role(text["role"], team_format, problems)
    if (
        problems
        or seed is None
        or birth_year is None
        or rating is None
        or sex is None
        or category is None
        or section is None
    ):
        return None, problems
    player = DomainPlayer(
        name=text["name"],
        account=text["account"].lower(),
        sex=sex,
        birth_year=birth_year,
        rating=rating,
        fide_id=fide.fide_id,
        title=fide.title,
        federation=fide.federation,
        k_factor=fide.k,
    )
    problem = _eligibility_problem(player, main_board, category, section, sections, team_format)
    if problem is not None:
        return None, [problem]
    row = RosterLine(
        line=line,
        team=text["team"],
        federation=federation,
        seed=seed,
        main_board=main_board,
        category=category,
        player=player,
        section=section,
    )
    return row, []


def records(csv_text: str) -> Iterator[tuple[int, list[str]]]:
    """The file's records; a record that cannot be read ends the import with its line."""
    try:
        yield from read_rows(csv_text)
    except CsvReadError as exc:
        raise ValidationFailed([str(exc)]) from None


def read_header(reader: Iterator[tuple[int, list[str]]], sections: Mapping[str, Section]) -> list[str]:
    """The file's columns, by their canonical names; a missing or unknown column refuses the file (an event
    with sections needs the ``section`` column)."""
    try:
        header = next(reader)[1]
    except StopIteration:
        raise ValidationFailed(
            [
                _("the file is empty: the first line names the columns %(columns)s")
                % {"columns": ", ".join(COLUMNS)}
            ]
        ) from None
    columns = [_column(h) for h in header]
    missing = [c for c in (*COLUMNS, *(("section",) if sections else ())) if c not in columns]
    known = (*COLUMNS, *OPTIONAL_COLUMNS)
    unknown = [h for h, c in zip(header, columns, strict=True) if c not in known and h.strip()]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(_("missing column(s): %(columns)s") % {"columns": ", ".join(missing)})
        if unknown:
            parts.append(_("unknown column(s): %(columns)s") % {"columns": ", ".join(unknown)})
        message = _("%(problems)s (expected: %(columns)s)") % {
            "problems": "; ".join(parts),
            "columns": ", ".join(COLUMNS),
        }
        raise ValidationFailed([line_text(1, message)])
    return columns


def group_rows(
    reader: Iterator[tuple[int, list[str]]],
    columns: list[str],
    team_format: TeamFormat,
    sections: Mapping[str, Section],
    bad: Report,
) -> tuple[dict[str, TeamRows], int]:
    """The file's players grouped by team, and how many player lines it has; bad lines go to ``bad``."""
    teams: dict[str, TeamRows] = {}
    accounts: dict[str, int] = {}
    lines = 0
    for line, values in reader:
        if not any(v.strip() for v in values):
            continue
        lines += 1
        if len(values) != len(columns):
            bad(
                line,
                _("%(found)s fields, expected %(expected)s")
                % {"found": len(values), "expected": len(columns)},
            )
            continue
        row, row_problems = _read_row(dict(zip(columns, values, strict=True)), line, team_format, sections)
        for message in row_problems:
            bad(line, message)
        if row is None:
            continue
        if row.account in accounts:
            bad(
                line,
                _("duplicate account %(account)r: already on line %(line)s (a player plays for one team)")
                % {"account": row.account, "line": accounts[row.account]},
            )
            continue
        accounts[row.account] = line
        team = teams.get(row.team)
        if team is None:
            teams[row.team] = team = TeamRows(row.team, line, row.federation, row.seed, row.section)
        elif (row.federation, row.seed) != (team.federation, team.seed):
            bad(
                line,
                _(
                    "team %(team)s has federation %(federation)s and seed %(seed)s on line %(line)s, "
                    "here %(here_federation)s and %(here_seed)s"
                )
                % {
                    "team": row.team,
                    "federation": team.federation,
                    "seed": team.seed,
                    "line": team.first_line,
                    "here_federation": row.federation,
                    "here_seed": row.seed,
                },
            )
            continue
        elif row.section != team.section:
            bad(
                line,
                _("team %(team)s is in section %(section)s on line %(line)s, here %(here)s")
                % {"team": row.team, "section": team.section, "line": team.first_line, "here": row.section},
            )
            continue
        team.rows.append(row)
    return teams, lines


def line_text(line: int, message: str) -> str:
    """A problem of the file as the reader sees it: its line, then what is wrong (line 0: the whole file)."""
    return _("line %(line)s: %(problem)s") % {"line": line, "problem": message} if line else message
