"""``olympiad verify-record SOURCE``: check an event's public record from its JSON (docs/record.md).

SOURCE is the address of the record's JSON (``https://.../api/v1/events/<slug>/record``; every page is
read, following ``next``) or a file holding that JSON (one page with every entry, as ``--save`` writes
it). The check is the pure ``orchestrator.domain.record.verify``: the chain, every lot's seed against its
commitment and its outcome, and the match and game points each pool or Swiss stage closing published
against those the recorded results (and a Swiss round's byes) give. Exit 0 with a summary when all holds,
1 naming the first entry that does not, 2 when the source cannot be read.

Split from cli.py, which registers the command; it loads only typer, rich, httpx and the pure domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urljoin

import httpx
import typer

from orchestrator.cli_common import EXIT_BAD_INPUT, err, out
from orchestrator.domain import record

EXIT_MISMATCH = 1
MAX_PAGES = 10_000  # a record of half a million entries; a server that never ends its pages is refused


class SourceError(Exception):
    """The record cannot be read: what went wrong, for the error line."""


def read_pages(source: str, *, client: httpx.Client | None = None) -> list[dict[str, Any]]:
    """Every page of the record's JSON, from an address (following ``next``) or a file."""
    if not source.startswith(("http://", "https://")):
        try:
            return [_document(Path(source).read_text(encoding="utf-8"), source)]
        except OSError as exc:
            raise SourceError(f"{source}: {exc.strerror or exc}") from None
    http = client or httpx.Client(timeout=30.0, follow_redirects=True)
    pages: list[dict[str, Any]] = []
    address: str | None = source
    while address is not None:
        if len(pages) >= MAX_PAGES:
            raise SourceError(f"{source}: more than {MAX_PAGES} pages")
        try:
            answer = http.get(address, headers={"Accept": "application/json"})
        except httpx.HTTPError as exc:
            raise SourceError(f"{address}: {exc}") from None
        if answer.status_code != 200:
            raise SourceError(f"{address}: the server answered {answer.status_code}")
        page = _document(answer.text, address)
        pages.append(page)
        following = page.get("next")
        address = urljoin(address, following) if isinstance(following, str) and following else None
    return pages


def _document(text: str, where: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise SourceError(f"{where}: not JSON ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise SourceError(f"{where}: not a record (no list of entries)")
    return document


def entries_of(pages: list[dict[str, Any]]) -> list[record.Entry]:
    """The entries of every page, each once (a page read while the record grew repeats some)."""
    seen: dict[int, record.Entry] = {}
    for page in pages:
        for data in page["entries"]:
            entry = record.entry_of(data)
            seen.setdefault(entry.seq, entry)
    return [seen[seq] for seq in sorted(seen)]


def describe(entry: record.Entry | None, mismatch: record.Mismatch) -> str:
    if entry is None:
        return f"entry {mismatch.seq}: {mismatch.what}"
    return f"entry {entry.seq} ({entry.kind}, {entry.at}): {mismatch.what}"


def verify_record(
    source: Annotated[
        str, typer.Argument(help="the record's JSON address (/api/v1/events/<slug>/record) or file")
    ],
    save: Annotated[
        Path | None, typer.Option(help="also write every entry to this file, to verify again offline")
    ] = None,
) -> None:
    """Check an event's public record: the hash chain, every lot against its commitment, and the published
    standings against the recorded results (docs/record.md). Exit 1 names the first entry that does not
    hold."""
    try:
        pages = read_pages(source)
        entries = entries_of(pages)
    except (SourceError, record.RecordError) as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, markup=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    first = pages[0]
    if save is not None:
        whole = {**{k: v for k, v in first.items() if k not in ("entries", "next", "page", "pages")}}
        whole["entries"] = [_as_json(e) for e in reversed(entries)]
        save.write_text(json.dumps(whole, ensure_ascii=False, indent=1), encoding="utf-8")
    verdict = record.verify(entries)
    by_seq = {e.seq: e for e in entries}
    mismatch = verdict.mismatch
    if mismatch is None and first.get("head") not in (None, verdict.head):
        mismatch = record.Mismatch(
            verdict.entries, f"the record's head is {first['head']}, its last entry's hash is {verdict.head}"
        )
    if mismatch is not None:
        out.print(
            f"[red]MISMATCH[/] {describe(by_seq.get(mismatch.seq), mismatch)}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_MISMATCH)
    name = first.get("event", source)
    out.print(
        f"record of {name}: {verdict.entries} entries hold; head {verdict.head}",
        highlight=False,
        soft_wrap=True,
    )
    out.print(f"  {verdict.lots} lot draw(s) match their commitments", highlight=False)
    out.print(f"  {verdict.closings} stage closing(s) checked against the recorded results", highlight=False)
    if verdict.unchecked:
        out.print(
            f"  {verdict.unchecked} stage closing(s) not recomputed (a knockout's, or a Swiss stage's whose "
            "rounds were recorded before their byes were)",
            highlight=False,
            soft_wrap=True,
        )
    if verdict.sealed:
        out.print(f"  {verdict.sealed} sealed entr(y/ies) checked by their link only", highlight=False)


def _as_json(entry: record.Entry) -> dict[str, Any]:
    return {
        "seq": entry.seq,
        "at": entry.at,
        "kind": entry.kind,
        "payload": None if entry.payload is None else dict(entry.payload),
        "sealed": entry.payload is None,
        "prev": entry.prev,
        "hash": entry.hash,
    }
