"""A Swiss stage's rounds on the server (docs/swiss.md, "The server"), each in the caller's unit of work.

- ``pair_next_round``: the next round paired by the engine of the stage's pairing system (``SwissPairer``;
  for ``fide-team-swiss`` FIDE's own, ``GacruxPairer``, by default) from the stored state, kept as a DRAFT
  for staff to review (``swiss_round.draft``; no match exists yet, so nothing is public and no game can be
  created). Refused while an earlier round has boards
  without a result, naming them, unless staff count those games as draws (recorded with the round).
- ``override_pairing``: staff put two teams on a board of the draft, or of a published round where nothing
  has started (the teams there take the places the two left), or swap its colours, with a reason; the
  result still passes ``check_pairing`` (no rematch, the bye only to a team without one) or is refused
  naming the teams.
- ``publish_round_pairing``: the draft becomes the round's matches (first-named team White on the odd
  boards) with the default lineup, and its bye; the round is SCHEDULED and from here runs as a pool round
  does (games created when due, results pulled, arbiter entry, appeals, corrections).
- ``repair_round``: a draft, or a published round where nothing has started (no game, result, lineup or
  forfeit), paired again from scratch.

Every operation writes an audit row on the round and announces the stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.adapters.tables import (
    Match,
    Round,
    RoundStatus,
    SwissRound,
    SwissRoundRole,
    SwissRoundTeam,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.swiss import Pairing, RoundPairing, SwissPairer, SwissPairingError, check_pairing
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.setup.stage_start import create_boards, default_lineup, new_match_row
from orchestrator.services.swiss.state import (
    PUBLISHED_ROUNDS,
    StoredSwiss,
    SwissStage,
    running_swiss_stage,
    swiss_stage,
    swiss_state_of,
)
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class BoardPairing:
    """One match of a round: its table number, the first-named team (White on the odd boards), the other."""

    board: int
    first_id: int
    first: str
    second_id: int
    second: str
    match_id: int | None = None  # once published


@dataclass(frozen=True, slots=True)
class RoundView:
    """A Swiss round's pairing, draft or published, for the staff desk and the API."""

    stage_id: int
    round_id: int
    number: int
    status: str
    pairings: tuple[BoardPairing, ...]
    bye: str | None
    not_paired: tuple[str, ...]
    unfinished_as_draws: bool
    paired_by: str | None
    paired_at: datetime | None
    published_by: str | None
    published_at: datetime | None
    overrides: tuple[Mapping[str, Any], ...]
    full_byes: tuple[str, ...] = ()  # requested full-point byes (docs/trf.md, "Requested byes")
    half_byes: tuple[str, ...] = ()  # requested half-point byes


# --- pairing ----------------------------------------------------------------------------------------------


def pair_next_round(
    uow: UnitOfWork,
    *,
    stage_id: int,
    actor: str,
    count_unfinished_as_draws: bool = False,
    pairer: SwissPairer | None = None,
) -> RoundView:
    """Pair the stage's next round as a draft for review (module docstring)."""
    rnd = pair_next_draft(
        uow,
        stage_id=stage_id,
        actor=actor,
        count_unfinished_as_draws=count_unfinished_as_draws,
        pairer=pairer,
    )
    return describe_round(uow, round_id=rnd.id or 0)


