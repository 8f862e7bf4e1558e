"""Tools over every registered game: ``arena`` (ratings), ``bench`` (speed) and ``play`` (human).

Each tool module has ``add_parser(subparsers)`` registering its ``card-envs`` subcommand; they
find games through :mod:`card_envs.registry` only, so a new game appears without edits here.
"""
