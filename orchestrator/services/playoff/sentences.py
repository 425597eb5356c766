"""A duel's outcome in words, in the reader's language, for the bracket and the play-off desk
(docs/translations.md): the same sentence as ``DuelOutcome.sentence`` (domain/knockout/duels.py, English,
which the command line and the demo's terminal print), made from the duel's record and outcome.
"""

from __future__ import annotations

from orchestrator.domain import knockout as ko
from orchestrator.domain.scoring import GameResult, MatchForfeit, MatchRecord, format_points
from orchestrator.translation import gettext as _
from orchestrator.translation import number


def duel_sentence(record: ko.DuelRecord, outcome: ko.DuelOutcome) -> str:
    """``outcome.sentence`` in the reader's language."""
    matches = ko.duel_match_records(record)
    head = _("%(first)s – %(second)s: %(scores)s") % {
        "first": record.first,
        "second": record.second,
        "scores": _scores(matches),
    }
    reason, winners = outcome.reason, outcome.winners
    if reason is ko.DuelReason.JOINT_WINNERS and record.ruling is not None:
        tail = _("%(first)s and %(second)s are joint winners: %(reason)s.") % {
            "first": record.first,
            "second": record.second,
            "reason": record.ruling.reason,
        }
        return f"{head}. {tail}"
    if reason is ko.DuelReason.RULING and record.ruling is not None:
        tail = _("%(winner)s goes through by decision: %(reason)s.") % {
            "winner": winners[0],
            "reason": record.ruling.reason,
        }
        return f"{head}. {tail}"
    if reason is ko.DuelReason.WITHDRAWAL:
        tail = _("%(team)s withdrew; %(winner)s goes through.") % {
            "team": record.withdrawn,
            "winner": winners[0],
        }
        return f"{head}. {tail}"
    if reason is ko.DuelReason.PENDING:
        return head + _("; the duel is not decided yet.")
    mp_a, mp_b = outcome.mp
    if mp_a != mp_b and winners:
        words = {"winner": winners[0], "high": max(mp_a, mp_b), "low": min(mp_a, mp_b)}
        if reason is ko.DuelReason.FORFEIT:
            loser = record.second if winners[0] == record.first else record.first
            tail = _("%(winner)s wins %(high)s–%(low)s on match points; %(loser)s forfeited a match.") % {
                **words,
                "loser": loser,
            }
        else:
            tail = _("%(winner)s wins %(high)s–%(low)s on match points.") % words
        return f"{head}. {tail}"
    level = f"{head}. " + _("Level %(first)s–%(second)s on match points") % {"first": mp_a, "second": mp_b}
    return level + _armageddon(record, outcome)


def _scores(matches: list[MatchRecord]) -> str:
    if not matches:
        return _("no match played")
    parts = []
    for m in matches:
        words = {
            "number": m.round,
            "first": number(format_points(m.gp_a)),
            "second": number(format_points(m.gp_b)),
        }
        if m.forfeit is not MatchForfeit.NONE:
            parts.append(_("match %(number)s %(first)s–%(second)s by forfeit") % words)
        else:
            parts.append(_("match %(number)s %(first)s–%(second)s") % words)
    return ", ".join(parts)


def _armageddon(record: ko.DuelRecord, outcome: ko.DuelOutcome) -> str:
    """The level duel's end: its Armageddon game, or what still decides it."""
    game = record.armageddon
    reason = outcome.reason
    if reason is ko.DuelReason.ARMAGEDDON_NEEDED or game is None:
        return _(": an Armageddon game decides.")
    if reason is ko.DuelReason.NEEDS_RULING:
        return _("; both Armageddon players forfeited: staff must rule.")
    winner = outcome.winners[0]
    black = record.second if game.white == record.first else record.first
    if reason is ko.DuelReason.FORFEIT:
        loser = record.second if winner == record.first else record.first
        return _("; %(loser)s forfeited the Armageddon game, %(winner)s goes through.") % {
            "loser": loser,
            "winner": winner,
        }
    if game.result is GameResult.DRAW:
        how = _("drawn with Black")
    elif game.result in (GameResult.WHITE_WINS, GameResult.WHITE_WINS_FORFEIT):
        how = _("White won")
    else:
        how = _("Black won")
    armageddon = _(
        "; Armageddon %(result)s (%(white)s White, %(black)s Black): %(how)s, %(winner)s goes through."
    )
    return armageddon % {
        "result": game.result.value,
        "white": game.white,
        "black": black,
        "how": how,
        "winner": winner,
    }
