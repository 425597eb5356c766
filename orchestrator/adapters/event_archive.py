"""The event archive file (docs/backup.md): a zip whose first member is ``manifest.json``, then one JSON-lines
member per table, each row one JSON object keyed by column name.

This module knows the file format only: writing it, and reading it back with every check that needs no
database (zip readable, manifest first and well formed, format and version, members present, SHA-256 and
row counts as the manifest says, every line a JSON object). A refused file raises ``ValidationFailed``
listing every problem found.
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
MAX_MEMBER_BYTES = 1 << 30  # a member that unpacks to more than 1 GiB is refused before it is read
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


def read_archive(path: Path) -> Archive:
    """Read and check an archive; ``ValidationFailed`` lists every problem (nothing is half read)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _read(archive)
    except FileNotFoundError:
        raise ValidationFailed([f"{path}: no such file"]) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise ValidationFailed([f"{path}: not a readable zip archive ({exc})"]) from None


def _read(archive: zipfile.ZipFile) -> Archive:
    infos = archive.infolist()
    if not infos or infos[0].filename != MANIFEST:
        raise ValidationFailed([f"the first member is not {MANIFEST}: not an event archive"])
    manifest = _manifest(archive.read(MANIFEST))
    problems: list[str] = []
    entries = _table_entries(manifest, problems)
    sizes = {info.filename: info.file_size for info in infos}
    expected = {MANIFEST, *(entry["member"] for entry in entries)}
    problems += [f"member {name} is not in the manifest" for name in sorted(set(sizes) - expected)]
    tables: list[TableDump] = []
    for entry in entries:
        member = entry["member"]
        if member not in sizes:
            problems.append(f"member {member} is missing")
            continue
        if sizes[member] > MAX_MEMBER_BYTES:
            problems.append(f"member {member} unpacks to {sizes[member]} bytes, more than {MAX_MEMBER_BYTES}")
            continue
        try:
            body = archive.read(member)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            problems.append(f"member {member} is damaged ({exc})")
            continue
        dump = _member(body, entry, problems)
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


def _member(body: bytes, entry: Mapping[str, Any], problems: list[str]) -> TableDump | None:
    member = entry["member"]
    if hashlib.sha256(body).hexdigest() != entry["sha256"]:
        problems.append(f"member {member}: SHA-256 differs from the manifest (file changed or damaged)")
        return None
    columns = tuple(entry["columns"])
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(body.decode("utf-8", errors="replace").splitlines(), start=1):
        try:
            row = json.loads(line)
        except ValueError:
            problems.append(f"member {member} line {number}: not JSON")
            return None
        if not isinstance(row, dict) or set(row) != set(columns):
            problems.append(f"member {member} line {number}: not a row with the manifest's columns")
            return None
        rows.append(row)
    if len(rows) != entry["rows"]:
        problems.append(f"member {member}: {len(rows)} rows, the manifest says {entry['rows']}")
        return None
    return TableDump(name=entry["name"], columns=columns, rows=rows)
