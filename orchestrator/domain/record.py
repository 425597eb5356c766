"""The public record of an event: a hash chain of every change that decides a standing (docs/record.md).

Each entry is ``{"seq", "at", "kind", "payload", "prev"}``; its hash is the SHA-256 of the entry's
canonical JSON (keys sorted, no spaces, UTF-8, no floats: docs/architecture.md, habit 2) and ``prev`` is
the hash of the entry before it (``GENESIS`` for the first). Nothing here reads or writes storage: the
functions build an entry, check a chain, check the lots it records against their commitments
(docs/lots.md) and recompute the match and game points of a pool from the recorded pairings and results
(docs/rules.md §2) to compare them with the standings a stage closing published. A Swiss stage's pool
adds the byes its ``swiss.publish`` entries name: the pairing-allocated bye (a drawn match's points and
half the boards' game points, docs/swiss.md) and the byes teams asked for (a full-point bye a won match and
every board, a half-point bye a drawn match and half the boards: docs/trf.md, "Requested byes"), and its
bonus and penalty points (``swiss.adjustment``, TRF record 299: docs/swiss.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from orchestrator.domain import lots
from orchestrator.domain.scoring import ByeRequest, MatchScoring, parse_result

GENESIS = "0" * 64  # the ``prev`` of an event's first entry
RESULT_KINDS = frozenset(
    {"board.result", "board.result.held", "board.server_result", "board.import_result", "board.correction"}
)
PAIRING_KINDS = frozenset({"stage.start", "swiss.publish"})
CLOSING_KINDS = frozenset({"stage.close", "stage.lots_drawn"})
SWISS_PUBLISH = "swiss.publish"
SWISS_ADJUSTMENT = "swiss.adjustment"  # bonus or penalty points: team, pool, match and game points
# A ``swiss.publish`` payload carries ``boards`` (and its requested byes and absences) since the record
# holds everything a Swiss closing counts; an entry without it was written before (docs/record.md).
SWISS_COMPLETE_KEY = "boards"
# What a payload of the wrong shape raises while it is read: a mismatch naming the entry, never a crash.
UNREADABLE = (LookupError, TypeError, ValueError, AttributeError)


class RecordError(ValueError):
    """An entry that cannot be read or hashed (a float, a missing field, a hash that is not hex)."""


def canonical(value: object) -> bytes:
    """The canonical JSON of ``value``: keys sorted, no spaces, UTF-8 unescaped; floats are refused."""
    _no_float(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _no_float(value: object) -> None:
    if isinstance(value, float):
        raise RecordError(f"a record holds no float ({value!r}): write it as text or half-points")
    if isinstance(value, Mapping):
        for item in value.values():
            _no_float(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _no_float(item)


def entry_hash(seq: int, at: str, kind: str, payload: Mapping[str, Any], prev: str) -> str:
    """SHA-256 (lowercase hex) of the entry's canonical JSON."""
    body = {"seq": seq, "at": at, "kind": kind, "payload": payload, "prev": prev}
    return hashlib.sha256(canonical(body)).hexdigest()


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry as published; ``payload`` is None while it is sealed (an Armageddon nomination)."""

    seq: int
    at: str
    kind: str
    payload: Mapping[str, Any] | None
    prev: str
    hash: str


def next_entry(last: Entry | None, *, at: str, kind: str, payload: Mapping[str, Any]) -> Entry:
    """The entry that follows ``last`` (the first of a chain when ``last`` is None)."""
    seq = last.seq + 1 if last else 1
    prev = last.hash if last else GENESIS
    return Entry(seq, at, kind, payload, prev, entry_hash(seq, at, kind, payload, prev))


def entry_of(data: Mapping[str, Any]) -> Entry:
    """An entry from its published JSON; RecordError naming what is missing or malformed."""
    try:
        seq, at, kind, prev, digest = data["seq"], data["at"], data["kind"], data["prev"], data["hash"]
        payload = data.get("payload")
    except (KeyError, TypeError) as missing:
        raise RecordError(f"an entry lacks {missing}") from None
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise RecordError(f"an entry's seq must be a whole number, not {seq!r}")
    if payload is not None and not isinstance(payload, Mapping):
        raise RecordError(f"entry {seq}: the payload must be an object")
    return Entry(seq, str(at), str(kind), payload, str(prev), str(digest))


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first entry that does not hold, and what differs."""

    seq: int
    what: str


