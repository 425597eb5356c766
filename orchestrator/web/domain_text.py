"""Texts of the Python side that pages show, for the catalogues: the tie-break headings and meanings of
the domain's registry (domain/tiebreaks.py) and the staff navigation's page names (services/read/
dashboard.py ``EVENT_PAGES``).

The domain and the services stay free of the web layer, so their texts are listed here as msgids; the
templates show them with the ``translated`` filter (web/i18n.py). tests/unit/test_template_i18n.py checks
that every one of them is here."""

from __future__ import annotations

from orchestrator.web.i18n import N_

TIEBREAK_TEXT = (
    N_("BH-GP"),
    N_("BH-GP C1"),
    N_("BH-MP"),
    N_("BH-MP C1"),
    N_("DE-GP"),
    N_("DE-MP"),
    N_("EDE"),
    N_("GP"),
    N_("Lot"),
    N_("MP"),
    N_("MPvGP"),
    N_("SB-GM"),
    N_("SB-GM C1"),
    N_("SB-GP"),
    N_("SB-GP C1"),
    N_("SB-MG"),
    N_("SB-MG C1"),
    N_("SB-MP"),
    N_("SB-MP C1"),
    N_("TB1"),
    N_("TB3"),
    N_("Wins"),
    N_("Buchholz on game points"),
    N_("Buchholz on game points, least significant value cut"),
    N_("Buchholz on match points"),
    N_("Buchholz on match points, least significant value cut"),
    N_("Olympiad Sonneborn-Berger"),
    N_("Sonneborn-Berger on game points"),
    N_("Sonneborn-Berger on game points, least significant value cut"),
    N_("Sonneborn-Berger on match points"),
    N_("Sonneborn-Berger on match points, least significant value cut"),
    N_("Sonneborn-Berger, opponents' game points × match points"),
    N_("Sonneborn-Berger, opponents' game points × match points, least significant value cut"),
    N_("Sonneborn-Berger, opponents' match points × game points"),
    N_("Sonneborn-Berger, opponents' match points × game points, least significant value cut"),
    N_("drawing of lots"),
    N_("extended direct encounter"),
    N_("game points"),
    N_("game points among the tied teams"),
    N_("match points"),
    N_("match points among the tied teams"),
    N_("matches won"),
    N_("opponents' match points less the lowest"),
    N_("the other primary score"),
)

STAFF_PAGES = (
    N_("Dashboard"),
    N_("Setup"),
    N_("Teams and rosters"),
    N_("Captains"),
    N_("Player links"),
    N_("Draws by lot"),
    N_("Results"),
    N_("Appeals"),
    N_("Fair play"),
    N_("Audit log"),
)
