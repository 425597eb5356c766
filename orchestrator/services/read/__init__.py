"""The read side: what spectator pages, the public JSON API and staff pages show, as frozen read models.

One module per page or concern: ``context`` (what every page of an event loads), ``formatting``,
``events``, ``stages``, ``standings`` (pools), ``matches``, ``teams``, ``documents`` (the JSON form)
and ``staff`` (staff pages assembled from several services); the individual results: ``individual``
(every player's games), ``board_prizes``, ``ratings`` (rating changes and the player page) and
``rating_trf`` (the rating file, a staff download).
"""
