"""What a demo run is asked for and how its rounds fit in demo time: options, plan, event file, settings."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet
from pydantic import SecretStr

from orchestrator.config import Settings, get_settings
from orchestrator.domain.event import EventDefinition, Qualifiers, bracket_rounds

DEFAULT_EVENT = Path("events/online-olympiad-2020.yaml")
DEFAULT_DATA_DIR = Path("var/demo")
# A demo draws each lot as soon as it is committed; a real event's file sets its delay (docs/lots.md).
DEMO_LOT_DELAY = "lot_publication_delay: 0  # demo: lots drawn as soon as committed (docs/lots.md)\n"


# ------------------------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """What ``olympiad demo`` and bench/whole_event.py choose."""

    event_file: Path = DEFAULT_EVENT
    minutes: float = 4.0  # demo time for the whole event (approximate: the work itself takes time too)
    web: bool = True
    host: str = "127.0.0.1"
    port: int = 8000
    standin_port: int = 8100  # 0: any free port
    standin_url: str | None = None  # an already running stand-in (benchmarks); None: start one in process
    data_dir: Path = DEFAULT_DATA_DIR
    database_url: str = ""  # empty: the SQLite file in data_dir
    keep: bool = False  # keep the database of earlier runs (the event then gets a new slug)
    seed: int | None = None  # stand-in results, colour choices, pairing lots; None: random
    speed: float | None = None  # stand-in speed (game seconds per second, 0 = instant); None: from minutes
    round_gap_s: float | None = None  # seconds between two rounds; None: from minutes
    tick_s: float | None = None  # how often beat and the driver run; None: from the round gap
    # "celery": beat's jobs go to the broker and a Celery worker the caller started runs them
    # (bench/whole_event.py --celery); "eager": they run in this process.
    task_mode: str = "eager"
    # Who pairs the Swiss rounds: "gacrux", FIDE's engine (the server's default, as the staff desk pairs),
    # or "own", our C.04.6 engine (the same pairings, docs/swiss.md; far faster on a large field).
    swiss_engine: str = "gacrux"


@dataclass(frozen=True, slots=True)
class DemoPlan:
    """Demo time: every stage's rounds ``round_gap_s`` apart, games that last a fraction of that."""

    round_gap_s: float
    speed: float  # 0 = instant
    tick_s: float
    lead_s: float  # a stage's first round starts this long after the stage starts

    @property
    def instant(self) -> bool:
        """No demo time between rounds (``--minutes 0``): each round as soon as the one before allows."""
        return self.lead_s == 0 and self.round_gap_s == 0


def plan_for(definition: EventDefinition, options: DemoOptions) -> DemoPlan:
    """Spread the rounds over ``options.minutes``; the stand-in speed ends a game within half a gap."""
    slots = sum(s.rounds + 1 for s in definition.stages if s.is_pools)
    slots += swiss_slots(definition)
    slots += 3 * bracket_rounds(definition.bracket)  # match 1, match 2, an Armageddon
    gap = options.round_gap_s if options.round_gap_s is not None else options.minutes * 60 / max(slots, 1)
    gap = max(gap, 0.0)
    # The longest stand-in game: both sides spend up to 85 % of their time plus increments.
    longest_game_s = max(2 * (c.minutes * 60 + 60 * c.increment_seconds) for c in definition.time_controls())
    if options.speed is not None:
        speed = options.speed
    else:
        speed = 0.0 if gap == 0 else max(1.0, longest_game_s / (0.5 * gap))
    tick = options.tick_s if options.tick_s is not None else min(0.5, max(0.05, gap / 8))
    return DemoPlan(round_gap_s=gap, speed=speed, tick_s=tick, lead_s=min(gap, 2.0))


