"""What the TRF import's tests share (tests/unit/test_trf_import.py, tests/integration/test_trf_import_pg.py):
a file made a Women section, the import in one unit of work, and the standings after each round as the
server shows them and as the file's own state computes them."""

from __future__ import annotations

from fractions import Fraction

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.swiss.model import SwissState
from orchestrator.services.read.swiss import swiss_view
from orchestrator.services.swiss.trf_import import TrfImport, import_trf

# Other teams of the same name lengths, so that every column stays where it is.
WOMEN = {"Armenia": "Albania", "Brazil": "Belize", "Chile": "China", "Denmark": "Grenada"}
WOMEN |= {"Estonia": "Ecuador", "Finland": "Iceland"}


def women(text: str) -> str:
    """The file as a Women section: other teams, their players female (record 001, column 10)."""
    out = []
    for line in text.splitlines():
        if line.startswith("001 "):
            line = line[:9] + "w" + line[10:]
        for name, other in WOMEN.items():
            line = line.replace(name, other)
        out.append(line)
    return "\n".join(out) + "\n"


def do_import(uow_factory: UnitOfWorkFactory, *files: tuple[str, str]) -> TrfImport:
    with uow_factory() as uow:
        return import_trf(uow, files=list(files), actor="test")


def standings_after(
    uow_factory: UnitOfWorkFactory, slug: str, key: str
) -> dict[int, dict[str, tuple[int, int]]]:
    """Each complete round's standings as the stage page shows them (one table per ``?after=N``)."""
    with uow_factory() as uow:
        complete = swiss_view(uow, slug=slug, stage_key=key).complete_rounds
        return {
            rnd: {
                line.team.name: (line.mp, line.gp_half)
                for line in swiss_view(uow, slug=slug, stage_key=key, after=str(rnd)).standings
            }
            for rnd in complete
        }


def expected_after(state: SwissState, played: int) -> dict[int, dict[str, tuple[int, int]]]:
    return {
        rnd: {t.name: state.points(t.name, through=rnd) for t in state.teams} for rnd in range(1, played + 1)
    }


def record_310_totals(text: str) -> dict[str, tuple[int, int]]:
    """Each team's match points (columns 55-60) and game half-points (62-67) of its record 310."""
    return {
        line[8:40].strip(): (int(Fraction(line[54:60].strip())), int(2 * Fraction(line[61:67].strip())))
        for line in text.splitlines()
        if line.startswith("310 ")
    }
