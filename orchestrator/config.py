"""The one settings object: nothing else reads the environment (docs/architecture.md, habit 8)."""

from __future__ import annotations

import os
import secrets
from functools import lru_cache
from pathlib import Path

from cryptography.fernet import Fernet
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SECRET_KEY_FILE = "secret_key"  # in data_dir: the session key made on first start when none is configured
MIN_SECRET_KEY_BYTES = 32
# Chess.com asks for a User-Agent naming a contact. The placeholder works on a laptop; in production the
# importer refuses it (services/gameserver/chesscom_import.py), so a deployment that never imports still
# starts.
CHESSCOM_PLACEHOLDER_AGENT = "olympiad-orchestrator (set OLYMPIAD_CHESSCOM_USER_AGENT: ops@example.invalid)"


ENVIRONMENTS = ("development", "test", "production")


class Settings(BaseSettings):
    """Defaults run on a laptop (SQLite file, tasks in process); production values come from OLYMPIAD_*."""

    # hide_input_in_errors: a refused setting must not print the secrets beside it in the error message.
    model_config = SettingsConfigDict(
        env_prefix="OLYMPIAD_", env_file=".env", extra="ignore", hide_input_in_errors=True
    )

    environment: str = Field(default="development", description="development | test | production")
    data_dir: Path = Path("var")
    database_url: str = Field(
        default="",
        validation_alias="DATABASE_URL",
        description="SQLAlchemy URL; empty means a SQLite file in data_dir",
    )
    redis_url: str = Field(default="redis://127.0.0.1:6379/0", validation_alias="REDIS_URL")
    # "eager" runs task functions in process (embedded default); "celery" sends them to the broker.
    task_mode: str = "eager"

    # Signs session cookies and player links. Empty: a random key kept in data_dir (secret_key_of);
    # production refuses to start without one of at least MIN_SECRET_KEY_BYTES (docs/security.md).
    secret_key: SecretStr = SecretStr("")
    token_encryption_key: SecretStr = SecretStr("")  # Fernet key for game-server tokens
    session_max_age_s: int = 14 * 24 * 3600
    # Login throttling (docs/security.md): after login_max_failures failures for a username from one address
    # (since its last success from there, within login_failure_window_s) each attempt from that address waits
    # login_delay_s after the last failure, doubled with every further failure up to login_delay_max_s.
    # Nothing ever locks the right password out, and one address never slows another down.
    login_max_failures: int = 3
    login_delay_s: int = 2
    login_delay_max_s: int = 120
    login_failure_window_s: int = 3600
    login_max_failures_per_ip: int = 20  # failures from one address within login_ip_window_s
    login_ip_window_s: int = 300
    invitation_ttl_s: int = 7 * 24 * 3600  # how long a captain's invitation link works
    # `olympiad import-event` (docs/backup.md, "Limits"): one member (table) of an archive is refused past
    # this many rows or unpacked bytes, read as a stream, before the rest of it is read.
    archive_max_rows: int = Field(default=1_000_000, ge=1)
    archive_max_member_bytes: int = Field(default=256 * 1024 * 1024, ge=1024)

    # Game server (Lichess protocol). The stand-in server ships with the project.
    gameserver_url: str = "http://127.0.0.1:8100"
    gameserver_client_id: str = "olympiad-orchestrator"
    gameserver_timeout_s: float = 10.0
    gameserver_rate_limit_wait_s: float = 60.0
    # Organiser account token (scope challenge:bulk) used for bulk pairing and exports.
    gameserver_admin_token: SecretStr = SecretStr("")
    public_base_url: str = "http://127.0.0.1:8000"
    # Game-server automation (docs/workers.md). Retry waits are multiplied by gameserver_retry_scale:
    # production keeps 1 (a 429 waits at least 60 s); tests shorten every wait with a small scale.
    gameserver_retry_scale: float = 1.0
    gameserver_pair_lead_s: int = 300  # a round's games are created this long before it starts
    gameserver_clock_delay_s: int = 60  # clocks start this long after pairAt (the round's start)
    # Deprecated fallback: games take their clock from the event file's time_control; these apply only to
    # a round whose event has no usable definition file.
    gameserver_clock_limit_s: int = 15 * 60
    gameserver_clock_increment_s: int = 10
    beat_open_due_s: float = 30.0  # how often beat runs rounds.open_due
    beat_reconcile_s: float = 30.0  # how often beat runs results.reconcile (re-reads open games)
    # A round with games open pulls itself again this long after its games are created and after each
    # pull that leaves games open (docs/workers.md, "Event-driven rounds"); 0: beat's reconcile only.
    round_pull_s: float = Field(default=0.0, ge=0)
    # A task taken by a worker that died unacknowledged goes back to the queue after this long (Redis).
    worker_visibility_timeout_s: int = 3600
    worker_queue: str = "olympiad"  # the Celery queue every task goes to
    beat_playoff_s: float = 30.0  # how often beat runs playoff.tick (deadlines, lots, brackets)
    # Eager mode (no Celery): a thread of the web app runs every periodic job every eager_scheduler_s.
    # Off by default (tests); `olympiad serve` turns it on (OLYMPIAD_EAGER_SCHEDULER=1 does too).
    eager_scheduler: bool = False
    eager_scheduler_s: float = 30.0
    # `olympiad serve` logs a line per request (secret parts of paths redacted, docs/security.md). Behind a
    # reverse proxy that logs requests itself it can be turned off: at saturation it costs about 40 % of the
    # cached pages served per second (docs/caching.md).
    access_log: bool = True
    # Live streams (server-sent events) one client address may hold open at once; one more gets 429
    # (docs/security.md, "Live streams"). A reader with a few tabs open needs a handful.
    live_max_streams_per_ip: int = Field(default=20, ge=1)

    # A stage's chances (docs/needs.md) are computed again at most this often while its rounds end, and
    # always once its last round is complete.
    outlook_min_interval_s: float = Field(default=30.0, ge=0)

    # The play-off without staff (docs/playoff.md, "Running by itself"). Captains' forms stay optional.
    auto_build_bracket: bool = True  # build the bracket once every earlier stage is closed
    auto_draw_lots: bool = True  # the tick commits due Armageddon lots and draws them a delay later
    auto_lot_reveal_delay_s: float = 60.0  # the lot's hash is public at least this long before its seed
    # Replays and demos only (`olympiad demo --seed`): the automatic Armageddon lots take seeds derived from
    # this instead of fresh secret ones, so a run can be played again. Empty in a real event: anyone who
    # knew it could compute every lot's outcome in advance.
    replay_lot_seed: SecretStr = SecretStr("")
    armageddon_nomination_minutes: int = 15  # captains' time to nominate after the category lot
    armageddon_colour_minutes: int = 10  # the colour-lot winner's time to choose before the default
    armageddon_default_colour: str = "black"  # what the colour-lot winner gets when they do not choose
    # The game server accepts clock.whiteLimit/clock.blackLimit (the stand-in does, Lichess does not):
    # the Armageddon game is then created by bulk pairing; otherwise the arbiter gives its id or URL.
    # Unset: true unless gameserver_url is on lichess.org.
    gameserver_unequal_clocks: bool = True

    # Chess.com published-data API (read-only importer, docs/chesscom.md); the agent must name a contact.
    chesscom_url: str = "https://api.chess.com"
    chesscom_user_agent: str = CHESSCOM_PLACEHOLDER_AGENT

    # E-mail notifications (docs/notifications.md). Without smtp_host each mail is written as an .eml file
    # to data_dir/mail (the embedded default). smtp_security: starttls (port 587), tls (465) or none.
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_user: str = ""
    smtp_password: SecretStr = SecretStr("")  # never logged or shown
    smtp_security: str = "starttls"
    smtp_timeout_s: float = 10.0
    mail_from: str = "Olympiad <olympiad@localhost>"
    mail_max_attempts: int = 6  # a mail the server keeps refusing for now (4xx) fails after this many
    mail_retry_s: float = 60.0  # wait before the 2nd attempt, doubled for each later one
    mail_retry_max_s: float = 3600.0
    notify_lineup_open_s: int = 24 * 3600  # "lineup open" once the deadline is this close (if none is in)
    notify_lineup_due_s: int = 15 * 60  # "lineup due" goes this long before the deadline (if still missing)
    beat_notify_s: float = 60.0  # how often beat runs notify.scan
    notify_lookback_s: int = 2 * 24 * 3600  # how far back notify.scan reads the audit log for changes

    # Stand-in game server behaviour
    standin_speed: float = 1.0  # game-clock seconds per real second multiplier
    standin_faults: str = ""  # comma list: 429,500,slow,truncate,aborted,nostart
    standin_fault_rate: float = 0.0
    standin_seed: int = 0
    standin_slow_s: float = 12.0  # delay of a "slow" fault; above gameserver_timeout_s it times out
    # Bearer token of the stand-in's /_standin/ admin routes (accounts, time, forced results). Empty: those
    # routes refuse every request. The stand-in refuses to start in production.
    standin_admin_token: SecretStr = SecretStr("")

    @field_validator("environment", mode="before")
    @classmethod
    def _known_environment(cls, value: object) -> object:
        # A misspelt "production" must not run as development without its checks (docs/security.md).
        if isinstance(value, str):
            value = value.strip().lower()
        if value not in ENVIRONMENTS:
            raise ValueError(
                f"OLYMPIAD_ENVIRONMENT must be development, test or production, not {str(value)[:40]!r}"
            )
        return value

    @field_validator("standin_speed", mode="before")
    @classmethod
    def _instant_speed(cls, value: object) -> object:
        # "instant" (or 0) finishes stand-in games as soon as their clocks start (benchmarks).
        if isinstance(value, str) and value.strip().lower() == "instant":
            return 0.0
        return value

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'olympiad.sqlite3').as_posix()}"

    @model_validator(mode="after")
    def _real_lichess_has_equal_clocks(self) -> Settings:
        if "gameserver_unequal_clocks" not in self.model_fields_set and "lichess.org" in self.gameserver_url:
            self.gameserver_unequal_clocks = False
        return self

    @model_validator(mode="after")
    def _refuse_insecure_secrets(self) -> Settings:
        if self.environment == "production":
            problems = production_problems(self)
            if problems:
                raise ValueError("refusing to start in production: " + " ".join(problems))
        if self.environment == "production" and self.gameserver_retry_scale < 1:
            raise ValueError("OLYMPIAD_GAMESERVER_RETRY_SCALE below 1 is for tests only (429 waits >= 60 s)")
        if self.smtp_security not in ("starttls", "tls", "none"):
            raise ValueError("OLYMPIAD_SMTP_SECURITY must be starttls, tls or none")
        if self.armageddon_default_colour not in ("white", "black"):
            raise ValueError("OLYMPIAD_ARMAGEDDON_DEFAULT_COLOUR must be white or black")
        return self


