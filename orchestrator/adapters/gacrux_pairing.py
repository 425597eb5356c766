"""FIDE's own Swiss pairing engine ``gacrux`` (TieBreakServer, MIT) behind the ``SwissPairer`` port: the
yardstick our C.04.6 engine (``domain.swiss.c046``) is tested against, and the engine for TRF files ours
does not implement (``pair_trf_file``).

The stage is exported as TRF-2026 (``domain.trf.swiss``, record 192 ``FIDE_TEAM_TYPEA_MP_GP``) and
paired in-process by the same code path as ``python -m gacrux.pairingchecker -p``, so every round we pair
is the round that checker (``-m fideteam``) produces on that file (docs/swiss.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gacrux.pairingchecker import pairingchecker

from orchestrator.domain.swiss import (
    Pairing,
    RoundPairing,
    SwissPairingError,
    SwissState,
    check_pairing,
    check_round_can_be_paired,
)
from orchestrator.domain.swiss.model import SwissError
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, TrfNotReadable, read_team_trf

METHOD = "fideteam"


class TrfPairingError(ValueError):
    """A TRF file that cannot be read or paired; the message says why."""


@dataclass(frozen=True, slots=True)
class TrfPairing:
    """The pairing of one round of a TRF file: (first-named, second) team pairing numbers in board
    order, ``0`` as second for the pairing-allocated bye, and the team names by number."""

    round: int
    pairs: tuple[tuple[int, int], ...]
    names: dict[int, str]


class _Checker(pairingchecker):
    """gacrux's pairing checker reading TRF text from memory instead of a file or stdin."""

    def __init__(self, trf: str, argv: list[str]) -> None:
        super().__init__()
        self._trf = trf
        self._argv = argv

    def read_command_line(self) -> None:
        parse = self.parser.parse_args
        self.parser.parse_args = lambda *args, **kwargs: parse(self._argv)
        super().read_command_line()
        self.params["jch"] = self._trf  # read_input_file takes the text from here


def _method(trf: str) -> list[str]:
    """The file's own FIDE team Swiss system (record 192, which also names the colour model), or
    ``-m fideteam`` for a file without record 192."""
    code = next((line[4:].strip().upper() for line in trf.splitlines() if line.startswith("192 ")), None)
    if code is None:
        return ["-m", METHOD]
    if code.startswith("FIDE_TEAM") and "ROUNDROBIN" not in code:
        return []
    raise TrfPairingError(f"record 192 names {code}, not a FIDE team Swiss system (FIDE_TEAM_*)")


def _run(trf: str, argv: list[str]) -> tuple[_Checker, dict[str, Any]]:
    checker = _Checker(trf, [*_method(trf), *argv])
    checker.do_command(checker.read_command_line, 500, "Bad command line")
    for step, code, text in (
        (checker.read_input_file, 502, "Error when reading the TRF"),
        (checker.prepare_tournament, 501, "Invalid tournament"),
        (checker.do_checker, 481, "Program error"),
        (checker.apply_result, 482, "Program error"),
    ):
        if checker.exit:
            break
        checker.do_command(step, code, text)
    return checker, checker.resultjson["status"]


def pair_trf(trf: str, *, round_no: int | None = None) -> TrfPairing:
    """Pair the next round (or ``round_no``) of a TRF-2026 team file with FIDE C.04.6.

    Raises TrfPairingError with gacrux's own reason when the file cannot be read or the round cannot
    be paired.
    """
    argv = ["-p"] + ([] if round_no is None else ["-n", str(round_no)])
    checker, status = _run(trf, argv)
    if status["code"] != 0 or checker.exit:
        errors = "; ".join(str(error) for error in status.get("error", [])) or (
            "no legal pairing exists; C.04.6 art. 3.3.3 leaves the round to the Chief Arbiter"
        )
        raise TrfPairingError(errors)
    tournament = checker.chessfile.get_tournament(1)
    teams = {team["id"]: team["teamName"] for team in checker.chessfile.chessjson["event"].get("teams", [])}
    names = {c["cid"]: teams.get(c.get("teamId"), str(c["cid"])) for c in tournament["competitors"]}
    result = checker.chessfile.result
    return TrfPairing(round=result["round"], pairs=tuple((w, b) for w, b in result["pairs"]), names=names)


def check_trf(trf: str) -> tuple[bool, str]:
    """Every round of a TRF file checked with ``pairingchecker -c``: (all equal, gacrux's report)."""
    checker, status = _run(trf, ["-c"])
    return status["code"] == 0 and not checker.exit, str(status.get("error", ""))


class GacruxPairer:
    """``SwissPairer`` for FIDE C.04.6 (Type A colours) computed by gacrux."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        teams = check_round_can_be_paired(state, round_no)
        trf = export_trf(state, round_no=round_no)
        try:
            found = pair_trf(trf, round_no=round_no)
        except TrfPairingError as error:
            raise SwissPairingError(
                f"round {round_no} cannot be paired ({error}); teams to pair: {', '.join(teams)}",
                round_no=round_no,
                teams=teams,
            ) from None
        by_tpn = {number: team.name for number, team in enumerate(state.teams, 1)}
        pairings: list[Pairing] = []
        bye: str | None = None
        for first, second in found.pairs:
            if second == 0:
                bye = by_tpn[first]
            else:
                pairings.append(Pairing(len(pairings) + 1, by_tpn[first], by_tpn[second]))
        not_paired = tuple(team.name for team in state.teams if team.name not in teams)
        pairing = RoundPairing(round_no, tuple(pairings), bye, not_paired)
        check_pairing(state, pairing)
        return pairing


def pair_trf_file(trf: str, *, round_no: int | None = None, engine: str = "own") -> TrfPairing:
    """Pair the next round of a TRF-2026 team file: with our engine of the system record 192 names when it
    implements what the file asks for (``domain.trf.swiss_read``: C.04.6 Type A with MP then GP, or one of
    our own systems; the next round), otherwise, or with ``engine="gacrux"``, with gacrux (docs/swiss.md)."""
    if engine == "own":
        try:
            state, next_round = read_team_trf(trf)
        except TrfInvalid as error:  # a broken file: every problem, by line
            problems = "".join(f"\n  {problem}" for problem in error.problems)
            raise TrfPairingError(f"the file cannot be paired; every problem found:{problems}") from None
        except (TrfNotReadable, SwissError):  # what our engines do not implement: FIDE's engine pairs it
            return pair_trf(trf, round_no=round_no)
        if round_no in (None, next_round) and next_round > state.rounds:
            raise TrfPairingError(
                f"the tournament is complete: its {state.rounds} rounds (record 142) are all played, "
                "there is no round to pair"
            )
        if round_no in (None, next_round) and next_round <= state.rounds:
            try:
                found = pairer_for(state.pairing).pair_round(state, next_round)
            except SwissPairingError as error:
                raise TrfPairingError(str(error)) from None
            pairs = [(state.tpn(p.first), state.tpn(p.second)) for p in found.pairings]
            pairs += [(state.tpn(found.bye), 0)] if found.bye else []
            names = {number: team.name for number, team in enumerate(state.teams, 1)}
            return TrfPairing(round=next_round, pairs=tuple(pairs), names=names)
    return pair_trf(trf, round_no=round_no)
