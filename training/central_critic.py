"""A centralised critic for self-play (``card-envs train GAME --selfplay --central-critic``).

The value is the noisiest part of PPO in these games: from its own observation a seat cannot
see the hands that decide the game. In training the whole table is known, so the critic may
read it (MAPPO; PerfectDou's perfect-training, imperfect-execution). The policy still acts on
its own observation alone, and only the policy is saved: a shipped network never sees a hidden
card.

The critic's input is the table from the acting seat: the acting seat's observation, then each
other seat's in turn order (each seat-relative to its owner, as ``env.state()`` holds them, but
rotated so that the acting seat comes first: one network serves every seat). The other seats'
observations leave out the pieces derived for networks (``observe_underived``), which cost most
of some games' observation and repeat what the rest of the vector holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.core.extras import require

with require("train"):
    import torch
    from torch import nn


def seat_table(encoding: Any, state: Any, seat: int, own: np.ndarray, players: int) -> np.ndarray:
    """The critic's input at ``state`` for ``seat``: its observation ``own``, then the other
    seats' in turn order."""
    others = [
        encoding.observe_underived(state, (seat + step) % players) for step in range(1, players)
    ]
    return np.concatenate([own, *others])


class CentralCritic(nn.Module):
    """Two tanh layers of ``width`` and a linear value, as the policy's own critic is built,
    over the table's vector; with its own Adam optimizer at the policy's learning rate."""

    def __init__(self, size: int, width: int, learning_rate: float, seed: int):
        super().__init__()
        torch.manual_seed(seed + 1)  # not the policy's stream: its weights stay as without
        self.net = nn.Sequential(
            nn.Linear(size, width),
            nn.Tanh(),
            nn.Linear(width, width),
            nn.Tanh(),
            nn.Linear(width, 1),
        )
        self.optimizer = torch.optim.Adam(self.parameters(), lr=learning_rate, eps=1e-5)

    def forward(self, tables: torch.Tensor) -> torch.Tensor:
        """The value of each row, ``(rows,)``."""
        return self.net(tables).flatten()
