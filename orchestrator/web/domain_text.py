"""Texts of the Python side that pages show, for the catalogues: the tie-break headings and meanings of
the domain's registry (domain/tiebreaks.py), the staff navigation's page names (services/read/
dashboard.py ``EVENT_PAGES``) and the words for the values the database stores: statuses, kinds and roles
(``VALUE_TEXT``).

The domain and the services stay free of the web layer, so their texts are listed here as msgids; the
templates show them with the ``translated`` filter (web/i18n.py), and a stored value with the
``value_text`` filter (``{{ stage.status | value_text }}``: "running" reads "In progress"). HTML classes
and data attributes keep the raw value. tests/unit/test_template_i18n.py checks that every one of them is
in the catalogues; tests/unit/test_value_text.py that every status and kind the tables can hold has its
words here."""

from __future__ import annotations

from orchestrator.web.i18n import N_, gettext

TIEBREAK_TEXT = (
    N_("BH-GP"),
    N_("BH-GP C1"),
    N_("BH-MP"),
    N_("BH-MP C1"),
    N_("DE-GP"),
    N_("DE-MP"),
    N_("EDE"),
    N_("GP"),
    N_("KV"),
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
    N_("opponents' match points × game points, the least product left out"),
    N_("the other primary score"),
)

# The Swiss pairing systems as pages name them (domain/swiss/systems.py ``SYSTEM_NAMES``); the services
# translate them when they build a page's view.
SYSTEM_TEXT = (
    N_("FIDE C.04.6, the Swiss Team Pairing System"),
    N_("the Olympiad Pairing Rules 2022"),
    N_("score-group halves (each score group by game points, top half v bottom half)"),
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

# Words for each value of the statuses and kinds of adapters/tables.py (events, stages, pools, rounds,
# matches, appeals, duels, Armageddons, late changes, player links, game creation, the outbox), of the
# lots (domain/lots.py ``LotKind``) and of the e-mails (services/notify/kinds.py ``Kind``). A value that
# means the same in two vocabularies has one entry ("draft" of an event, a stage, a pool or a round).
STATUS_TEXT: dict[str, str] = {
    "draft": N_("Draft"),
    "published": N_("Published"),
    "running": N_("In progress"),
    "closed": N_("Finished"),  # the public pages say "Finished" for a closed event or stage
    "unpaired": N_("Not paired yet"),
    "scheduled": N_("Scheduled"),
    "paired": N_("Paired"),
    "playing": N_("Playing"),
    "finished": N_("Finished"),
    "cancelled": N_("Cancelled"),
    "open": N_("Open"),
    "upheld": N_("Upheld"),
    "rejected": N_("Rejected"),
    "waiting": N_("Waiting"),
    "ready": N_("Ready"),
    "nominating": N_("Nominating"),
    "choosing": N_("Choosing the colour"),
    "armageddon": N_("Armageddon"),
    "decided": N_("Decided"),
    "pending": N_("Pending"),
    "reseeded": N_("Re-seeded"),
    "kept": N_("Kept"),
    "withdrawn": N_("Withdrawn"),
    "linked": N_("Linked"),
    "missing": N_("Missing"),
    "refused": N_("Refused"),
    "created": N_("Created"),
    "failed": N_("Failed"),
    "queued": N_("Queued"),
    "sent": N_("Sent"),
}
KIND_TEXT: dict[str, str] = {
    "pools": N_("Pools"),
    "knockout": N_("Knockout"),
    "swiss": N_("Swiss"),
    "order": N_("Full order"),
    "one": N_("One drawn"),
    "lineup_open": N_("Lineup open"),
    "lineup_due": N_("Lineup due"),
    "armageddon_due": N_("Armageddon nomination due"),
    "pairings": N_("Pairings published"),
    "result_corrected": N_("Result corrected"),
    "appeal_decided": N_("Appeal decided"),
    "link_account": N_("Link the game-server account"),
}
# Who an account is (tables.py ``Role``) and who entered a result (``ResultSource``).
ROLE_TEXT: dict[str, str] = {
    "owner": N_("Owner"),
    "admin": N_("Administrator"),
    "arbiter": N_("Arbiter"),
    "captain": N_("Captain"),
    "server": N_("Game server"),
    "import": N_("Imported"),
}
# Colours (a board's, a team's on board 1, a colour lot's candidates "White" and "Black"), the board
# categories of the event file's team format ("open" is above) and a match's outcome for one team.
COLOUR_TEXT: dict[str, str] = {
    "white": N_("White"),
    "black": N_("Black"),
    "White": N_("White"),
    "Black": N_("Black"),
}
CATEGORY_TEXT: dict[str, str] = {"women": N_("women"), "junior": N_("junior"), "girl": N_("girl")}
OUTCOME_TEXT: dict[str, str] = {"win": N_("won"), "draw": N_("drawn"), "loss": N_("lost")}
VALUE_TEXT: dict[str, str] = {
    **STATUS_TEXT,
    **KIND_TEXT,
    **ROLE_TEXT,
    **COLOUR_TEXT,
    **CATEGORY_TEXT,
    **OUTCOME_TEXT,
}


def value_text(value: object) -> str:
    """A stored status or kind in the reader's language (``VALUE_TEXT``); any other value as it is."""
    text = str(value) if value is not None else ""
    english = VALUE_TEXT.get(text)
    return gettext(english) if english is not None else text
