"""FIDE TEC's sample TRF-2026 team file paired round by round by our engine and by gacrux, FIDE's
reference engine (docs/trf.md, "FIDE's sample"): per round, the pairs both make, gacrux's pairs, and
whether the pairing-allocated bye is the same; then the file replayed without its records 250.

    PYTHONPATH=. nice .venv/bin/python bench/trf_sample_vs_gacrux.py [file.trf]

Each round is paired from the file's rounds before it (``replay.state_before``) by our engine, and by
gacrux from the file itself (``pair_trf(text, round_no=r)``, a few seconds a round).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from orchestrator.adapters.gacrux_pairing import pair_trf
from orchestrator.domain.swiss.replay import replay_state, state_before
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.domain.trf.swiss_read import read_team_trf

DEFAULT = Path(__file__).resolve().parents[1] / "tests/fixtures/trf/GrandMommysCup03.trf"


def main(path: Path) -> None:
    text = path.read_bytes().decode()
    state, next_round = read_team_trf(text)
    same_rounds = 0
    for rnd in range(1, next_round):
        before = state_before(state, rnd)
        ours = pairer_for(before.pairing).pair_round(before, rnd)
        pairs = {frozenset((before.tpn(p.first), before.tpn(p.second))) for p in ours.pairings}
        bye = None if ours.bye is None else before.tpn(ours.bye)
        theirs = pair_trf(text, round_no=rnd)
        their_pairs = {frozenset(pair) for pair in theirs.pairs if pair[1]}
        their_bye = next((first for first, second in theirs.pairs if not second), None)
        same = pairs == their_pairs and bye == their_bye
        same_rounds += same
        common = len(pairs & their_pairs)
        print(f"round {rnd:2d}: {common:3d} of {len(their_pairs):3d} pairs, bye {bye} / {their_bye}")
    print(f"rounds paired as gacrux pairs them: {same_rounds} of {next_round - 1}")
    for label, variant in (("the file", state), ("without records 250", replace(state, accelerations=()))):
        found = replay_state(pairer_for(state.pairing), variant, next_round - 1)
        reproduced = sum(r.reproduced for r in found)
        print(f"replayed, {label}: {reproduced} of {sum(r.total for r in found)} of the file's pairs")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
