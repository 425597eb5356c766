"""Each team's outlook in a stage (docs/needs.md): ``compute`` stores the chances and needs after each
round (run by the ``chances.scan`` job), ``read`` gives the pages and the JSON API what was stored."""
