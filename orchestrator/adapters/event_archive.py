"""The event archive file (docs/backup.md): a zip whose first member is ``manifest.json``, then one JSON-lines
member per table, each row one JSON object keyed by column name.

This module knows the file format only: writing it, and reading it back with every check that needs no
database (zip readable, manifest first and well formed, format and version, members present, SHA-256 and
row counts as the manifest says, every line a JSON object). A refused file raises ``ValidationFailed``
listing every problem found.

Each member is read as a stream, line by line, and refused as soon as it passes ``max_rows`` rows or
``max_member_bytes`` unpacked bytes (settings ``archive_max_rows`` and ``archive_max_member_bytes``,
docs/backup.md "Limits"): a small zip of millions of empty rows costs no more than the caps allow.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.errors import ValidationFailed

FORMAT = "olympiad-event-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
MEMBER_DIR = "tables/"
MAX_MEMBER_BYTES = 256 * 1024 * 1024  # default cap on one member's unpacked bytes (docs/backup.md)
MAX_ROWS = 1_000_000  # default cap on one member's rows (docs/backup.md)
_MANIFEST_KEYS = ("format", "format_version", "schema_revision", "app_version", "created_at", "event_slug")


@dataclass(frozen=True, slots=True)
class TableDump:
    """One table's rows, in the order they are to be inserted."""

    name: str
    columns: tuple[str, ...]
    rows: Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Archive:
    """A checked archive: its manifest and its tables in insertion order."""

    manifest: dict[str, Any]
    tables: tuple[TableDump, ...]

    @property
    def event_slug(self) -> str:
        return str(self.manifest["event_slug"])

    @property
    def schema_revision(self) -> str | None:
        revision = self.manifest["schema_revision"]
        return None if revision is None else str(revision)


def member_name(table: str) -> str:
    return f"{MEMBER_DIR}{table}.jsonl"


def _jsonl(rows: Iterable[Mapping[str, Any]]) -> bytes:
    lines = (json.dumps(row, ensure_ascii=False, sort_keys=True, allow_nan=False) for row in rows)
    return "".join(line + "\n" for line in lines).encode("utf-8")


