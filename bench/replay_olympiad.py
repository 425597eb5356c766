"""Replay a real Olympiad round by round with our Olympiad Pairing Rules 2022 engine (docs/swiss.md,
"Replaying a real Olympiad"): per round, the published pairs our engine reproduces, and the total.

    PYTHONPATH=. .venv/bin/python bench/replay_olympiad.py [--diff] [fixture.json]

``--diff`` also lists each published pair we did not make, with both teams' match points and ranks
(art. 3.2) before the round and the opponents our engine gave them.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022
from orchestrator.domain.swiss.replay import PublishedMatch, RoundReplay, replay

# Chad, not paired in round 1 (it arrived late), is paired in rounds 2 and 3 as a team on 1 MP: the
# published pairings credit its unpaired round 1 with a drawn match (SOURCE.md of the fixture).
CHAD = frozenset({(1, "Chad")})
DEFAULT = Path(__file__).resolve().parents[1] / "tests/fixtures/olympiads/chennai-2022-open/fixture.json"


def load(path: Path) -> tuple[list[str], dict[int, list[PublishedMatch]], int, int]:
    data = json.loads(path.read_text(encoding="utf-8"))
    teams = [team["name"] for team in sorted(data["teams"], key=lambda t: t["no"])]
    rounds = {
        rnd["round"]: [PublishedMatch(m["first"], m["second"], tuple(m["boards"])) for m in rnd["matches"]]
        for rnd in data["rounds"]
    }
    return teams, rounds, data["boards"], data["rounds_total"]


def run(
    path: Path = DEFAULT, *, unpaired_draws: frozenset[tuple[int, str]] = CHAD
) -> tuple[RoundReplay, ...]:
    teams, rounds, boards, total = load(path)
    return replay(
        Olympiad2022Pairer(),
        teams,
        rounds,
        boards=boards,
        total_rounds=total,
        pairing=OLYMPIAD_2022,
        unpaired_draws=unpaired_draws,
    )


def main(argv: list[str]) -> None:
    show = "--diff" in argv
    zero = "--unpaired-zero" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")]
    started = time.perf_counter()
    found = run(*paths, unpaired_draws=frozenset() if zero else CHAD)
    for rnd in found:
        print(
            f"round {rnd.round:2}: {rnd.reproduced:3} / {rnd.total:3} "
            f"({100 * rnd.reproduced / rnd.total:5.1f} %)"
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
