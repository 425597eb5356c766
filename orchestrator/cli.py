"""The `olympiad` command line: translate arguments, call services and the domain, print results."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from orchestrator.cli_common import (
    DEFAULT_EVENT,
    EXIT_BAD_INPUT,
    EXIT_INVALID,
    Command,
    Group,
    err,
    flag,
    out,
)
from orchestrator.cli_demo import demo, standin
from orchestrator.cli_record import verify_record
from orchestrator.cli_simulation import show as _show
from orchestrator.cli_trf import import_trf_command, replay_trf_command

if TYPE_CHECKING:
    from orchestrator.adapters.match_csv import MatchTable

app = typer.Typer(
    cls=Group,
    help="Orchestrator for team chess Olympiads run in stages, online or over the board (FIDE formats).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,  # locals may hold secrets
)

ENGINES = ("own", "gacrux")  # Swiss pairing engines (docs/swiss.md)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        err.print(f"[red]error:[/] cannot read {path}: {exc.strerror}")
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _number(value: Fraction | int) -> int | float:
    """Exact values for JSON: whole numbers as int, halves and quarters as float (exactly representable)."""
    value = Fraction(value)
    return int(value) if value.denominator == 1 else float(value)


@app.command(cls=Command)
def validate(event_file: Annotated[Path, typer.Argument(help="event definition (YAML)")]) -> None:
    """Check an event definition; list every problem with its place in the file."""
    from orchestrator.domain.event import summary
    from orchestrator.eventfile import EventDefinitionError, parse_event

    text = _read_text(event_file)
    try:
        event = parse_event(text, source=str(event_file))
    except EventDefinitionError as exc:
        err.print(f"[red]{event_file}: {len(exc.problems)} problem(s)[/]")
        for problem in exc.problems:
            err.print(f"  {problem}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    out.print(f"[green]{event_file} is valid[/]")
    out.print(str(summary(event)), markup=False, highlight=False)


def _load_table(matches_file: Path, boards: int, teams_file: Path | None) -> MatchTable:
    from orchestrator.adapters.match_csv import MatchCsvError, read_matches

    teams = None
    if teams_file is not None:
        teams = [t.strip() for t in _read_text(teams_file).splitlines() if t.strip()]
    try:
        return read_matches(_read_text(matches_file), boards=boards, source=str(matches_file), teams=teams)
    except MatchCsvError as exc:
        err.print(f"[red]{matches_file}: {len(exc.problems)} problem(s)[/]")
        for problem in exc.problems:
            err.print(f"  {matches_file}:{problem.line}: {problem.message}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _chain(spec: str) -> tuple[str, ...]:
    from orchestrator.domain.tiebreaks import TieBreakError, parse_chain

    try:
        return parse_chain(spec)
    except TieBreakError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


TiebreaksOpt = Annotated[
    str,
    typer.Option(
        "--tiebreaks",
        "-t",
        help="preset (online-2020, olympiad-2026, olympiad-2014, fide-team-swiss) or CODE,CODE",
    ),
]
BoardsOpt = Annotated[int, typer.Option("--boards", "-b", min=1, help="boards per match")]
RulesOpt = Annotated[
    bool | None,
    flag(
        "--swiss/--round-robin",
        help="unplayed rounds by the Swiss (FIDE C.07 Art. 16) or round-robin rules; "
        "default: round robin only when every two teams met equally often",
    ),
]
TeamsOpt = Annotated[
    Path | None, typer.Option("--teams", help="file with the pool's team names, one per line")
]


@app.command(cls=Command)
def standings(
    matches_file: Annotated[Path, typer.Argument(help="CSV: round,team_a,team_b,score_a,score_b,forfeit")],
    tiebreaks: TiebreaksOpt = "online-2020",
    boards: BoardsOpt = 6,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv or json")] = "table",
    teams_file: TeamsOpt = None,
    lot_seed: Annotated[
        str | None,
        typer.Option("--lot-seed", help="hex seed of a recorded lot for ties left after the chain"),
    ] = None,
    swiss: RulesOpt = None,
) -> None:
    """Rank the teams of a pool or stage from its match results."""
    from orchestrator.services.results.standings_report import rank_table

    if fmt not in ("table", "csv", "json"):
        err.print("[red]error:[/] --format must be table, csv or json")
        raise typer.Exit(EXIT_BAD_INPUT)
    table = _load_table(matches_file, boards, teams_file)
    chain = _chain(tiebreaks)
    try:
        report = rank_table(
            table,
            chain=chain,
            boards=boards,
            lot_seed=lot_seed,
            round_robin=None if swiss is None else not swiss,
        )
    except ValueError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    codes = [code for code in chain if code != "LOT"]
    rows = report.standings.rows
    if fmt == "json":
        data = [
            {"rank": r.rank, "team": r.team, "values": {c: _number(r.values[c]) for c in codes}} for r in rows
        ]
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if fmt == "csv":
        from orchestrator.adapters.csv_files import write_csv

        header = ["rank", "team", *codes, "separated_by"]
        lines = [[r.rank, r.team, *(_show(r.values[c]) for c in codes), r.separated_by or ""] for r in rows]
        typer.echo(write_csv([header, *lines]), nl=False)
        return
    grid = Table(title=f"Standings ({', '.join(chain)})", title_justify="left")
    grid.add_column("#", justify="right")
    grid.add_column("Team")
    for code in codes:
        grid.add_column(code, justify="right")
    grid.add_column("separated by", style="dim")
    for r in rows:
        grid.add_row(str(r.rank), r.team, *(_show(r.values[c]) for c in codes), r.separated_by or "")
    out.print(grid)
    for note in report.notes:
        out.print(note, markup=False, highlight=False)


@app.command(cls=Command)
def trf(
    matches_file: Annotated[Path, typer.Argument(help="CSV: round,team_a,team_b,score_a,score_b,forfeit")],
    tiebreaks: TiebreaksOpt = "online-2020",
    boards: BoardsOpt = 6,
    teams_file: TeamsOpt = None,
    name: Annotated[str, typer.Option("--name", help="tournament name (record 012)")] = "Pool",
    swiss: RulesOpt = None,
) -> None:
    """Write the matches as a TRF-2026 file (FIDE's checker can read it)."""
    from orchestrator.services.results.standings_report import trf_text

    table = _load_table(matches_file, boards, teams_file)
    chain = _chain(tiebreaks)
    try:
        text = trf_text(
            table, chain=chain, boards=boards, name=name, round_robin=None if swiss is None else not swiss
        )
    except ValueError as exc:  # what the format cannot hold: more than 999 teams, a line break in a name
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    typer.echo(text, nl=False)


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        err.print(f"[red]error:[/] unknown engine {engine!r}: use {' or '.join(ENGINES)}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT)


@app.command(cls=Command)
def pair(
    trf_file: Annotated[Path, typer.Argument(help="TRF-2026 team file (record 192, docs/swiss.md)")],
    round_no: Annotated[
        int | None, typer.Option("--round", help="round to pair (default: the next one)")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, trf or json")] = "table",
    engine: Annotated[
        str,
        typer.Option("--engine", help="own (default; files ours do not implement go to gacrux) or gacrux"),
    ] = "own",
) -> None:
    """Pair the next round of a team Swiss TRF file by the system its record 192 names (docs/swiss.md)."""
    from orchestrator.adapters.gacrux_pairing import TrfPairingError, pair_trf_file
    from orchestrator.domain.trf.swiss import add_round, unfinished_boards

    if fmt not in ("table", "trf", "json"):
        err.print(f"[red]error:[/] unknown format {fmt!r}: use table, trf or json")
        raise typer.Exit(EXIT_BAD_INPUT)
    _check_engine(engine)
    try:
        text = trf_file.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        text = trf_file.read_bytes().decode("latin-1")  # TRF files are often Latin-1
    except OSError as exc:
        err.print(f"[red]error:[/] cannot read {trf_file}: {exc.strerror}")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    try:
        found = pair_trf_file(text, round_no=round_no, engine=engine)
    except TrfPairingError as exc:
        # escaped: a problem quotes the file's own text, which may hold [brackets]
        err.print(f"[red]error:[/] {escape(str(trf_file))}: {escape(str(exc))}", markup=True, highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    missing = unfinished_boards(text, before=found.round)
    if missing:
        shown = "; ".join(f"round {rnd}: {white} – {black}" for rnd, white, black in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        err.print(
            f"error: round {found.round} cannot be paired before every board of the rounds before it has a "
            f"result; still missing: {shown}{more}",
            markup=False,
            highlight=False,
        )
        raise typer.Exit(EXIT_INVALID)
    games = [(first, second) for first, second in found.pairs if second]
    bye = next((first for first, second in found.pairs if not second), None)
    if fmt == "trf":
        typer.echo(add_round(text, round_no=found.round, pairs=found.pairs), nl=False)
        return
    if fmt == "json":

        def side(tpn: int) -> dict[str, Any]:
            return {"tpn": tpn, "team": found.names.get(tpn, str(tpn))}

        rows = [{"board": n, "first": side(a), "second": side(b)} for n, (a, b) in enumerate(games, 1)]
        payload = {"round": found.round, "pairings": rows, "bye": None if bye is None else side(bye)}
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"Round {found.round}: the first-named team has White on the odd boards")
    for column in ("Board", "TPN", "First-named", "TPN", "Second"):
        table.add_column(column, justify="right" if column in ("Board", "TPN") else "left")
    for n, (a, b) in enumerate(games, 1):
        table.add_row(str(n), str(a), found.names.get(a, ""), str(b), found.names.get(b, ""))
    out.print(table)
    if bye is not None:
        out.print(f"Pairing-allocated bye: {found.names.get(bye, '')} (TPN {bye})", highlight=False)


@app.command(cls=Command)
def simulate(
    event_file: Annotated[Path, typer.Argument(help="event definition (YAML)")] = DEFAULT_EVENT,
    seed: Annotated[
        int, typer.Option("--seed", "-s", help="random seed: the same seed plays the same event")
    ] = 2020,
    quiet: Annotated[bool, flag("--quiet", "-q", help="print only the champion")] = False,
    trf_dir: Annotated[
        Path | None,
        typer.Option(
            "--trf-dir", help="write a TRF-2026 file per Swiss stage (of every section) into this folder"
        ),
    ] = None,
    engine: Annotated[
        str, typer.Option("--engine", help="Swiss pairing engine: own (C.04.6, default) or gacrux (FIDE's)")
    ] = "own",
) -> None:
    """Play the whole event in process with a rating-based game model and print every stage."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from orchestrator.cli_simulation import champion_line, print_simulation, write_swiss_trfs
    from orchestrator.domain.simulation import match_count, simulate_event
    from orchestrator.eventfile import EventDefinitionError, parse_event

    try:
        event = parse_event(_read_text(event_file), source=str(event_file))
    except EventDefinitionError as exc:
        err.print(
            f"[red]{event_file} does not validate ({len(exc.problems)} problem(s)); run olympiad validate[/]"
        )
        raise typer.Exit(EXIT_INVALID) from None
    _check_engine(engine)
    pairer = None
    if engine == "gacrux":  # FIDE's engine loads in 0.4 s: only when asked for
        from orchestrator.adapters.gacrux_pairing import GacruxPairer

        pairer = GacruxPairer()
    columns = (TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=quiet) as bar:
        task = bar.add_task("matches", total=match_count(event))
        result = simulate_event(event, seed=seed, progress=lambda n: bar.advance(task, n), pairer=pairer)
    if trf_dir is not None:
        try:
            for path in write_swiss_trfs(trf_dir, event, result.swiss):
                err.print(f"wrote {path}", highlight=False, markup=False)
        except OSError as exc:
            err.print(f"[red]error:[/] cannot write into {trf_dir}: {exc.strerror}")
            raise typer.Exit(EXIT_BAD_INPUT) from None
    if quiet:
        out.print(champion_line(event, result), highlight=False)
        return
    print_simulation(out, event, result)


@app.command(cls=Command)
def migrate() -> None:
    """Bring the database (DATABASE_URL, or the SQLite file by default) to the newest schema."""
    from orchestrator.config import get_settings
    from orchestrator.db import init_db

    settings = get_settings()
    init_db(settings)
    out.print(f"database at schema head ({_safe_url(settings.sqlalchemy_url)})", highlight=False)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


@app.command(cls=Command)
def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
    workers: Annotated[
        int, typer.Option(help="web processes; more than 1 needs PostgreSQL and task_mode celery")
    ] = 1,
) -> None:
    """Run the web app (staff pages, spectator pages, /api/v1) with uvicorn.

    On the embedded default (task_mode eager) an in-process scheduler plays Celery beat's role, so rounds
    open, results are pulled and stages advance without a worker. Several processes (--workers) need
    PostgreSQL and Celery, whose Redis bridge carries live updates between them (docs/caching.md).
    """
    from orchestrator.config import get_settings
    from orchestrator.web.http import serving

    settings = get_settings()
    problems = serving.workers_refusal(settings, workers)
    for problem in problems:
        err.print(f"[red]error:[/] {problem}", highlight=False)
    if problems:
        raise typer.Exit(EXIT_BAD_INPUT)
    shown = f"{workers} processes, " if workers > 1 else ""
    out.print(f"serving on http://{host}:{port} ({shown}tasks: {settings.task_mode})", highlight=False)
    serving.run(settings, host=host, port=port, workers=workers)


@app.command("create-user", cls=Command)
def create_user_command(
    username: Annotated[str, typer.Argument(help="login name")],
    role: Annotated[str, typer.Option("--role", "-r", help="owner, admin or arbiter")] = "arbiter",
    password: Annotated[
        str | None,
        typer.Option("--password", help="omit to be asked (hidden); or set OLYMPIAD_NEW_PASSWORD"),
    ] = None,
) -> None:
    """Create a staff account (the password is asked for, never echoed)."""
    import os

    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import init_db
    from orchestrator.errors import ValidationFailed
    from orchestrator.services.accounts.users import create_user

    secret = (
        password
        or os.environ.get("OLYMPIAD_NEW_PASSWORD")
        or typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    )
    settings = get_settings()
    init_db(settings)
    try:
        with UnitOfWork(settings=settings) as uow:
            user_id = create_user(uow, username=username, password=secret, role=role, actor="cli")
    except ValidationFailed as exc:
        for problem in exc.problems:
            err.print(f"[red]error:[/] {problem}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    out.print(f"created {role} {username!r} (id {user_id})", highlight=False)


def _chesscom_client(settings: Any) -> Any:
    """The Chess.com PubAPI client the import uses (tests replace this function)."""
    from orchestrator.services.gameserver.chesscom_import import make_client

    return make_client(settings)


def _utc_time(text: str, option: str) -> Any:
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        err.print(f"[red]error:[/] {option} {text!r} is not a date and time (2020-08-16T12:00)")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@app.command("chesscom-import", cls=Command)
def chesscom_import(
    match_id: Annotated[int, typer.Argument(help="our match id (the staff match page shows it)")],
    team_match: Annotated[
        str | None, typer.Option("--team-match", help="Chess.com team match number or URL")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="archives: games ending after (ISO time, UTC if bare)")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="archives: games ending before (ISO time, UTC if bare)")
    ] = None,
    time_class: Annotated[str, typer.Option("--time-class", help="archives: rapid, blitz...")] = "rapid",
    actor: Annotated[str, typer.Option("--actor", help="who the audit names")] = "cli",
) -> None:
    """Fill a match's boards from Chess.com's published data (a team match, or the players' archives).

    Read-only on Chess.com. Flagged games, arbiters' results and boards without a game are listed, not
    changed; every recorded result is audited as an import (docs/chesscom.md).
    """
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import init_db
    from orchestrator.errors import ServiceError, ValidationFailed
    from orchestrator.services.gameserver.chesscom_import import import_chesscom_results

    if (team_match is None) == (since is None and until is None):
        err.print("[red]error:[/] give either --team-match, or --since and --until (the players' archives)")
        raise typer.Exit(EXIT_BAD_INPUT)
    window = None
    if team_match is None:
        if since is None or until is None:
            err.print("[red]error:[/] the archives need both --since and --until")
            raise typer.Exit(EXIT_BAD_INPUT)
        window = (_utc_time(since, "--since"), _utc_time(until, "--until"))
    settings = get_settings()
    init_db(settings)
    try:
        with UnitOfWork(settings=settings) as uow:
            summary = import_chesscom_results(
                uow,
                match_id=match_id,
                source="team_match" if team_match is not None else "archives",
                chesscom_match_id=team_match,
                window=window,
                actor=actor,
                client=_chesscom_client(settings),
                time_class=time_class,
            )
    except ValidationFailed as exc:
        for problem in exc.problems:
            err.print(f"[red]error:[/] {problem}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except ServiceError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    table = Table(title=f"Match {match_id}: Chess.com import")
    for column in ("board", "white", "black", "outcome", "Chess.com", "stored", "note"):
        table.add_column(column)
    for line in summary.boards:
        cells = (line.white, line.black, line.outcome.value, line.proposed, line.stored, line.note)
        table.add_row(str(line.board_no), *cells)
    out.print(table)
    out.print(
        f"{len(summary.recorded)} recorded, {len(summary.flagged)} flagged for an arbiter, "
        f"{len(summary.arbiter_kept)} arbiter results kept",
        highlight=False,
    )


@app.command(cls=Command)
def tick() -> None:
    """Run every periodic job once, as the scheduler does: open due rounds, pull results, the play-off."""
    from orchestrator.jobs.bodies import periodic_tick

    failed = periodic_tick()
    from orchestrator.config import configuration_warnings, get_settings  # a setting that breaks a job

    for warning in configuration_warnings(get_settings()):
        err.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if failed:
        err.print(f"[red]failed:[/] {', '.join(failed)}", highlight=False)
        raise typer.Exit(1)
    out.print("periodic jobs done")


app.command(cls=Command)(standin)
app.command(cls=Command)(demo)
app.command("verify-record", cls=Command)(verify_record)


@app.command("export-event", cls=Command)
def export_event_command(
    slug: Annotated[str, typer.Argument(help="the event's slug")],
    archive: Annotated[Path, typer.Argument(help="archive file to write (.zip)")],
) -> None:
    """Write a whole event to one archive file, without passwords or tokens (docs/backup.md)."""
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import init_db
    from orchestrator.errors import ServiceError
    from orchestrator.services.backup.event_backup import export_event

    settings = get_settings()
    init_db(settings)
    try:
        with UnitOfWork(settings=settings) as uow:
            report = export_event(uow, slug=slug, path=archive)
    except (ServiceError, OSError) as exc:
        err.print(f"[red]error:[/] {getattr(exc, 'message', exc)}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    out.print(f"{slug}: {sum(report.rows.values())} rows written to {archive}", highlight=False)
    if report.sealed_lots:
        out.print(
            f"[yellow]confidential:[/] holds the secret seed of {report.sealed_lots} lot(s) not drawn yet",
            highlight=False,
        )


@app.command("import-event", cls=Command)
def import_event_command(archive: Annotated[Path, typer.Argument(help="archive file (.zip)")]) -> None:
    """Restore an event from an archive into this database; all or nothing (docs/backup.md)."""
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import init_db
    from orchestrator.errors import ServiceError, ValidationFailed
    from orchestrator.services.backup.event_backup import import_event

    settings = get_settings()
    init_db(settings)
    try:
        with UnitOfWork(settings=settings) as uow:
            report = import_event(uow, path=archive, actor="cli", settings=settings)
    except ValidationFailed as exc:
        err.print(f"[red]{archive}: refused, nothing was written ({len(exc.problems)} problem(s))[/]")
        for problem in exc.problems:
            err.print(f"  {problem}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except ServiceError as exc:
        err.print(f"[red]error:[/] {exc.message}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    out.print(f"{report.slug}: {sum(report.rows.values())} rows restored", highlight=False)
    if report.kept_users:
        out.print("accounts already here, kept as they are: " + ", ".join(report.kept_users), highlight=False)
    for invite in report.invitations:
        link = f"{settings.public_base_url.rstrip('/')}/invitation/{invite.token}"
        line = f"{invite.role} {invite.username}: set a password at {link}"
        out.print(line, highlight=False, soft_wrap=True)


# An event from TRF-2026 team files, and a file's rounds paired again (docs/trf.md; cli_trf.py).
app.command("import-trf", cls=Command)(import_trf_command)
app.command("replay-trf", cls=Command)(replay_trf_command)


def main() -> Any:
    return app()


if __name__ == "__main__":
    main()