def pair_next_draft(
    uow: UnitOfWork,
    *,
    stage_id: int,
    actor: str,
    count_unfinished_as_draws: bool = False,
    pairer: SwissPairer | None = None,
) -> Round:
    """``pair_next_round`` without reading the draft back for the desk: the round paired (the workers'
    ``publish_next_round`` publishes it at once and shows it to nobody)."""
    rows = running_swiss_stage(uow, stage_id, what=_("its rounds can no longer be paired"))
    drafted = next((r for r in rows.rounds if r.status == RoundStatus.DRAFT.value), None)
    if drafted is not None:
        raise Conflict(
            _("Round %(round)s already has a draft pairing: publish it, or pair it again (re-pair)")
            % {"round": drafted.number}
        )
    rnd = next((r for r in rows.rounds if r.status == RoundStatus.UNPAIRED.value), None)
    if rnd is None:
        raise Conflict(_("Every round of %(stage)s is paired") % {"stage": rows.stage.name})
    stored = swiss_state_of(uow, stage_id, count_unfinished_as_draws=count_unfinished_as_draws)
    if stored.missing and not count_unfinished_as_draws:
        raise Conflict(
            _(
                "Round %(round)s cannot be paired yet: these boards have no result: %(boards)s. "
                "Enter their results, or pair counting unfinished games as draws."
            )
            % {"round": rnd.number, "boards": "; ".join(stored.missing)}
        )
    try:
        pairing = (pairer or SystemPairer(fide=GacruxPairer())).pair_round(stored.state, rnd.number)
    except SwissPairingError as error:
        raise Conflict(_("%(stage)s: %(error)s") % {"stage": rows.stage.name, "error": error}) from None
    draft = _draft(stored, pairing)
    record = uow.rounds.swiss_pairing_of(rnd.id or 0) or SwissRound(round_id=rnd.id or 0)
    record.draft = draft
    record.paired_by, record.paired_at = actor, utcnow()
    record.published_by = record.published_at = None
    record.unfinished_as_draws = bool(stored.missing) and count_unfinished_as_draws
    uow.rounds.add(record)
    rnd.status = RoundStatus.DRAFT.value
    uow.rounds.add(rnd)
    flush_and_audit(
        uow,
        rnd,
        "swiss.pair",
        actor=actor,
        event_id=rows.event.id,
        new={
            **draft,
            "unfinished_counted_as_draws": list(stored.missing) if record.unfinished_as_draws else [],
        },
    )
    live.announce(uow, f"stage:{stage_id}", kind="swiss-draft", round_id=rnd.id)
    return rnd


def _draft(stored: StoredSwiss, pairing: RoundPairing) -> dict[str, Any]:
    """The draft as stored: team ids (names may change; ids do not)."""
    ids = stored.team_ids
    return {
        "round": pairing.round,
        "pairings": [[ids[p.first], ids[p.second]] for p in pairing.pairings],
        "bye": None if pairing.bye is None else ids[pairing.bye],
        "not_paired": [ids[name] for name in pairing.not_paired],
        "overrides": [],
    }


def _pairing_of_draft(stored: StoredSwiss, draft: Mapping[str, Any]) -> RoundPairing:
    name = stored.name_of
    return RoundPairing(
        round=int(draft["round"]),
        pairings=tuple(
            Pairing(board, name(first), name(second))
            for board, (first, second) in enumerate(draft["pairings"], start=1)
        ),
        bye=None if draft.get("bye") is None else name(draft["bye"]),
        not_paired=tuple(name(team_id) for team_id in draft.get("not_paired", [])),
    )


# --- reading a round ----------------------------------------------------------------------------------------


def describe_round(uow: UnitOfWork, *, round_id: int) -> RoundView:
    """A round's pairing: its draft while in review, its matches and bye once published."""
    rnd = uow.rounds.get(Round, round_id)
    if rnd is None:
        raise NotFound(_("round %(round)s does not exist") % {"round": round_id})
    rows = swiss_stage(uow, rnd.stage_id)
    record = uow.rounds.swiss_pairing_of(round_id)
    entries = uow.rounds.entries_of_pool(rows.pool.id or 0)
    names = uow.teams.names_by_id(e.team_id for e in entries)
    pairings: list[BoardPairing] = []
    bye: str | None = None
    not_paired: tuple[str, ...] = ()
    if rnd.status == RoundStatus.DRAFT.value and record is not None and record.draft is not None:
        for board, (first, second) in enumerate(record.draft["pairings"], start=1):
            pairings.append(BoardPairing(board, first, names[first], second, names[second]))
        bye = None if record.draft.get("bye") is None else names[record.draft["bye"]]
        not_paired = tuple(names[t] for t in record.draft.get("not_paired", []))
    elif rnd.status in PUBLISHED_ROUNDS:
        for match in uow.rounds.matches_of_round(round_id):
            first, second = match.first_team_id, match.second_team_id
            pairings.append(
                BoardPairing(match.match_no, first, names[first], second, names[second], match.id)
            )
        for row in uow.rounds.byes_and_absences(round_id):
            if row.role == SwissRoundRole.BYE.value:
                bye = names[row.team_id]
        paired = {t for p in pairings for t in (p.first_id, p.second_id)} | {
            tid for tid, name in names.items() if name == bye
        }
        not_paired = tuple(names[e.team_id] for e in entries if e.team_id not in paired)
    requested = {
        row.team_id: row.role
        for row in uow.rounds.byes_and_absences(round_id)
        if SwissRoundRole(row.role).is_requested_bye
    }
    if requested:  # not paired, but with the bye they asked for: listed apart
        not_paired = tuple(n for n in not_paired if n not in {names[t] for t in requested})
    return RoundView(
        stage_id=rows.stage.id or 0,
        round_id=round_id,
        number=rnd.number,
        status=rnd.status,
        pairings=tuple(pairings),
        bye=bye,
        not_paired=not_paired,
        unfinished_as_draws=record.unfinished_as_draws if record is not None else False,
        paired_by=record.paired_by if record is not None else None,
        paired_at=record.paired_at if record is not None else None,
        published_by=record.published_by if record is not None else None,
        published_at=record.published_at if record is not None else None,
        overrides=tuple(record.draft.get("overrides", [])) if record is not None and record.draft else (),
        full_byes=tuple(names[t] for t, role in requested.items() if role == SwissRoundRole.FULL_BYE.value),
        half_byes=tuple(names[t] for t, role in requested.items() if role == SwissRoundRole.HALF_BYE.value),
    )