def write_archive(path: Path, header: Mapping[str, Any], tables: Sequence[TableDump]) -> dict[str, Any]:
    """Write the archive to ``path`` (through a temporary file, so a failure leaves no half archive) and
    return its manifest. ``header`` holds the manifest keys other than ``format`` and the tables."""
    bodies = [(dump, _jsonl(dump.rows)) for dump in tables]
    manifest: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION, **header}
    manifest["tables"] = [
        {
            "name": dump.name,
            "member": member_name(dump.name),
            "columns": list(dump.columns),
            "rows": len(dump.rows),
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        for dump, body in bodies
    ]
    partial = path.with_name(path.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
            for dump, body in bodies:
                archive.writestr(member_name(dump.name), body)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return manifest


def read_archive(
    path: Path, *, max_rows: int = MAX_ROWS, max_member_bytes: int = MAX_MEMBER_BYTES
) -> Archive:
    """Read and check an archive; ``ValidationFailed`` lists every problem (nothing is half read)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _read(archive, max_rows=max_rows, max_member_bytes=max_member_bytes)
    except FileNotFoundError:
        raise ValidationFailed([f"{path}: no such file"]) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise ValidationFailed([f"{path}: not a readable zip archive ({exc})"]) from None


def _read(archive: zipfile.ZipFile, *, max_rows: int, max_member_bytes: int) -> Archive:
    infos = archive.infolist()
    if not infos or infos[0].filename != MANIFEST:
        raise ValidationFailed([f"the first member is not {MANIFEST}: not an event archive"])
    if infos[0].file_size > max_member_bytes:
        raise ValidationFailed([f"{MANIFEST} unpacks to more than {max_member_bytes} bytes"])
    manifest = _manifest(archive.read(MANIFEST))
    problems: list[str] = []
    entries = _table_entries(manifest, problems)
    by_name = {info.filename: info for info in infos}
    expected = {MANIFEST, *(entry["member"] for entry in entries)}
    problems += [f"member {name} is not in the manifest" for name in sorted(set(by_name) - expected)]
    tables: list[TableDump] = []
    for entry in entries:
        member = entry["member"]
        info = by_name.get(member)
        if info is None:
            problems.append(f"member {member} is missing")
            continue
        try:
            dump = _member(archive, info, entry, problems, max_rows=max_rows, max_bytes=max_member_bytes)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            problems.append(f"member {member} is damaged ({exc})")
            continue
        if dump is not None:
            tables.append(dump)
    if problems:
        raise ValidationFailed(problems)
    return Archive(manifest=manifest, tables=tuple(tables))


def _manifest(raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValidationFailed([f"{MANIFEST} is not valid JSON ({exc})"]) from None
    if not isinstance(manifest, dict):
        raise ValidationFailed([f"{MANIFEST} is not a JSON object"])
    problems = [f"{MANIFEST} has no {key!r}" for key in _MANIFEST_KEYS if key not in manifest]
    if manifest.get("format") != FORMAT:
        problems.append(f"format is {manifest.get('format')!r}, not {FORMAT!r}")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        problems.append(f"format version {version!r} is not supported (this program reads {FORMAT_VERSION})")
    if not isinstance(manifest.get("event_slug"), str):
        problems.append(f"{MANIFEST}: event_slug is not text")
    if problems:
        raise ValidationFailed(problems)
    return manifest


def _table_entries(manifest: Mapping[str, Any], problems: list[str]) -> list[dict[str, Any]]:
    entries = manifest.get("tables")
    if not isinstance(entries, list):
        problems.append(f"{MANIFEST} has no list of tables")
        return []
    good: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and entry.get("member") == member_name(entry["name"])
            and isinstance(entry.get("rows"), int)
            and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("columns"), list)
            and all(isinstance(c, str) for c in entry["columns"])
        ):
            problems.append(f"{MANIFEST}: table entry {index + 1} is malformed")
            continue
        good.append(entry)
    names = [entry["name"] for entry in good]
    twice = sorted({name for name in names if names.count(name) > 1})
    problems += [f"{MANIFEST}: table {name} is listed twice" for name in twice]
    return good


def _member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    entry: Mapping[str, Any],
    problems: list[str],
    *,
    max_rows: int,
    max_bytes: int,
) -> TableDump | None:
    """One member's rows, read line by line: refused past ``max_rows`` rows or ``max_bytes`` unpacked
    bytes (whatever the zip's header says), before the rest is read."""
    member = entry["member"]
    if entry["rows"] > max_rows:
        problems.append(f"member {member}: the manifest says {entry['rows']} rows, more than {max_rows} rows")
        return None
    if info.file_size > max_bytes:
        problems.append(f"member {member} unpacks to {info.file_size} bytes, more than {max_bytes} bytes")
        return None
    columns = tuple(entry["columns"])
    wanted = set(columns)
    rows: list[dict[str, Any]] = []
    digest = hashlib.sha256()
    size = 0
    broken: str | None = None  # the first line that is not a row (told only if the checksum is right)
    with archive.open(info) as stream:
        while line := stream.readline(max_bytes - size + 1):
            size += len(line)
            if size > max_bytes:
                problems.append(f"member {member} unpacks to more than {max_bytes} bytes")
                return None
            if len(rows) >= max_rows and broken is None:
                problems.append(f"member {member} has more than {max_rows} rows")
                return None
            digest.update(line)
            if broken is not None:
                continue
            number = len(rows) + 1
            try:
                row = json.loads(line.decode("utf-8", errors="replace"))
            except ValueError:
                broken = f"member {member} line {number}: not JSON"
                continue
            if not isinstance(row, dict) or set(row) != wanted:
                broken = f"member {member} line {number}: not a row with the manifest's columns"
                continue
            rows.append(row)
    if digest.hexdigest() != entry["sha256"]:
        problems.append(f"member {member}: SHA-256 differs from the manifest (file changed or damaged)")
        return None
    if broken is not None:
        problems.append(broken)
        return None
    if len(rows) != entry["rows"]:
        problems.append(f"member {member}: {len(rows)} rows, the manifest says {entry['rows']}")
        return None
    return TableDump(name=entry["name"], columns=columns, rows=rows)