def swiss_slots(definition: EventDefinition) -> int:
    """Round gaps the Swiss stages take: stages fed by the same stages (or seeded) run side by side, so
    each such group takes its longest stage's rounds, plus one gap to start."""
    longest: dict[frozenset[str], int] = {}
    for stage in definition.stages:
        if stage.is_swiss:
            sources = frozenset(e.stage for e in stage.entrants if isinstance(e, Qualifiers))
            longest[sources] = max(longest.get(sources, 0), stage.rounds)
    return sum(rounds + 1 for rounds in longest.values())


def demo_definition(
    text: str,
    *,
    slug: str | None = None,
    untimed_knockout: bool = False,
    first_day: date | None = None,
    instant: bool = False,
) -> str:
    """The event file for the demo: appeal window 0, lot publication delay 0 (a real event file sets e.g.
    ``10m``: docs/lots.md; the demo says so when it starts), the play-off without dates, ``slug`` when
    given, and the schedule moved to start on ``first_day`` (the run's date) when given.

    The file's play-off dates are real dates, in the past: rounds created with them would be due at once,
    before the round's other duels have matches. Without a schedule the bracket rounds have no time until
    the driver times each bracket round once all its duels are known; the event page then shows the
    play-off without dates instead of made-up ones.

    ``instant`` (no demo time between rounds, ``--minutes 0``: the benchmarks) keeps the play-off's
    schedule and moves every date into the past instead, the last ``INSTANT_PAST`` before ``first_day``:
    a bracket round is then due as soon as it is created, and the workers pair it in the step that makes
    its duels all known (its pairing waits for them: docs/workers.md), with no staff step in between. The
    driver still times each round to the moment it first sees it, so no page keeps a past date for long.
    """
    if untimed_knockout and not instant:
        text = _without_knockout_schedule(text)
    if first_day is not None:
        text = shift_dates(text, first_day - _span(text) - INSTANT_PAST if instant else first_day)
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    window_set = delay_set = False
    for line in lines:
        if re.match(r"^appeal_window_minutes\s*:", line):
            out.append("appeal_window_minutes: 0  # demo: no wait for appeals\n")
            window_set = True
        elif re.match(r"^lot_publication_delay\s*:", line):
            out.append(DEMO_LOT_DELAY)
            delay_set = True
        elif slug is not None and re.match(r"^slug\s*:", line):
            out.append(f"slug: {slug}\n")
        else:
            out.append(line)
    result = "".join(out)
    if not window_set:
        result = re.sub(r"^(slug\s*:.*\n)", r"\1appeal_window_minutes: 0\n", result, count=1, flags=re.M)
    if not delay_set:
        result = re.sub(r"^(slug\s*:.*\n)", lambda m: m[1] + DEMO_LOT_DELAY, result, count=1, flags=re.M)
    return result


def lot_delay_said(definition: EventDefinition) -> str:
    """What the demo says when it starts about its lots (docs/lots.md): drawn at once, whatever the file
    asks of a real event."""
    seconds = definition.lot_publication_delay_s
    if seconds <= 0:
        return "lots are drawn as soon as committed (lot publication delay 0)"
    asked = f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"
    return (
        f"lots are drawn as soon as committed: the demo runs with lot publication delay 0, "
        f"where the event file asks {asked} of a real event"
    )


# A date followed by a time, as event files write schedules (docs/event-file.md): "2020-07-25 10:00".
_SCHEDULED = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?=[ T]\d{1,2}:\d{2})")


# How far before the run's day ``demo_definition(..., instant=True)`` puts a file's last written date: enough
# for rounds a schedule computes after it (``rounds_per_day``) to be past as well.
INSTANT_PAST = timedelta(days=30)


def _span(text: str) -> timedelta:
    """From the earliest to the latest date written in an event file (zero with none)."""
    found = [date(int(y), int(m), int(d)) for y, m, d in _SCHEDULED.findall(text)]
    return max(found) - min(found) if found else timedelta(0)


