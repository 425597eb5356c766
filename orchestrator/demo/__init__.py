"""The one-command demo: a whole event played on the stand-in game server (``olympiad demo``)."""