def draft_round(uow: UnitOfWork, *, stage_id: int) -> RoundView:
    """The stage's round in review (NotFound when no round has a draft pairing)."""
    rows = swiss_stage(uow, stage_id)
    rnd = next((r for r in rows.rounds if r.status == RoundStatus.DRAFT.value), None)
    if rnd is None:
        raise NotFound(
            _("%(stage)s has no draft pairing: pair the next round first") % {"stage": rows.stage.name}
        )
    return describe_round(uow, round_id=rnd.id or 0)


# --- publishing and pairing again --------------------------------------------------------------------------


def _round_of_stage(uow: UnitOfWork, round_id: int) -> tuple[SwissStage, Round]:
    rnd = uow.rounds.get(Round, round_id)
    if rnd is None:
        raise NotFound(_("round %(round)s does not exist") % {"round": round_id})
    rows = running_swiss_stage(uow, rnd.stage_id, what=_("its rounds can no longer be paired"))
    return rows, uow.locks.lock(Round, round_id)


def _draft_record(uow: UnitOfWork, rnd: Round) -> SwissRound:
    record = uow.rounds.swiss_pairing_of(rnd.id or 0)
    if rnd.status != RoundStatus.DRAFT.value or record is None or record.draft is None:
        raise Conflict(
            _("Round %(round)s has no draft pairing (it is %(status)s)")
            % {"round": rnd.number, "status": rnd.status}
        )
    return record


def publish_round_pairing(uow: UnitOfWork, *, round_id: int, actor: str) -> RoundView:
    """Make a draft pairing the round's matches, boards (default lineup) and bye (module docstring)."""
    publish_draft(uow, round_id=round_id, actor=actor)
    return describe_round(uow, round_id=round_id)


def publish_draft(uow: UnitOfWork, *, round_id: int, actor: str) -> None:
    """``publish_round_pairing`` without reading the round back (the workers' ``publish_next_round``)."""
    rows, rnd = _round_of_stage(uow, round_id)
    record = _draft_record(uow, rnd)
    draft = record.draft or {}
    matches = uow.rounds.insert_matches(
        [
            new_match_row(round_id, rows.pool.id, board, first, second)
            for board, (first, second) in enumerate(draft["pairings"], start=1)
        ]
    )
    team_ids = [t for m in matches for t in (m.first_team_id, m.second_team_id)]
    create_boards(uow, matches, default_lineup(uow, team_ids, rows.boards, actor=actor))
    if draft.get("bye") is not None:
        uow.rounds.add(
            SwissRoundTeam(
                round_id=round_id, team_id=draft["bye"], role=SwissRoundRole.BYE.value, recorded_by=actor
            )
        )
    record.published_by, record.published_at = actor, utcnow()
    uow.rounds.add(record)
    rnd.status = RoundStatus.SCHEDULED.value
    uow.rounds.add(rnd)
    # ``boards``: what the public record counts a bye's game points from (docs/record.md)
    flush_and_audit(
        uow, rnd, "swiss.publish", actor=actor, event_id=rows.event.id, new={**draft, "boards": rows.boards}
    )
    live.announce(uow, f"stage:{rows.stage.id}", kind="rounds", round_id=round_id)
    live.announce(uow, f"pool:{rows.pool.id}", kind="rounds")
    live.announce(uow, f"event:{rows.event.slug}", kind="stage", stage_id=rows.stage.id)


