"""MaskablePPO's MLP policy with a per-action input added to the action logits: the advisor's
move (one-hot, ``card-envs train --advice-logit``) or, in self-play on ``sequitur_v1``, each
action's value (the ``action_values`` piece that ends its observation).

Copying a one-hot input to the same logit through the MLP needs a hidden layer about as wide as
the action space. With this skip connection the MLP learns only where to deviate from the input.
"""

from __future__ import annotations

import gymnasium

from card_envs.core.extras import require

with require("train"):
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor


class ObservationKeeper(FlattenExtractor):
    """The identity features of MlpPolicy, keeping the batch it last saw: every path to the
    logits (forward, evaluate_actions, get_distribution) runs the extractor on the same batch
    just before, so a policy's logits can read the observations too."""

    observations: torch.Tensor

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        self.observations = observations
        return super().forward(observations)

    def __getstate__(self) -> dict:
        """Without the last batch: pickling the policy (to a collector worker, an evaluation
        process) would copy that batch's whole storage (the clone's 7 GB of demonstrations
        once: a run killed for memory)."""
        state = self.__dict__.copy()
        state.pop("observations", None)
        return state


class AdviceExtractor(ObservationKeeper):
    """The batch's per-action input: its last ``num_actions`` values."""

    num_actions: int  # set by AdvisedPolicy._build

    @property
    def advice(self) -> torch.Tensor:
        return self.observations[:, -self.num_actions :]


class AdvisedPolicy(MaskableActorCriticPolicy):
    """Logits = MLP(observation) + w * advice, ``advice`` the observation's last
    ``num_actions`` values, with ``w`` learned from ``advice_weight`` (3 by default: a one-hot
    advisor's move).

    Where the advice is a value per action, ``w`` must start at the values' scale: Adam moves
    it by about the learning rate a step, so PPO's few thousand steps cannot take it far, and
    a weight left small lets the MLP's per-id noise drown differences between values
    (docs/training-results.md, the value weight)."""

    pi_features_extractor: AdviceExtractor  # the features_extractor_class __init__ passes

    def __init__(
        self, observation_space, action_space, lr_schedule, advice_weight: float = 3.0, **kwargs
    ):
        kwargs["features_extractor_class"] = AdviceExtractor
        self.initial_advice_weight = advice_weight  # _build, inside super().__init__, reads it
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule) -> None:
        # before the optimizer, which _build makes
        self.advice_weight = torch.nn.Parameter(torch.tensor(float(self.initial_advice_weight)))
        assert isinstance(self.action_space, gymnasium.spaces.Discrete)  # a card env's moves
        self.pi_features_extractor.num_actions = self.action_space.n
        super()._build(lr_schedule)

    def with_advice(self, logits: torch.Tensor, advice: torch.Tensor) -> torch.Tensor:
        """The policy's logits: the MLP's plus ``w`` times the advice (of the same ids)."""
        return logits + self.advice_weight * advice

    def action_logits(self, latent_pi: torch.Tensor) -> torch.Tensor:
        """Every action's logit for the observations the extractor last read."""
        return self.with_advice(self.action_net(latent_pi), self.pi_features_extractor.advice)

    def _get_action_dist_from_latent(self, latent_pi):
        return self.action_dist.proba_distribution(action_logits=self.action_logits(latent_pi))