def check_chain(entries: Sequence[Entry]) -> Mismatch | None:
    """The first entry out of sequence, not linked to the one before, or whose hash is not its own
    (entries oldest first). A sealed entry is checked by its link only."""
    prev = GENESIS
    for number, entry in enumerate(entries, start=1):
        if entry.seq != number:
            return Mismatch(entry.seq, f"sequence number {entry.seq} where {number} was expected")
        if entry.prev != prev:
            return Mismatch(number, f"prev is {entry.prev}, the hash of the entry before is {prev}")
        if entry.payload is not None:
            try:
                again = entry_hash(entry.seq, entry.at, entry.kind, entry.payload, entry.prev)
            except RecordError as error:
                return Mismatch(number, str(error))
            if again != entry.hash:
                return Mismatch(number, f"hash is {entry.hash}, its content hashes to {again}")
        prev = entry.hash
    return None


def check_lots(entries: Sequence[Entry]) -> Mismatch | None:
    """The first drawn or void lot whose seed is not its commitment's, or whose draw gives another outcome
    than the recorded one (docs/lots.md); a lot drawn without a recorded commitment is a mismatch too."""
    committed: dict[Any, Mapping[str, Any]] = {}
    for entry in entries:
        payload = entry.payload
        if payload is None:
            continue
        if entry.kind == "lot.commit":
            committed[payload.get("lot")] = payload
        elif entry.kind in ("lot.draw", "lot.void"):
            try:
                problem = _lot_problem(committed.get(payload.get("lot")), payload)
            except UNREADABLE as error:
                problem = f"the lot cannot be checked: {error!r}"
            if problem:
                return Mismatch(entry.seq, problem)
    return None


def _lot_problem(commit: Mapping[str, Any] | None, reveal: Mapping[str, Any]) -> str | None:
    if commit is None:
        return f"lot {reveal.get('lot')} is revealed but its commitment was never recorded"
    try:
        seed = bytes.fromhex(str(reveal.get("seed_hex")))
    except ValueError:
        return f"lot {reveal.get('lot')}: the seed is not hexadecimal"
    if not lots.verify(seed, str(commit.get("commitment"))):
        return f"lot {reveal.get('lot')}: the seed does not hash to the commitment {commit.get('commitment')}"
    if "outcome" not in reveal:
        return None  # void: the seed is public, nothing was drawn
    recorded = lots.Lot(
        str(commit.get("purpose")),
        lots.LotKind(str(commit.get("kind"))),
        tuple(str(c) for c in commit.get("candidates") or ()),
        str(commit.get("commitment")),
        seed.hex(),
        tuple(str(c) for c in reveal.get("outcome") or ()),
    )
    if not lots.check_lot(recorded):
        return f"lot {reveal.get('lot')}: the seed draws another outcome than {list(recorded.outcome)}"
    return None


@dataclass(frozen=True, slots=True)
class Points:
    """A team's match points and game points (half-points) from the recorded matches of a pool."""

    mp: int
    gp_half: int


