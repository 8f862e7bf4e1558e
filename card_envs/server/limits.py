"""How many tables the server keeps and for how long: defaults of ``card-envs serve`` and of
:class:`card_envs.server.tables.TableStore`, apart so that ``--help`` imports no game."""

TTL_SECONDS = 3600.0  # a table nobody has asked about for an hour is gone
MAX_TABLES = 64  # tables at once: beyond it, the least recently used finished one makes room
