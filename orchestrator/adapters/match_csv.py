"""Read a stage's matches from CSV (`round,team_a,team_b,score_a,score_b,forfeit`) into match records."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from orchestrator.adapters.csv_files import CsvReadError, read_rows
from orchestrator.domain.names import MAX_TEAM_NAME, name_problem
from orchestrator.domain.scoring import MatchForfeit, MatchRecord, ScoreError, parse_points

HEADER = ("round", "team_a", "team_b", "score_a", "score_b", "forfeit")


@dataclass(frozen=True, slots=True)
class CsvProblem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class MatchCsvError(ValueError):
    """Every problem found in a matches file, each naming its line."""

    def __init__(self, source: str, problems: list[CsvProblem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(f"{source}:{p.line}: {p.message}" for p in problems))


@dataclass(frozen=True, slots=True)
class MatchTable:
    teams: tuple[str, ...]  # in order of first appearance
    matches: tuple[MatchRecord, ...]


def read_matches(
    text: str, *, boards: int, source: str = "matches.csv", teams: Collection[str] | None = None
) -> MatchTable:
    """Parse and check a matches file; raise MatchCsvError listing every bad line.

    ``teams``, when given, is the pool's team list: any other name is an unknown team.
    """
    problems: list[CsvProblem] = []
    try:
        rows = list(read_rows(text))
    except CsvReadError as exc:
        raise MatchCsvError(source, [CsvProblem(exc.line, exc.message)]) from None
    if not rows or tuple(cell.strip().lower() for cell in rows[0][1]) != HEADER:
        raise MatchCsvError(source, [CsvProblem(1, f"the header must be {','.join(HEADER)}")])

    known = set(teams) if teams is not None else None
    seen_teams: dict[str, None] = dict.fromkeys(teams or ())
    matches: list[MatchRecord] = []
    playing: dict[tuple[int, str], int] = {}  # (round, team) -> line of its first match

    for line_no, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        line_problems: list[str] = []
        if len(row) != len(HEADER):
            problems.append(CsvProblem(line_no, f"expected {len(HEADER)} columns, found {len(row)}"))
            continue
        round_text, team_a, team_b, score_a_text, score_b_text, forfeit_text = (c.strip() for c in row)

        round_no = 0
        if not (round_text.isascii() and round_text.isdigit()) or int(round_text) < 1:
            line_problems.append(f"round {round_text!r} is not a positive whole number")
        else:
            round_no = int(round_text)

        is_bye = _check_teams(team_a, team_b, score_b_text, known, line_problems)
        forfeit = _read_forfeit(forfeit_text, is_bye, line_problems)
        gp = _read_scores(score_a_text, score_b_text, is_bye, boards, line_problems)

        if round_no:
            for name in (team_a, team_b):
                if not name:
                    continue
                first = playing.setdefault((round_no, name), line_no)
                if first != line_no:
                    line_problems.append(f"{name!r} is already paired in round {round_no} (line {first})")

        if line_problems:
            problems.extend(CsvProblem(line_no, message) for message in line_problems)
            continue
        seen_teams.setdefault(team_a)
        if team_b:
            seen_teams.setdefault(team_b)
        matches.append(MatchRecord(round_no, team_a, team_b or None, gp[0], gp[1], forfeit))

    if problems:
        raise MatchCsvError(source, problems)
    if not matches:
        raise MatchCsvError(source, [CsvProblem(2, "the file holds no match")])
    return MatchTable(tuple(seen_teams), tuple(matches))


def _check_teams(
    team_a: str, team_b: str, score_b_text: str, known: set[str] | None, line_problems: list[str]
) -> bool:
    """Check a line's team names (problems go to ``line_problems``); whether the line is a bye."""
    if not team_a:
        line_problems.append("team_a is empty")
    for label, name in (("team_a", team_a), ("team_b", team_b)):
        if name and (problem := name_problem(name, what=label, limit=MAX_TEAM_NAME)):
            line_problems.append(problem)
    if not team_b and score_b_text:
        line_problems.append("team_b is empty but score_b is given (a bye leaves both empty)")
    for name in (team_a, team_b):
        if name and known is not None and name not in known:
            line_problems.append(f"unknown team {name!r}")
    if team_a and team_a == team_b:
        line_problems.append(f"{team_a!r} cannot meet itself")
    return not team_b and not score_b_text


def _read_forfeit(text: str, is_bye: bool, line_problems: list[str]) -> MatchForfeit:
    try:
        forfeit = MatchForfeit(text)
    except ValueError:
        line_problems.append(f"forfeit {text!r} must be empty, +-, -+ or --")
        forfeit = MatchForfeit.NONE
    if is_bye and forfeit is not MatchForfeit.NONE:
        line_problems.append("a bye cannot also be a forfeit")
    return forfeit


def _read_scores(
    score_a_text: str, score_b_text: str, is_bye: bool, boards: int, line_problems: list[str]
) -> list[int]:
    """The line's game points in half-points (a bye's score_b is 0); fewer than two when one is bad."""
    max_half = boards * 2
    gp: list[int] = []
    for label, value in (("score_a", score_a_text), ("score_b", score_b_text)):
        if label == "score_b" and is_bye:
            gp.append(0)
            continue
        try:
            half = parse_points(value)
        except ScoreError as exc:
            line_problems.append(f"{label}: {exc}")
            continue
        if half > max_half:
            line_problems.append(f"{label} {value} is more than the {boards} boards allow")
        gp.append(half)
    if len(gp) == 2 and not is_bye and gp[0] + gp[1] > max_half:
        line_problems.append(
            f"scores {score_a_text} + {score_b_text} add up to more than the {boards} boards allow"
        )
    return gp
