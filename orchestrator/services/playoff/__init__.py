"""The play-off: the bracket from the Top division's closed standings, duels, and the Armageddon
(docs/rules.md §5, docs/knockout.md).

Rules live in ``orchestrator.domain.knockout``; these modules store and reload them, one concern each:

- ``commands``: build the bracket and move it on (``build_bracket``, ``advance_bracket``). Match 2 names
  the duel's second team first, so "the match's first team has White on odd boards" holds for every
  match. A duel with an open appeal on one of its matches keeps its winner provisional and does not feed
  the next duel.
- ``sync``: for results and the workers, each Armageddon's phase follows its game, then the bracket
  advances (``advance_after_match``, ``advance_stage_bracket``, ``settle_stage_bracket``).
- ``rulings``: forfeits, withdrawals and staff rulings.
- ``armageddon``: the category and colour lots (hash published, then seed), the sealed nominations and the
  colour choice; ``armageddon_game``: the game itself, a third match of the duel (``leg`` 3, one board) in
  a round of its own, so the workers track it like any other.
- ``deadlines``: what the beat applies when a deadline passes.
- ``read``: the bracket and duel read model and its JSON; ``forms``: the staff desk and the captain's
  Armageddon page.
- ``storage``: the leg, round numbers and lot purposes; ``_context``: the stage loaded once per use case.

Sealing: nothing here returns, logs, audits or announces a nomination before both are in or the deadline
has passed. Views go through the domain's ``public_view`` / ``captain_view``.
"""