def shift_dates(text: str, first_day: date) -> str:
    """Every scheduled date of an event file moved by the same number of days, the earliest to
    ``first_day``; times of day and the gaps between stages and rounds stay as the file has them.

    A demo of a past event (the 2020 file) then shows only dates of the run: its stages' planned dates
    until the driver starts each stage in demo time (``compress_rounds``), never the file's year.
    """
    found = [date(int(y), int(m), int(d)) for y, m, d in _SCHEDULED.findall(text)]
    if not found:
        return text
    shift = first_day - min(found)

    def moved(match: re.Match[str]) -> str:
        day = date(int(match[1]), int(match[2]), int(match[3])) + shift
        return day.isoformat()

    return _SCHEDULED.sub(moved, text)


def _without_knockout_schedule(text: str) -> str:
    """Remove the knockout stage's ``schedule`` block (the key and the lines indented under it)."""
    lines = text.splitlines(keepends=True)
    knockout = next((i for i, line in enumerate(lines) if re.match(r"^\s+kind\s*:\s*knockout\b", line)), None)
    if knockout is None:
        return text
    start = knockout
    while start > 0 and not re.match(r"^\s*-\s+key\s*:", lines[start]):
        start -= 1
    end = knockout + 1
    while end < len(lines) and not re.match(r"^(\s*-\s+key\s*:|\S)", lines[end]):
        end += 1
    for i in range(start, end):
        found = re.match(r"^(\s+)schedule\s*:", lines[i])
        if found is None:
            continue
        indent = len(found.group(1))
        stop = i + 1  # the block: the lines indented deeper than its key
        while stop < end and lines[stop].strip() and len(lines[stop]) - len(lines[stop].lstrip()) > indent:
            stop += 1
        return "".join([*lines[:i], *lines[stop:]])
    return text


def demo_settings(
    options: DemoOptions, *, standin_url: str, web_url: str, base: Settings | None = None
) -> Settings:
    """The run's settings: the embedded default, tasks in process, short waits, a stand-in at demo speed.

    Secrets: the configured ones when set; otherwise a random session key, a random stand-in admin token
    and a random Fernet key for the players' tokens, valid for this run only (the database of a kept run is
    then unreadable for tokens, which the demo links again).
    """
    base = base or get_settings()
    fields = type(base).model_fields
    token_key = base.token_encryption_key.get_secret_value() or Fernet.generate_key().decode()
    secret = base.secret_key
    if base.environment != "production":
        secret = SecretStr(secrets.token_urlsafe(32))
    admin = base.standin_admin_token.get_secret_value() or secrets.token_urlsafe(32)
    update: dict[str, Any] = {
        "data_dir": options.data_dir,
        "database_url": options.database_url,
        "task_mode": options.task_mode,
        "secret_key": secret,
        "token_encryption_key": SecretStr(token_key),
        "gameserver_url": standin_url,
        "public_base_url": web_url,
        "gameserver_retry_scale": 0.01,
        "gameserver_pair_lead_s": 1,
        "gameserver_clock_delay_s": 0,
        "standin_faults": "",
        "standin_fault_rate": 0.0,
        "standin_seed": options.seed if options.seed is not None else secrets.randbelow(2**31),
        # the stand-in's /_standin/ routes: this run's token, or the configured one
        "standin_admin_token": SecretStr(admin),
        # --seed replays the Armageddon lots too (the pairing lots: DemoDriver.pairing_seed).
        "replay_lot_seed": SecretStr(f"olympiad-demo/{options.seed}" if options.seed is not None else ""),
        # The play-off without staff, in demo time (used when the workers run the play-off tick).
        "eager_scheduler": False,  # the demo's beat_tick is the only scheduler
        "auto_build_bracket": True,
        "auto_draw_lots": True,
        "auto_lot_reveal_delay_s": 0.5,
        "armageddon_nomination_minutes": 0,  # the defaults apply at once
        "armageddon_colour_minutes": 0,  # the colour-lot winner gets the default colour
        "gameserver_unequal_clocks": True,  # the stand-in takes White 5 min, Black 4 min
    }
    return base.model_copy(update={k: v for k, v in update.items() if k in fields})
