"""``olympiad demo`` and ``olympiad standin``: a whole event played on the stand-in game server with its live
terminal display, and the stand-in game server on its own.

Split from cli.py, which registers both commands; it loads only typer and rich at import, each command
imports what it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from orchestrator.cli_common import DEFAULT_EVENT, EXIT_BAD_INPUT, err, flag, out


def standin(
    host: Annotated[
        str | None,
        typer.Option(help="interface to listen on (default: the host of OLYMPIAD_GAMESERVER_URL)"),
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="port (default: the port of OLYMPIAD_GAMESERVER_URL, else 8100)")
    ] = None,
    speed: Annotated[
        str | None,
        typer.Option(help="game seconds per real second: 1 real time, 0 or instant ends each game at once"),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="seeds game ids, results, moves and clocks: same seed, same games")
    ] = None,
    faults: Annotated[
        str | None, typer.Option(help="faults to inject, a comma list: 429,500,slow,truncate,aborted,nostart")
    ] = None,
    fault_rate: Annotated[float | None, typer.Option(help="how often each fault fires, from 0 to 1")] = None,
) -> None:
    """Run the stand-in game server on its own: a Lichess-protocol server that plays the games itself.

    For rehearsals and tests (docs/gameserver.md); it refuses to start in production. Options left out
    come from the settings (OLYMPIAD_STANDIN_SPEED, ...); its /_standin/ routes need
    OLYMPIAD_STANDIN_ADMIN_TOKEN in the environment.
    """
    from orchestrator.standin.__main__ import main as standin_main

    given = {
        "--host": host,
        "--port": port,
        "--speed": speed,
        "--seed": seed,
        "--faults": faults,
        "--fault-rate": fault_rate,
    }
    standin_main([part for name, value in given.items() if value is not None for part in (name, str(value))])


def demo(
    event_file: Annotated[Path, typer.Option("--event", help="event definition (YAML)")] = DEFAULT_EVENT,
    minutes: Annotated[
        float, typer.Option("--minutes", "-m", min=0, help="demo time for the whole event (approximate)")
    ] = 4.0,
    web: Annotated[bool, flag("--web/--no-web", help="serve the web app while it plays")] = True,
    port: Annotated[int, typer.Option(help="web app port")] = 8000,
    standin_port: Annotated[int, typer.Option(help="stand-in game server port (0: any free port)")] = 8100,
    data_dir: Annotated[Path, typer.Option(help="where the demo database and log go")] = Path("var/demo"),
    keep: Annotated[bool, flag("--keep", help="keep the database of earlier demo runs")] = False,
    seed: Annotated[
        int | None, typer.Option(help="seeds stand-in results, game ids, pairing lots; default random")
    ] = None,
    stay: Annotated[
        bool, flag("--stay/--exit", help="with the web app: keep serving after the champion (Ctrl-C)")
    ] = True,
    swiss_engine: Annotated[
        str, typer.Option(help="who pairs Swiss rounds: gacrux (the server's default) or own (faster)")
    ] = "gacrux",
) -> None:
    """Play the whole event on the stand-in game server at an accelerated speed, with the web app.

    Prints the staff login (owner, with a password for this run) and the pages to watch, then shows the
    rounds and the latest results until the champion (docs/demo.md).
    """
    import logging
    import threading

    from rich.live import Live

    from orchestrator.demo.driver import Demo, DemoError, DemoStatus
    from orchestrator.demo.plan import DemoOptions

    data_dir.mkdir(parents=True, exist_ok=True)
    log_file = data_dir / "demo.log"
    logging.basicConfig(
        filename=log_file,
        filemode="w",
        level=logging.INFO,
        format="%(asctime)s %(threadName)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request is too much
    options = DemoOptions(
        event_file=event_file,
        minutes=minutes,
        web=web,
        port=port,
        standin_port=standin_port,
        data_dir=data_dir,
        keep=keep,
        seed=seed,
        swiss_engine=swiss_engine,
    )
    stop = threading.Event()
    result = None
    with Demo(options) as run:
        try:
            with out.status("setting up the demo ...") as spinner:
                setup = run.setup(on_step=lambda text: spinner.update(text))
            out.print(
                f"[bold]{setup.event_name}[/] ready in {setup.seconds:.1f} s: {setup.players_linked} players "
                f"linked, rounds {setup.plan.round_gap_s:.1f} s apart, stand-in at {setup.plan.speed:.0f}× "
                f"({setup.database}; log {log_file})",
                highlight=False,
            )
            if setup.lots:
                out.print(f"Draws by lot: {setup.lots} (docs/lots.md)", highlight=False)
            if setup.web_url:
                out.print(
                    f"Staff login at {setup.web_url}/login: [bold]owner[/] / [bold]{setup.owner_password}[/] "
                    "(a random password for this run, shown only here)",
                    highlight=False,
                )
            last: list[DemoStatus] = []

            def show(status: DemoStatus) -> None:
                last[:] = [status]
                live.update(demo_panel(status))

            with Live(console=out, refresh_per_second=4, transient=False) as live:
                result = run.run(stop, on_status=show)
            if not out.is_terminal:
                out.line()
            if result.champions:
                out.print(f"[bold green]Champion: {' and '.join(result.champions)}[/]", highlight=False)
            if web and stay and result.champions and last:
                out.print(f"The pages stay up: {last[0].event_url} (Ctrl-C to stop)", highlight=False)
                threading.Event().wait()
        except DemoError as error:
            err.print(f"[red]error:[/] {error}", highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except KeyboardInterrupt:
            stop.set()
            out.print("stopped (Ctrl-C); the database stays in " + str(data_dir), highlight=False)


def demo_panel(status: Any) -> Any:
    """The demo's progress: stage, rounds, games, where to watch, and the latest events."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.progress_bar import ProgressBar

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    stage = f"{status.stage_name or '-'} ({status.stage_number} of {status.stage_count})"
    table.add_row("Stage", stage)
    table.add_row("Rounds", status.round_text or "-")
    games = f"{status.games_done} of {status.games_total} games finished"
    bar = ProgressBar(total=max(status.games_total, 1), completed=status.games_done, width=30)
    table.add_row("Games", Group(games, bar))
    table.add_row("Time", f"{status.elapsed_s:.0f} s")
    for label, url in (
        ("Event", status.event_url),
        ("Pool", status.pool_url),
        ("Bracket", status.bracket_url),
    ):
        if url:
            table.add_row(label, url)
    if status.champions:
        table.add_row("Champion", f"[bold green]{' and '.join(status.champions)}[/]")
    recent = "\n".join(status.log) or "-"
    return Panel(Group(table, Panel(recent, title="latest", border_style="dim")), title=status.event_name)
