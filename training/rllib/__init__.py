"""Scale-out training on Ray RLlib: ``card-envs train-rllib GAME``.

``env`` turns a card env into RLlib's multi-agent env (through RLlib's own PettingZoo wrapper)
and ``train`` is the command. The network it trains (:mod:`card_envs.agents.rllib_module`) and
the loader of an exported checkpoint (:mod:`card_envs.agents.rllib`) belong to the agents layer,
which the arena uses. Ray is an optional extra (``pip install card-envs[rllib]``), imported only
when a command runs, so the command line and the agents load without it.
"""
