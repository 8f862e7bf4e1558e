"""The browser table, ``card-envs serve``: people play the agents and watch recorded games.

:mod:`.tables` holds the games in play, :mod:`.views` what a seat is shown, :mod:`.app` the HTTP
API and the page (``static/``), :mod:`.command` the command. docs/serve.md describes it.
"""