def repair_round(
    uow: UnitOfWork,
    *,
    round_id: int,
    actor: str,
    count_unfinished_as_draws: bool = False,
    pairer: SwissPairer | None = None,
) -> RoundView:
    """Pair a round again: its draft, or its published matches and bye when nothing of it has started
    (no game, result, lineup or forfeit) and no later round is paired."""
    rows, rnd = _round_of_stage(uow, round_id)
    later = [
        r.number for r in rows.rounds if r.number > rnd.number and r.status != RoundStatus.UNPAIRED.value
    ]
    if later:
        raise Conflict(
            _("Round %(round)s cannot be paired again: round %(later)s is paired after it")
            % {"round": rnd.number, "later": later[0]}
        )
    if rnd.status in PUBLISHED_ROUNDS:
        if rnd.status != RoundStatus.SCHEDULED.value or uow.rounds.round_has_games(round_id):
            raise Conflict(
                _(
                    "Round %(round)s cannot be paired again: it has started (games, results, "
                    "lineups or forfeits exist); correct its matches instead"
                )
                % {"round": rnd.number}
            )
        uow.rounds.delete_round_games(round_id)
    elif rnd.status != RoundStatus.DRAFT.value:
        raise Conflict(
            _("Round %(round)s is %(status)s: there is nothing to pair again")
            % {"round": rnd.number, "status": rnd.status}
        )
    old = rnd.status
    rnd.status = RoundStatus.UNPAIRED.value
    uow.rounds.add(rnd)
    uow.flush()
    uow.expire_all()  # the deleted matches must not linger in the session
    uow.audit.change(rnd, "swiss.repair", actor=actor, event_id=rows.event.id, old={"status": old})
    return pair_next_round(
        uow,
        stage_id=rows.stage.id or 0,
        actor=actor,
        count_unfinished_as_draws=count_unfinished_as_draws,
        pairer=pairer,
    )


# --- overrides -------------------------------------------------------------------------------------------


Slots = list[list[int | None]]  # team ids: each board's (first, second), then [the bye]


def _moved(slots: Slots, board: int, first_id: int, second_id: int, round_no: int) -> Slots:
    """The slots with ``first_id`` and ``second_id`` on ``board``; the teams there take their places."""
    boards = len(slots) - 1
    if not 1 <= board <= boards:
        raise ValidationFailed(
            [_("board: round %(round)s has boards 1 to %(boards)s") % {"round": round_no, "boards": boards}]
        )
    where = {team: (i, j) for i, slot in enumerate(slots) for j, team in enumerate(slot) if team is not None}
    unknown = [str(t) for t in (first_id, second_id) if t not in where]
    if unknown:
        raise ValidationFailed(
            [
                _("team %(teams)s is not paired in round %(round)s")
                % {"teams": ", ".join(unknown), "round": round_no}
            ]
        )
    moved = [list(slot) for slot in slots]
    displaced = [t for t in moved[board - 1] if t not in (first_id, second_id)]
    vacated = [where[t] for t in (first_id, second_id) if where[t][0] != board - 1]
    for (i, j), team in zip(vacated, displaced, strict=True):
        moved[i][j] = team
    moved[board - 1] = [first_id, second_id]
    return moved


def _current(uow: UnitOfWork, rnd: Round) -> tuple[SwissRound, dict[str, Any], list[Match] | None]:
    """The round's pairing as stored: its record, its draft (rewritten from the matches and bye once
    published) and, for a published round that has not started, its matches."""
    if rnd.status not in PUBLISHED_ROUNDS:
        drafted = _draft_record(uow, rnd)
        return drafted, dict(drafted.draft or {}), None
    record = uow.rounds.swiss_pairing_of(rnd.id or 0)
    if record is None or rnd.status != RoundStatus.SCHEDULED.value or uow.rounds.round_has_games(rnd.id or 0):
        raise Conflict(
            _(
                "Round %(round)s has started (games, results, lineups or forfeits exist): its "
                "pairing can no longer be changed; correct its matches instead"
            )
            % {"round": rnd.number}
        )
    matches = list(uow.rounds.matches_of_round(rnd.id or 0))
    byes = [
        r.team_id for r in uow.rounds.byes_and_absences(rnd.id or 0) if r.role == SwissRoundRole.BYE.value
    ]
    draft = {
        **(record.draft or {}),
        "pairings": [[m.first_team_id, m.second_team_id] for m in matches],
        "bye": byes[0] if byes else None,
    }
    return record, draft, matches


