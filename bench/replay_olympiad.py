"""Replay a real Olympiad round by round with our Olympiad Pairing Rules 2022 engine (docs/swiss.md,
"Replaying a real Olympiad"): per round, the published pairs our engine reproduces, and the total.

    PYTHONPATH=. .venv/bin/python bench/replay_olympiad.py [--diff] [--unpaired-zero] [fixture.json]

The fixture (default: Chennai 2022 Open; tests/fixtures/olympiads/<event>/fixture.json) is written as a
TRF-2026 team file (``scripts/olympiad_trf.py``) and replayed as ``olympiad replay-trf`` replays one: the
same state, the same figures; a last round published as a pairing only (no results, not in the file) is
compared too. ``--diff`` also lists each published pair we did not make, with both
teams' match points and ranks (art. 3.2) before the round and the opponents our engine gave them, and a
round whose published pairing has a bye says whether ours gives it to the same team. ``--unpaired-zero``
leaves out the fixture's credited draws of unpaired teams (Chennai's Chad, its SOURCE.md).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.replay import RoundReplay, replay_state, state_before
from orchestrator.domain.trf.swiss_read import read_team_trf
from scripts.olympiad_trf import fixture_trf, results_known

DEFAULT = Path(__file__).resolve().parents[1] / "tests/fixtures/olympiads/chennai-2022-open/fixture.json"


def run(
    path: Path = DEFAULT, *, unpaired_zero: bool = False
) -> tuple[tuple[RoundReplay, ...], dict[int, tuple[str | None, str]]]:
    """Every published round replayed, and per round with a published bye (ours, published)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if unpaired_zero:
        data["unpaired_draws"] = []
    state, next_round = read_team_trf(fixture_trf(data))
    # A round published as a pairing only (no results; not in the file): its pairs enter the state without
    # points, which no round up to it reads (``state_before`` keeps the rounds before the round paired).
    pending = [r for r in data["rounds"] if not results_known(r)]
    extra = tuple(
        MatchRecord(r["round"], m["first"], m["second"], 0, 0) for r in pending for m in r["matches"]
    )
    state = replace(state, matches=state.matches + extra)
    pairer = Olympiad2022Pairer()
    found = replay_state(pairer, state, next_round - 1 + len(pending))
    byes = {
        rnd: (pairer.pair_round(state_before(state, rnd), rnd).bye, team)
        for rnd, team in data.get("byes", [])
    }
    return found, byes


def main(argv: list[str]) -> None:
    show = "--diff" in argv
    zero = "--unpaired-zero" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")]
    started = time.perf_counter()
    found, byes = run(*paths, unpaired_zero=zero)
    for rnd in found:
        bye = ""
        if rnd.round in byes:
            ours, published = byes[rnd.round]
            bye = f"; bye: {published}" + ("" if ours == published else f" (ours: {ours})")
        print(
            f"round {rnd.round:2}: {rnd.reproduced:3} / {rnd.total:3} "
            f"({100 * rnd.reproduced / rnd.total:5.1f} %){bye}"
        )
        if show:
            for d in rnd.differences:
                (a, amp, ar), (b, bmp, br) = d.first, d.second
                print(
                    f"    {a} ({amp} MP, #{ar}) - {b} ({bmp} MP, #{br}); "
                    f"ours: {a}-{d.ours[0]}, {b}-{d.ours[1]}"
                )
    done = sum(r.reproduced for r in found)
    total = sum(r.total for r in found)
    print(f"total   : {done} / {total} ({100 * done / total:.1f} %) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