def pool_points(entries: Sequence[Entry], pool: str, scoring: MatchScoring) -> dict[str, Points]:
    """Match and game points of each team of ``pool`` from the recorded pairings, results, annulments and
    forfeits (docs/rules.md §2); a match counts once it has a forfeit or every board has a final result.
    A Swiss round's byes count from its publication (``swiss_rounds``)."""
    matches: dict[str, Mapping[str, Any]] = {}
    results: dict[str, dict[int, str]] = {}
    annulled: dict[str, dict[int, str]] = {}
    forfeits: dict[str, str] = {}
    for entry in entries:
        payload = entry.payload or {}
        if entry.kind in PAIRING_KINDS:
            matches.update({str(m["match"]): m for m in payload.get("matches", ()) if str(m["pool"]) == pool})
        elif entry.kind in RESULT_KINDS:
            results.setdefault(str(payload["match"]), {})[payload["board_no"]] = payload["result"]
        elif entry.kind == "board.annulled":
            annulled.setdefault(str(payload["match"]), {})[payload["board_no"]] = payload["counted_as"]
        elif entry.kind == "match.forfeit":
            forfeits.update({str(match): code for match, code in payload.get("forfeits", {}).items()})
    points: dict[str, Points] = {}

    def add(team: str, mp: int, gp_half: int) -> None:
        before = points.get(team, Points(0, 0))
        points[team] = Points(before.mp + mp, before.gp_half + gp_half)

    for match_id, match in matches.items():
        gp = _game_points(
            match, {**results.get(match_id, {}), **annulled.get(match_id, {})}, forfeits.get(match_id)
        )
        if gp is None:
            continue
        for team, own, other in ((match["a"], gp[0], gp[1]), (match["b"], gp[1], gp[0])):
            mp = _forfeit_mp(forfeits.get(match_id), team == match["a"], scoring)
            add(team, scoring.match_points(own, other) if mp is None else mp, own)
    for published in swiss_rounds(entries).values():
        if _pool_of(published) != pool:
            continue
        boards = _boards_of(published)
        for team in published.get("byes") or ():
            add(str(team), scoring.draw, boards)  # a drawn match's points, half the boards (docs/swiss.md)
        for key, request in (("full_byes", ByeRequest.FULL), ("half_byes", ByeRequest.HALF)):
            for team in published.get(key) or ():
                add(str(team), request.match_points(scoring), request.game_points(boards))
    for entry in entries:  # bonus and penalty points (TRF record 299) count in the standings they reach
        payload = entry.payload or {}
        if entry.kind == SWISS_ADJUSTMENT and str(payload.get("pool")) == pool:
            gp_half = Fraction(str(payload.get("game_points", 0))) * 2
            add(str(payload["team"]), int(payload.get("match_points", 0)), int(gp_half))
    return points


def swiss_rounds(entries: Sequence[Entry]) -> dict[tuple[Any, Any], Mapping[str, Any]]:
    """Each Swiss round's publication in force, by (stage, round): a round published again (paired again
    before it started) keeps its latest entry, and the rounds a stage ended early cancelled are dropped
    (``swiss.end_early``, docs/rules.md §10)."""
    published: dict[tuple[Any, Any], Mapping[str, Any]] = {}
    for entry in entries:
        payload = entry.payload
        if payload is None:
            continue
        if entry.kind == SWISS_PUBLISH:
            published[(payload.get("stage"), payload.get("round"))] = payload
        elif entry.kind == "swiss.end_early":
            for number in payload.get("cancelled") or ():
                published.pop((payload.get("id"), number), None)
    return published


def _pool_of(published: Mapping[str, Any]) -> str | None:
    """The pool of a Swiss round's publication: its own field, or (an entry written before it had one)
    that of its matches."""
    if published.get("pool") is not None:
        return str(published["pool"])
    return next((str(m["pool"]) for m in published.get("matches") or () if m.get("pool") is not None), None)


def _boards_of(published: Mapping[str, Any]) -> int:
    """The boards of a match of the round (what a bye's game points are counted from)."""
    if published.get("boards") is not None:
        return int(published["boards"])
    return max((int(m["boards"]) for m in published.get("matches") or ()), default=0)


def _game_points(
    match: Mapping[str, Any], boards: Mapping[int, str], forfeit: str | None
) -> tuple[int, int] | None:
    """The two teams' half-points, or None while the match is not complete."""
    count = int(match["boards"])
    if forfeit == "+-":
        return count * 2, 0
    if forfeit == "-+":
        return 0, count * 2
    if forfeit == "--":
        return 0, 0
    a = b = 0
    for board_no in range(1, count + 1):
        result = parse_result(boards.get(board_no, "*"))
        if not result.is_final:
            return None
        a_white = board_no % 2 == 1  # the first-named team has White on odd boards (docs/rules.md §1)
        a += result.white_half if a_white else result.black_half
        b += result.black_half if a_white else result.white_half
    return a, b


def _forfeit_mp(forfeit: str | None, first: bool, scoring: MatchScoring) -> int | None:
    """The match points a whole-match forfeit gives (None: counted from the game points)."""
    if forfeit == "--":
        return scoring.loss
    if forfeit in ("+-", "-+"):
        return scoring.win if (forfeit == "+-") == first else scoring.loss
    return None


