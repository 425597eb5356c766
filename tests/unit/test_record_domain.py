"""The public record's pure core (orchestrator/domain/record.py, docs/record.md): canonical form, hashes,
the chain, the lots and the standings recomputed from recorded results."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from orchestrator.domain import lots
from orchestrator.domain import record as r
from orchestrator.domain.scoring import MatchScoring

FIRST = (
    '{"at":"2026-12-06T08:00:00Z","kind":"lot.commit","payload":{"commitment":"ab","lot":1},"prev":"'
    + ("0" * 64)
    + '","seq":1}'
)
FIRST_HASH = "6e4538598e49fe119527d14e1e348fc34d468746182876d3bbb232c314d6ac14"  # sha256sum of FIRST
SECOND_HASH = "cdf72d72ac02f7a1d9f2c26fe73819afdab0ab1c8cb2463628c955a5abe8094c"


def two() -> list[r.Entry]:
    a = r.next_entry(
        None, at="2026-12-06T08:00:00Z", kind="lot.commit", payload={"lot": 1, "commitment": "ab"}
    )
    b = r.next_entry(a, at="2026-12-06T08:10:00Z", kind="board.result", payload={"result": "½-½", "board": 7})
    return [a, b]


def chain(*items: tuple[str, dict[str, Any]]) -> list[r.Entry]:
    out: list[r.Entry] = []
    for kind, payload in items:
        out.append(
            r.next_entry(out[-1] if out else None, at="2026-12-06T09:00:00Z", kind=kind, payload=payload)
        )
    return out


# --- canonical form and hashes ---------------------------------------------------------------------------


def test_the_canonical_form_sorts_keys_drops_spaces_and_keeps_unicode() -> None:
    body = {
        "seq": 1,
        "at": "2026-12-06T08:00:00Z",
        "kind": "lot.commit",
        "payload": {"lot": 1, "commitment": "ab"},
    }
    assert r.canonical({**body, "prev": r.GENESIS}) == FIRST.encode()
    assert r.canonical({"b": "½-½", "a": [1, None, True]}) == '{"a":[1,null,true],"b":"½-½"}'.encode()


def test_a_two_entry_chain_has_the_hand_computed_hashes() -> None:
    a, b = two()
    assert (a.seq, a.prev, a.hash) == (1, "0" * 64, FIRST_HASH)
    assert (b.seq, b.prev, b.hash) == (2, FIRST_HASH, SECOND_HASH)
    assert r.entry_hash(
        2, "2026-12-06T08:10:00Z", "board.result", {"board": 7, "result": "½-½"}, FIRST_HASH
    ) == (SECOND_HASH)


@pytest.mark.parametrize("payload", [{"x": 0.5}, {"x": [1, 0.5]}, {"x": {"y": 2.0}}, {"x": (1, 1.5)}])
def test_a_float_anywhere_in_a_payload_is_refused(payload: dict[str, Any]) -> None:
    with pytest.raises(r.RecordError, match="no float"):
        r.canonical(payload)


def test_an_entry_is_read_back_from_its_published_json() -> None:
    a, _ = two()
    data = {
        "seq": 1,
        "at": a.at,
        "kind": a.kind,
        "payload": dict(a.payload or {}),
        "prev": a.prev,
        "hash": a.hash,
    }
    assert r.entry_of(data) == a
    assert r.entry_of({**data, "payload": None}).payload is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seq": 1, "at": "t", "kind": "k", "prev": "p"}, "lacks 'hash'"),
        ({"seq": "1", "at": "t", "kind": "k", "prev": "p", "hash": "h"}, "whole number, not '1'"),
        ({"seq": True, "at": "t", "kind": "k", "prev": "p", "hash": "h"}, "whole number"),
        (
            {"seq": 3, "at": "t", "kind": "k", "prev": "p", "hash": "h", "payload": [1]},
            "entry 3: the payload",
        ),
        ([1, 2], "lacks"),
    ],
)
def test_a_malformed_entry_is_refused_naming_what_is_wrong(data: Any, message: str) -> None:
    with pytest.raises(r.RecordError, match=message):
        r.entry_of(data)


# --- the chain -------------------------------------------------------------------------------------------


def test_a_sound_chain_has_no_mismatch() -> None:
    assert r.check_chain(two()) is None
    assert r.check_chain([]) is None


def test_an_edited_payload_is_named_with_its_sequence_number() -> None:
    a, b = two()
    found = r.check_chain([a, replace(b, payload={"result": "1-0", "board": 7})])
    assert found is not None and found.seq == 2
    assert found.what.startswith(f"hash is {SECOND_HASH}, its content hashes to ")


def test_a_rehashed_edit_breaks_the_next_link() -> None:
    a, b = two()
    forged = r.next_entry(None, at=a.at, kind=a.kind, payload={"lot": 1, "commitment": "cd"})
    assert r.check_chain([forged, b]) == r.Mismatch(
        2, f"prev is {FIRST_HASH}, the hash of the entry before is {forged.hash}"
    )


def test_a_first_entry_must_link_to_genesis_and_numbers_must_follow() -> None:
    a, b = two()
    assert r.check_chain([b]) == r.Mismatch(2, "sequence number 2 where 1 was expected")
    assert r.check_chain([a, a]) == r.Mismatch(1, "sequence number 1 where 2 was expected")
    stray = replace(a, prev="f" * 64)
    assert r.check_chain([stray]) == r.Mismatch(
        1, f"prev is {'f' * 64}, the hash of the entry before is {'0' * 64}"
    )


def test_a_sealed_entry_is_checked_by_its_link_only() -> None:
    a, b = two()
    assert r.check_chain([replace(a, payload=None), b]) is None
    assert r.check_chain([replace(a, payload=None, hash="e" * 64), b]) == r.Mismatch(
        2, f"prev is {FIRST_HASH}, the hash of the entry before is {'e' * 64}"
    )


# --- lots ------------------------------------------------------------------------------------------------

SEED = bytes(range(32))


def lot_entries(*, seed: bytes = SEED, outcome: list[str] | None = None, void: bool = False) -> list[r.Entry]:
    drawn = lots.run_lot(SEED, ["A", "B", "C"], purpose="order", kind=lots.LotKind.ORDER)
    commit = {
        "lot": 4,
        "purpose": "order",
        "kind": "order",
        "candidates": ["A", "B", "C"],
        "commitment": drawn.commitment,
    }
    reveal: dict[str, Any] = {"lot": 4, "purpose": "order", "seed_hex": seed.hex()}
    if not void:
        reveal["outcome"] = outcome if outcome is not None else list(drawn.outcome)
    return chain(("lot.commit", commit), ("lot.void" if void else "lot.draw", reveal))


def test_a_drawn_lot_whose_seed_and_outcome_hold_passes() -> None:
    assert r.check_lots(lot_entries()) is None
    assert r.check_lots(lot_entries(void=True)) is None


def test_a_seed_that_is_not_the_commitments_is_named() -> None:
    found = r.check_lots(lot_entries(seed=bytes(32)))
    assert found is not None and found.seq == 2 and "does not hash to the commitment" in found.what
    found = r.check_lots(lot_entries(seed=bytes(32), void=True))
    assert found is not None and found.seq == 2


def test_an_outcome_the_seed_does_not_draw_is_named() -> None:
    drawn = lots.run_lot(SEED, ["A", "B", "C"], purpose="order", kind=lots.LotKind.ORDER)
    wrong = list(reversed(drawn.outcome))
    found = r.check_lots(lot_entries(outcome=wrong))
    assert found == r.Mismatch(2, f"lot 4: the seed draws another outcome than {wrong}")


def test_a_seed_that_is_not_hex_or_a_lot_never_committed_is_named() -> None:
    entries = lot_entries()
    bad = chain(("lot.commit", dict(entries[0].payload or {})), ("lot.draw", {"lot": 4, "seed_hex": "zz"}))
    assert r.check_lots(bad) == r.Mismatch(2, "lot 4: the seed is not hexadecimal")
    lone = chain(("board.result", {"x": 1}), ("lot.draw", dict(entries[1].payload or {})))
    assert r.check_lots(lone) == r.Mismatch(2, "lot 4 is revealed but its commitment was never recorded")


def test_sealed_entries_are_skipped_by_the_lot_check() -> None:
    entries = lot_entries(outcome=["C", "B", "A"])
    assert r.check_lots([entries[0], replace(entries[1], payload=None)]) is None


# --- standings -------------------------------------------------------------------------------------------


def pairing(*matches: tuple[int, str, str, str, int]) -> tuple[str, dict[str, Any]]:
    return (
        "stage.start",
        {"matches": [{"match": m, "pool": p, "a": a, "b": b, "boards": n} for m, p, a, b, n in matches]},
    )


def result(match: int, board_no: int, code: str, kind: str = "board.result") -> tuple[str, dict[str, Any]]:
    return (kind, {"match": match, "board_no": board_no, "result": code})


def test_pool_points_follow_colours_results_corrections_and_annulments() -> None:
    entries = chain(
        pairing(
            (1, "7", "Norway", "Sweden", 2), (2, "8", "Other", "Else", 2), (3, "7", "Norway", "Denmark", 2)
        ),
        result(1, 1, "1-0"),
        result(1, 2, "1-0", "board.server_result"),  # Sweden has White on board 2
        result(1, 1, "0-1", "board.correction"),
        result(3, 1, "½-½", "board.import_result"),
        result(3, 2, "1-0"),
        ("board.annulled", {"match": 3, "board_no": 2, "counted_as": "-/+"}),
    )
    scoring = MatchScoring()
    assert r.pool_points(entries, "7", scoring) == {
        "Norway": r.Points(0 + 2, 0 + 3),
        "Sweden": r.Points(2, 4),
        "Denmark": r.Points(0, 1),
    }


def test_an_incomplete_match_counts_for_nobody() -> None:
    entries = chain(pairing((1, "7", "A", "B", 2)), result(1, 1, "1-0"))
    assert r.pool_points(entries, "7", MatchScoring()) == {}
    held = chain(pairing((1, "7", "A", "B", 1)), result(1, 1, "1-0"), result(1, 1, "*", "board.result.held"))
    assert r.pool_points(held, "7", MatchScoring()) == {}  # the server's result is held for the arbiter


@pytest.mark.parametrize(
    ("code", "a", "b"),
    [
        ("+-", r.Points(3, 4), r.Points(0, 0)),
        ("-+", r.Points(0, 0), r.Points(3, 4)),
        ("--", r.Points(0, 0), r.Points(0, 0)),
    ],
)
def test_a_whole_match_forfeit_scores_the_absent_team_zero(code: str, a: r.Points, b: r.Points) -> None:
    entries = chain(
        pairing((5, "9", "A", "B", 2)), result(5, 1, "1-0"), ("match.forfeit", {"forfeits": {"5": code}})
    )
    assert r.pool_points(entries, "9", MatchScoring(win=3, draw=1, loss=0)) == {"A": a, "B": b}


def test_a_forfeit_outweighs_the_boards_until_it_is_cleared() -> None:
    entries = chain(
        pairing((5, "9", "A", "B", 2)),
        ("match.forfeit", {"forfeits": {"5": "-+"}}),
        result(5, 1, "1-0"),
        result(5, 2, "1-0"),
    )
    assert r.pool_points(entries, "9", MatchScoring()) == {"A": r.Points(0, 0), "B": r.Points(2, 4)}
    cleared = chain(
        pairing((5, "9", "A", "B", 2)),
        ("match.forfeit", {"forfeits": {"5": "-+"}}),
        result(5, 1, "1-0"),
        result(5, 2, "½-½"),
        ("match.forfeit", {"forfeits": {"5": ""}}),
    )
    assert r.pool_points(cleared, "9", MatchScoring()) == {"A": r.Points(2, 3), "B": r.Points(0, 1)}


def closing(rows: list[dict[str, Any]], kind: str = "pools", **extra: Any) -> tuple[str, dict[str, Any]]:
    return ("stage.close", {"stage_kind": kind, "pools": {"7": rows}, **extra})


PLAYED = (pairing((1, "7", "A", "B", 2)), result(1, 1, "1-0"), result(1, 2, "½-½"))


def test_published_standings_that_match_the_results_pass() -> None:
    entries = chain(
        *PLAYED,
        closing(
            [
                {"rank": 1, "team": "A", "MP": "2", "GP": "3/2"},
                {"rank": 2, "team": "B", "MP": "0", "GP": "1/2"},
            ]
        ),
    )
    assert r.check_standings(entries) is None
    scored = chain(*PLAYED, closing([{"team": "A", "MP": "3"}], scoring={"win": 3, "draw": 1, "loss": 0}))
    assert r.check_standings(scored) is None


def test_a_published_mp_or_gp_the_results_do_not_give_is_named() -> None:
    wrong_mp = chain(*PLAYED, closing([{"team": "A", "MP": "2"}, {"team": "B", "MP": "1", "GP": "1/2"}]))
    assert r.check_standings(wrong_mp) == r.Mismatch(
        4, "pool 7, B: published MP 1, the recorded results give 0"
    )
    wrong_gp = chain(*PLAYED, closing([{"team": "A", "MP": "2", "GP": "2"}]))
    assert r.check_standings(wrong_gp) == r.Mismatch(
        4, "pool 7, A: published GP 2, the recorded results give 3/2"
    )
    absent = chain(
        *PLAYED, ("stage.lots_drawn", {"stage_kind": "pools", "pools": {"7": [{"team": "Z", "MP": "1"}]}})
    )
    assert r.check_standings(absent) == r.Mismatch(
        4, "pool 7, Z: published MP 1, the recorded results give 0"
    )


def test_a_result_recorded_after_the_closing_does_not_count_for_it() -> None:
    entries = chain(*PLAYED, closing([{"team": "A", "MP": "2"}]), result(1, 1, "0-1", "board.correction"))
    assert r.check_standings(entries) is None


def test_a_swiss_stage_without_its_rounds_in_the_record_and_sealed_closings_are_not_recomputed() -> None:
    assert r.check_standings(chain(*PLAYED, closing([{"team": "A", "MP": "9"}], kind="swiss"))) is None
    sealed = chain(*PLAYED, closing([{"team": "A", "MP": "9"}]))
    assert r.check_standings([*sealed[:-1], replace(sealed[-1], payload=None)]) is None


# --- Swiss stages: byes, requested byes, absences --------------------------------------------------------


def published(
    number: int,
    *matches: tuple[int, str, str],
    byes: tuple[str, ...] = (),
    full: tuple[str, ...] = (),
    half: tuple[str, ...] = (),
    absent: tuple[str, ...] = (),
    boards: int | None = 2,
    stage: int = 3,
) -> tuple[str, dict[str, Any]]:
    """A ``swiss.publish`` entry of pool "7" as the publishing writes it (``boards=None``: as it was written
    before the record held a round's byes: the pairing-allocated bye only)."""
    payload: dict[str, Any] = {
        "stage": stage,
        "round": number,
        "matches": [
            {"match": m, "pool": "7", "round": number, "a": a, "b": b, "boards": 2} for m, a, b in matches
        ],
        "byes": list(byes),
    }
    if boards is not None:
        payload |= {"pool": "7", "boards": boards, "full_byes": list(full), "half_byes": list(half)}
        payload["absent"] = list(absent)
    return ("swiss.publish", payload)


SWISS_PLAYED = (
    published(1, (1, "A", "B"), byes=("C",), absent=("D",)),
    result(1, 1, "1-0"),
    result(1, 2, "½-½"),
    published(2, (2, "C", "A"), full=("B",), half=("D",)),
    result(2, 1, "0-1"),
    result(2, 2, "1-0"),  # A has White on board 2
)
# A: 2 + 2 MP, 3/2 + 2 GP; B: 0 + 2 (full-point bye), 1/2 + 2; C: 1 (bye) + 0, 1 + 0; D: 0 + 1, 0 + 1.
SWISS_ROWS = [
    {"team": "A", "MP": "4", "GP": "7/2"},
    {"team": "B", "MP": "2", "GP": "5/2"},
    {"team": "C", "MP": "1", "GP": "1"},
    {"team": "D", "MP": "1", "GP": "1"},
]


def test_swiss_byes_count_a_drawn_match_and_requested_byes_a_won_or_drawn_one() -> None:
    entries = chain(*SWISS_PLAYED)
    assert r.pool_points(entries, "7", MatchScoring()) == {
        "A": r.Points(4, 7),
        "B": r.Points(2, 5),
        "C": r.Points(1, 2),
        "D": r.Points(1, 2),
    }
    assert r.pool_points(entries, "7", MatchScoring(win=3, draw=1, loss=0))["B"] == r.Points(3, 5)
    assert r.pool_points(entries, "8", MatchScoring()) == {}  # another pool's byes are not this one's


def test_a_swiss_closing_is_recomputed_and_a_wrong_bye_value_is_named() -> None:
    entries = chain(*SWISS_PLAYED, closing(SWISS_ROWS, kind="swiss", stage=3))
    assert r.check_standings(entries) is None
    verdict = r.verify(entries)
    assert (verdict.mismatch, verdict.closings, verdict.unchecked) == (None, 1, 0)
    wrong = [dict(row) for row in SWISS_ROWS]
    wrong[1]["MP"] = "1"  # the full-point bye counted as a drawn match
    found = r.check_standings(chain(*SWISS_PLAYED, closing(wrong, kind="swiss", stage=3)))
    assert found == r.Mismatch(7, "pool 7, B: published MP 1, the recorded results give 2")


def test_a_swiss_closing_recorded_before_the_byes_were_or_missing_a_round_is_left_unchecked() -> None:
    """A chain written before the publications named every bye still verifies: its Swiss closings are
    counted as not recomputed, never as a mismatch."""
    old = chain(
        published(1, (1, "A", "B"), byes=("C",), boards=None),
        result(1, 1, "1-0"),
        result(1, 2, "1-0"),
        closing([{"team": "C", "MP": "9"}], kind="swiss", stage=3),
    )
    assert r.check_standings(old) is None
    assert (r.verify(old).closings, r.verify(old).unchecked) == (0, 1)
    assert r.swiss_unchecked(old[:-1], {"stage": 3}) == "its rounds were recorded without their byes"
    imported_before = chain(  # rounds 1-2 imported before imports recorded them; round 3 on the desk
        published(3, (1, "A", "B")),
        closing([{"team": "A", "MP": "9"}], kind="swiss", stage=3),
    )
    assert r.check_standings(imported_before) is None
    assert r.swiss_unchecked(imported_before[:-1], {"stage": 3}) == "round 1 is not in the record"
    assert r.swiss_unchecked(imported_before[:-1], {"stage": 4}) == "none of its rounds is in the record"
    assert r.swiss_unchecked(chain(("swiss.publish", {"stage": 3, "round": "x"})), {"stage": 3}) == (
        "its rounds cannot be read"
    )


def test_a_round_published_again_counts_its_last_publication_and_a_cancelled_round_none() -> None:
    again = chain(
        published(1, (1, "A", "B"), byes=("C",)),
        published(1, (2, "B", "C"), byes=("A",)),  # paired again before it started
        result(2, 1, "1-0"),
        result(2, 2, "1-0"),
    )
    assert r.pool_points(again, "7", MatchScoring()) == {
        "A": r.Points(1, 2),
        "B": r.Points(1, 2),
        "C": r.Points(1, 2),
    }
    ended = chain(
        *SWISS_PLAYED[:3],
        published(2, (2, "C", "A"), full=("B",)),
        ("swiss.end_early", {"entity": "stage", "id": 3, "last_round": 1, "cancelled": [2]}),
    )
    assert r.pool_points(ended, "7", MatchScoring())["B"] == r.Points(0, 1)  # no bye of round 2
    other_stage = chain(
        *SWISS_PLAYED[:3],
        ("swiss.end_early", {"entity": "stage", "id": 4, "last_round": 0, "cancelled": [1]}),
    )
    assert r.pool_points(other_stage, "7", MatchScoring())["C"] == r.Points(1, 2)


def test_an_old_publication_names_its_pool_and_boards_through_its_matches() -> None:
    old = chain(published(1, (1, "A", "B"), byes=("C",), boards=None))
    assert r.pool_points(old, "7", MatchScoring()) == {"C": r.Points(1, 2)}
    assert (
        r.pool_points(chain(("swiss.publish", {"stage": 3, "round": 1, "byes": ["C"]})), "7", MatchScoring())
        == {}
    )


# --- the whole verification ------------------------------------------------------------------------------


def test_verify_sorts_by_sequence_and_counts_what_held() -> None:
    entries = chain(
        *[(e.kind, dict(e.payload or {})) for e in lot_entries()],
        *PLAYED,
        closing([{"team": "A", "MP": "2"}]),
        ("armageddon.nominate", {"team": "A"}),
    )
    sealed = [*entries[:-1], replace(entries[-1], payload=None)]
    verdict = r.verify(list(reversed(sealed)))
    assert verdict == r.Verdict(None, 7, 1, 1, 1, entries[-1].hash)
    assert r.verify([]) == r.Verdict(None, 0, 0, 0, 0, r.GENESIS)


def test_verify_reports_the_chain_first_then_lots_then_standings() -> None:
    entries = chain(
        *[(e.kind, dict(e.payload or {})) for e in lot_entries(seed=bytes(32))],
        *PLAYED,
        closing([{"team": "A", "MP": "1"}]),
    )
    assert r.verify(entries).mismatch == r.check_lots(entries)
    assert r.verify(entries[2:]).mismatch == r.Mismatch(3, "sequence number 3 where 1 was expected")
    standings_only = chain(*PLAYED, closing([{"team": "A", "MP": "1"}]))
    assert r.verify(standings_only).mismatch == r.Mismatch(
        4, "pool 7, A: published MP 1, the recorded results give 2"
    )


def test_a_payload_of_the_wrong_shape_is_a_mismatch_naming_its_entry_not_a_crash() -> None:
    commit = {
        "lot": 4,
        "purpose": "p",
        "kind": "neither",
        "candidates": ["A", "B"],
        "commitment": lots.commitment(SEED),
    }
    bad_lot = chain(
        ("lot.commit", commit), ("lot.draw", {"lot": 4, "seed_hex": SEED.hex(), "outcome": ["A"]})
    )
    found = r.check_lots(bad_lot)
    assert (
        found is not None
        and found.seq == 2
        and found.what.startswith("the lot cannot be checked: ValueError(")
    )
    bad_row = chain(*PLAYED, closing([{"rank": 1, "MP": "2"}]))
    found = r.check_standings(bad_row)
    assert (
        found is not None
        and found.seq == 4
        and "cannot be checked against the entries before it: KeyError(" in found.what
    )
    bad_scoring = chain(*PLAYED, closing([], scoring={"bonus": 1}))
    found = r.check_standings(bad_scoring)
    assert found is not None and found.seq == 4 and "TypeError(" in found.what
    bad_result = chain(
        pairing((1, "7", "A", "B", 1)), result(1, 1, "2-0"), closing([{"team": "A", "MP": "2"}])
    )
    assert "ScoreError(" in (r.check_standings(bad_result) or r.Mismatch(0, "")).what
    assert r.verify(bad_result).mismatch == r.check_standings(bad_result)


def test_a_float_in_a_published_entry_is_a_mismatch_of_that_entry() -> None:
    a, b = two()
    assert r.check_chain([a, replace(b, payload={"board": 7, "result": 0.5})]) == r.Mismatch(
        2, "a record holds no float (0.5): write it as text or half-points"
    )


# --- edges the mutation run asked for (docs/mutation.md) -------------------------------------------------


def test_a_closing_without_pools_or_a_team_without_matches_holds_at_zero() -> None:
    assert r.check_standings(chain(*PLAYED, ("stage.close", {"stage_kind": "pools"}))) is None
    idle = chain(*PLAYED, closing([{"team": "Z", "MP": "0", "GP": "0"}]))
    assert r.check_standings(idle) is None


def test_a_forfeit_scores_its_match_points_even_on_a_match_without_boards() -> None:
    for code, a_mp, b_mp in (("+-", 2, 0), ("-+", 0, 2)):
        entries = chain(pairing((5, "9", "A", "B", 0)), ("match.forfeit", {"forfeits": {"5": code}}))
        assert r.pool_points(entries, "9", MatchScoring()) == {"A": r.Points(a_mp, 0), "B": r.Points(b_mp, 0)}


def test_colours_alternate_on_every_board_of_a_long_match() -> None:
    entries = chain(pairing((1, "7", "A", "B", 4)), *(result(1, n, "1-0") for n in (1, 2, 3, 4)))
    assert r.pool_points(entries, "7", MatchScoring()) == {"A": r.Points(1, 4), "B": r.Points(1, 4)}
    three = chain(pairing((1, "7", "A", "B", 3)), *(result(1, n, "1-0") for n in (1, 2, 3)))
    assert r.pool_points(three, "7", MatchScoring()) == {"A": r.Points(2, 4), "B": r.Points(0, 2)}


def test_a_team_adds_up_every_match_and_an_incomplete_one_does_not_stop_the_count() -> None:
    entries = chain(
        pairing((1, "7", "A", "B", 1), (2, "7", "A", "C", 1), (3, "7", "B", "A", 1)),
        result(1, 1, "1-0"),
        result(3, 1, "0-1"),  # match 2 has no result yet
    )
    assert r.pool_points(entries, "7", MatchScoring()) == {"A": r.Points(4, 4), "B": r.Points(0, 0)}


def test_entries_without_their_lists_and_a_forfeited_match_without_results_are_read() -> None:
    entries = chain(
        ("stage.start", {"stage": 1}),
        pairing((5, "9", "A", "B", 2)),
        ("match.forfeit", {"match": 5}),
        ("match.forfeit", {"forfeits": {"5": "--"}}),
    )
    assert r.pool_points(entries, "9", MatchScoring()) == {"A": r.Points(0, 0), "B": r.Points(0, 0)}


def test_the_lot_messages_name_the_lot_and_its_commitment() -> None:
    drawn = lots.run_lot(SEED, ["A", "B", "C"], purpose="order", kind=lots.LotKind.ORDER)
    assert r.check_lots(lot_entries(seed=bytes(32))) == r.Mismatch(
        2, f"lot 4: the seed does not hash to the commitment {drawn.commitment}"
    )


def test_a_sealed_entry_before_a_bad_lot_does_not_end_the_lot_check() -> None:
    bad = lot_entries(seed=bytes(32))
    sealed = chain(("armageddon.nominate", {"team": "A"}))[0]
    entries = [bad[0], replace(sealed, seq=2, payload=None), replace(bad[1], seq=3)]
    found = r.check_lots(entries)
    assert found is not None and found.seq == 3


def test_verify_counts_void_lots_with_the_drawn_ones() -> None:
    entries = chain(*[(e.kind, dict(e.payload or {})) for e in lot_entries(void=True)])
    assert r.verify(entries).lots == 1


def test_pool_points_count_the_bonus_and_penalty_points_of_the_pool_only() -> None:
    """TRF record 299's points given to a team of a Swiss stage (``swiss.adjustment``) count in its pool's
    points, negative ones taken away, and never in another pool's."""
    entries = chain(
        ("swiss.adjustment", {"pool": "4", "team": "A", "match_points": -2, "game_points": "-1/2"}),
        ("swiss.adjustment", {"pool": "4", "team": "B", "match_points": 1, "game_points": "3"}),
        ("swiss.adjustment", {"pool": "5", "team": "A", "match_points": 7, "game_points": "7"}),
        ("swiss.withdraw", {"pool": "4", "team": "A", "match_points": 5, "game_points": "5"}),
    )
    assert r.pool_points(entries, "4", MatchScoring()) == {"A": r.Points(-2, -1), "B": r.Points(1, 6)}


def test_a_byes_game_points_come_from_the_publications_boards_else_its_matches() -> None:
    """``_boards_of``: the publication's own ``boards``; an older entry without it, its matches' boards; a
    round of byes only without either, none (the bye still scores a drawn match's points)."""
    own = chain(published(1, (1, "A", "B"), byes=("C",), boards=3))
    assert r.pool_points(own, "7", MatchScoring())["C"] == r.Points(1, 3)
    older = chain(published(1, (1, "A", "B"), byes=("C",), boards=None))
    assert r.pool_points(older, "7", MatchScoring())["C"] == r.Points(1, 2)
    byes_only = chain(("swiss.publish", {"stage": 3, "round": 1, "pool": "7", "matches": [], "byes": ["C"]}))
    assert r.pool_points(byes_only, "7", MatchScoring()) == {"C": r.Points(1, 0)}


def test_a_round_of_byes_only_is_found_in_its_pool_by_its_own_field_and_other_pools_are_skipped() -> None:
    def byes_only(stage: int, pool: str, team: str) -> tuple[str, dict[str, Any]]:
        payload = {"stage": stage, "round": 1, "pool": pool, "boards": 2, "matches": [], "byes": [team]}
        return "swiss.publish", payload

    other, mine = byes_only(4, "8", "X"), byes_only(3, "7", "C")
    entries = chain(other, ("event.note", None), mine)  # type: ignore[arg-type]
    assert r.pool_points(entries, "7", MatchScoring()) == {"C": r.Points(1, 2)}
    assert r.pool_points(entries, "8", MatchScoring()) == {"X": r.Points(1, 2)}
    assert set(r.swiss_rounds(entries)) == {(4, 1), (3, 1)}  # an entry without payload is passed over


def test_an_adjustment_without_match_or_game_points_adds_nothing_of_that_kind() -> None:
    entries = chain(
        ("swiss.adjustment", {"pool": "4", "team": "A", "match_points": -2}),
        ("swiss.adjustment", {"pool": "4", "team": "B", "game_points": "3/2"}),
    )
    assert r.pool_points(entries, "4", MatchScoring()) == {"A": r.Points(-2, 0), "B": r.Points(0, 3)}


def test_a_swiss_round_missing_just_before_the_last_leaves_the_closing_unchecked() -> None:
    entries = chain(published(1, (1, "A", "B")), published(3, (2, "A", "B")))
    assert r.swiss_unchecked(entries, {"stage": 3}) == "round 2 is not in the record"