def _apply_to_matches(
    uow: UnitOfWork, rows: SwissStage, rnd: Round, matches: list[Match], slots: Slots, actor: str
) -> None:
    """A published round's matches (their boards made again with the default lineup) and bye as ``slots``."""
    changed: list[Match] = []
    for match, (first, second) in zip(matches, slots[:-1], strict=True):
        if (match.first_team_id, match.second_team_id) != (first, second):
            assert first is not None and second is not None
            match.first_team_id, match.second_team_id = first, second
            uow.rounds.add(match)
            changed.append(match)
    uow.boards.delete_boards_of_matches([m.id or 0 for m in changed])
    uow.flush()
    team_ids = [t for m in changed for t in (m.first_team_id, m.second_team_id)]
    create_boards(uow, changed, default_lineup(uow, team_ids, rows.boards, actor=actor))
    bye = next(
        (r for r in uow.rounds.byes_and_absences(rnd.id or 0) if r.role == SwissRoundRole.BYE.value), None
    )
    if bye is not None and slots[-1][0] is not None:
        bye.team_id = slots[-1][0]
        uow.rounds.add(bye)


def override_pairing(
    uow: UnitOfWork, *, round_id: int, board: int, first_id: int, second_id: int, reason: str, actor: str
) -> RoundView:
    """Put ``first_id`` (first-named) and ``second_id`` on ``board`` of the round's draft, or of a
    published round where nothing has started (its changed boards are made again, default lineup).

    The teams there take the places the two leave (another board, or the bye); naming the same two teams
    swaps the colours. Refused (nothing changes) without a reason, or when the result breaks
    ``check_pairing`` (a rematch, a second bye), naming the teams.
    """
    if not reason.strip():
        raise ValidationFailed([_("reason: say why the pairing is changed (it is published with the audit)")])
    if first_id == second_id:
        raise ValidationFailed([_("choose two different teams")])
    rows, rnd = _round_of_stage(uow, round_id)
    record, draft, matches = _current(uow, rnd)
    slots = _moved(
        [list(pair) for pair in draft["pairings"]] + [[draft.get("bye")]],
        board,
        first_id,
        second_id,
        rnd.number,
    )
    stored = swiss_state_of(uow, rows.stage.id or 0, count_unfinished_as_draws=record.unfinished_as_draws)
    earlier = replace(stored.state, matches=tuple(m for m in stored.state.matches if m.round < rnd.number))
    before = _pairing_of_draft(stored, draft)
    draft["pairings"], draft["bye"] = slots[:-1], slots[-1][0]
    after = _pairing_of_draft(stored, draft)
    try:
        check_pairing(earlier, after)
    except SwissPairingError as error:
        raise Conflict(_("The pairing was not changed: %(error)s") % {"error": error}) from None
    if matches is not None:
        _apply_to_matches(uow, rows, rnd, matches, slots, actor)
    change = {
        "board": board,
        "first": after.pairings[board - 1].first,
        "second": after.pairings[board - 1].second,
    }
    draft["overrides"] = [*draft.get("overrides", []), {**change, "reason": reason.strip(), "by": actor}]
    record.draft = draft
    uow.rounds.add(record)
    flush_and_audit(
        uow,
        rnd,
        "swiss.override",
        actor=actor,
        event_id=rows.event.id,
        old={"pairings": [[p.first, p.second] for p in before.pairings], "bye": before.bye},
        new={"pairings": [[p.first, p.second] for p in after.pairings], "bye": after.bye},
        reason=reason.strip(),
    )
    live.announce(uow, f"stage:{rows.stage.id}", kind="swiss-draft", round_id=round_id)
    if matches is not None:
        live.announce(uow, f"pool:{rows.pool.id}", kind="rounds")
        live.announce(uow, f"event:{rows.event.slug}", kind="stage", stage_id=rows.stage.id)
    return describe_round(uow, round_id=round_id)