def check_standings(entries: Sequence[Entry]) -> Mismatch | None:
    """The first stage closing whose published match or game points of a team differ from those the
    recorded results give (``recomputed``: pool stages, and Swiss stages whose every round is recorded with
    its byes)."""
    for index, entry in recomputed(entries):
        try:
            problem = _closing_problem(entries[:index], entry.payload or {})
        except UNREADABLE as error:
            problem = f"its standings cannot be checked against the entries before it: {error!r}"
        if problem:
            return Mismatch(entry.seq, problem)
    return None


def recomputed(entries: Sequence[Entry]) -> list[tuple[int, Entry]]:
    """The closings (with their index) whose standings can be recomputed from the entries before them: a
    pool stage's, and a Swiss stage's when ``swiss_unchecked`` finds nothing missing. A knockout's closing
    publishes no table, and a sealed one no payload."""
    found: list[tuple[int, Entry]] = []
    for index, entry in enumerate(entries):
        payload = entry.payload
        if entry.kind not in CLOSING_KINDS or payload is None:
            continue
        kind = payload.get("stage_kind")
        if kind == "pools" or (kind == "swiss" and swiss_unchecked(entries[:index], payload) is None):
            found.append((index, entry))
    return found


def swiss_unchecked(before: Sequence[Entry], closing: Mapping[str, Any]) -> str | None:
    """Why a Swiss stage's closing cannot be recomputed from the entries before it, or None when it can:
    every round from 1 to the last one published has its ``swiss.publish`` entry, each with its byes,
    requested byes and absences (``SWISS_COMPLETE_KEY``). A record written before these were recorded, or
    an event imported before its imported rounds were, leaves the closing unchecked, never a mismatch."""
    stage = closing.get("stage")
    try:
        rounds = {number: p for (of, number), p in swiss_rounds(before).items() if of == stage}
        numbers = sorted(int(number) for number in rounds)
    except UNREADABLE:
        return "its rounds cannot be read"
    if not numbers:
        return "none of its rounds is in the record"
    missing = [n for n in range(1, numbers[-1] + 1) if n not in numbers]
    if missing:
        return f"round {missing[0]} is not in the record"
    if any(SWISS_COMPLETE_KEY not in p for p in rounds.values()):
        return "its rounds were recorded without their byes"
    return None


def _closing_problem(before: Sequence[Entry], payload: Mapping[str, Any]) -> str | None:
    scoring = MatchScoring(**payload.get("scoring", {}))
    for pool, rows in payload.get("pools", {}).items():
        points = pool_points(before, pool, scoring)
        for row in rows:
            problem = _row_problem(row, points.get(row["team"], Points(0, 0)))
            if problem:
                return f"pool {pool}, {row['team']}: {problem}"
    return None


def _row_problem(row: Mapping[str, Any], points: Points) -> str | None:
    if "MP" in row and Fraction(str(row["MP"])) != points.mp:
        return f"published MP {row['MP']}, the recorded results give {points.mp}"
    if "GP" in row and Fraction(str(row["GP"])) != Fraction(points.gp_half, 2):
        return f"published GP {row['GP']}, the recorded results give {Fraction(points.gp_half, 2)}"
    return None


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a verification found: the first mismatch, or None and the counts of what held."""

    mismatch: Mismatch | None
    entries: int
    sealed: int
    lots: int
    closings: int  # closings whose standings were recomputed
    head: str
    unchecked: int = 0  # closings not recomputed: a knockout's, or a Swiss stage's recorded before its byes


def verify(entries: Sequence[Entry]) -> Verdict:
    """Check the chain, then the lots, then the standings (entries in any order: sorted by seq here)."""
    ordered = sorted(entries, key=lambda e: e.seq)
    mismatch = check_chain(ordered) or check_lots(ordered) or check_standings(ordered)
    checked = len(recomputed(ordered))
    return Verdict(
        mismatch,
        len(ordered),
        sum(1 for e in ordered if e.payload is None),
        sum(1 for e in ordered if e.kind in ("lot.draw", "lot.void")),
        checked,
        ordered[-1].hash if ordered else GENESIS,
        sum(1 for e in ordered if e.kind in CLOSING_KINDS) - checked,
    )
