"""The kinds of notification, who gets them and how the account page names them."""

from __future__ import annotations

from enum import StrEnum

from orchestrator.translation import N_


class Kind(StrEnum):
    LINEUP_OPEN = "lineup_open"
    LINEUP_DUE = "lineup_due"
    ARMAGEDDON_DUE = "armageddon_due"
    PAIRINGS = "pairings"
    RESULT_CORRECTED = "result_corrected"
    APPEAL_DECIDED = "appeal_decided"
    LINK_ACCOUNT = "link_account"


# What a captain may turn off on the account page, in the order shown, with the label shown (in the
# catalogues: the page shows it with the ``translated`` filter).
CAPTAIN_KINDS: dict[Kind, str] = {
    Kind.LINEUP_OPEN: N_("A round's lineup can be submitted"),
    Kind.LINEUP_DUE: N_("A lineup is due soon and not submitted"),
    Kind.ARMAGEDDON_DUE: N_("An Armageddon nomination is due"),
    Kind.PAIRINGS: N_("Pairings are published"),
    Kind.RESULT_CORRECTED: N_("A result of my team was corrected"),
    Kind.APPEAL_DECIDED: N_("An appeal about my team's match was decided"),
}
# Players are not users: "link your account" goes to a player's address and has no preference.
PLAYER_KINDS: tuple[Kind, ...] = (Kind.LINK_ACCOUNT,)


def known_kinds(values: list[str]) -> list[str]:
    """The values that name a kind a user may turn off, each once, in the page's order."""
    wanted = set(values)
    return [kind.value for kind in CAPTAIN_KINDS if kind.value in wanted]
