"""Scale-out training on Ray RLlib: ``card-envs train-rllib GAME`` and RLlib-trained agents.

``env`` turns a card env into RLlib's multi-agent env (through RLlib's own PettingZoo wrapper),
``module`` is the action-masking PPO network, ``train`` the command and ``agent`` loads an
exported checkpoint behind the common :class:`~agents.base.Agent`. Ray is an optional extra
(``pip install card-envs[rllib]``): only ``module`` imports it at import time, so the command
line and the agents load without it.
"""

INSTALL_HINT = "pip install 'card-envs[rllib]'"  # the extra holding Ray and RLlib