def production_problems(settings: Settings) -> list[str]:
    """What production lacks, one sentence per setting (docs/security.md lists them)."""
    problems = []
    if len(settings.secret_key.get_secret_value().encode()) < MIN_SECRET_KEY_BYTES:
        problems.append(
            f"Set OLYMPIAD_SECRET_KEY to a random value of at least {MIN_SECRET_KEY_BYTES} bytes "
            "(python -c 'import secrets; print(secrets.token_urlsafe(48))')."
        )
    try:
        Fernet(settings.token_encryption_key.get_secret_value().encode())
    except ValueError:
        problems.append(
            "Set OLYMPIAD_TOKEN_ENCRYPTION_KEY to a Fernet key "
            "(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')."
        )
    if not settings.public_base_url.startswith("https://"):
        problems.append("Set OLYMPIAD_PUBLIC_BASE_URL to the site's https:// address.")
    return problems


def configuration_warnings(settings: Settings) -> list[str]:
    """What works badly with these settings though nothing refuses to start: one sentence each, for the
    start-up log and the staff dashboard (docs/security.md, "Production settings")."""
    warnings = []
    if not settings.token_encryption_key.get_secret_value():
        warnings.append(
            "OLYMPIAD_TOKEN_ENCRYPTION_KEY is not set: players cannot link their game-server accounts (the "
            "last step fails) and games cannot be created for linked players. Set it to a Fernet key and "
            "restart (docs/security.md)."
        )
    return warnings


def secret_key_of(settings: Settings) -> str:
    """The key that signs sessions and player links: the configured one, else the data directory's.

    On first use without a configured key a random one is written to ``data_dir/secret_key`` (mode 0600),
    so sessions and links survive a restart; every later start reads it back.
    """
    configured = settings.secret_key.get_secret_value()
    if configured:
        return configured
    return _stored_secret_key(settings.data_dir.resolve())


def _stored_secret_key(data_dir: Path) -> str:
    path = data_dir / SECRET_KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        # Written whole to a private temporary file, then linked into place: two processes starting at
        # once agree on one key (the second link fails and that process reads the first one's key).
        draft = data_dir / f".{SECRET_KEY_FILE}.{secrets.token_hex(8)}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(secrets.token_urlsafe(48) + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text(encoding="ascii").strip()
    if len(key.encode()) < MIN_SECRET_KEY_BYTES:
        raise ValueError(f"{path} holds no usable key: delete it to have a new one made")
    return key


@lru_cache
def get_settings() -> Settings:
    return Settings()
