"""MaskablePPO's MLP policy with each action also scored from features of its own, where they
are a fixed linear map of the observation: what the seat would hold after it (Seals' takes:
the hand plus the cards the take lifts from the face-up row), or what a card risks and beats
(Seamless's plays: its suit's cards above it still out, and in the trick).

A plain MLP must learn, for every action id apart, which inputs that action changes and how;
a clone of a teacher that weighs the hand a take leaves then misses enough of its takes to lose
games (docs/training-results.md). Here one small scorer, shared by every action,
reads each action's features beside the observation's latent: the arithmetic of a take is
built in, and the scorer learns only what the result is worth.

The map is the game's declaration (``action_feature_map`` in its agents module), held as a
buffer: a checkpoint carries it, and loading one needs nothing from the game.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from card_envs.agents.advised_policy import ObservationKeeper
from card_envs.core.extras import require

with require("train"):
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy


class ActionFeaturePolicy(MaskableActorCriticPolicy):
    """Logits = MLP(observation) + scorer(features of the action, actor latent) for every
    action the map gives features to; ``feature_map`` holds only those actions' rows,
    ``(scored actions * features, observation)``, so that one matrix product gives their
    features and a game with many actions pays only for the ones it scores.

    The features are counts (cards of a symbol in the hand after a take ...), and what they are
    worth turns at whole numbers (a series is four of a kind), so the scorer reads each count as
    ``levels`` steps, "at least 1" .. "at least ``levels``" (a thermometer code): a ReLU layer on
    the plain count fits a teacher's values worse (docs/training.md)."""

    pi_features_extractor: ObservationKeeper
    feature_map: torch.Tensor  # buffers, made by _build
    scored: torch.Tensor
    scored_ids: torch.Tensor  # derived from the two above by _hold
    read_columns: torch.Tensor
    read_map: torch.Tensor

    def __init__(
        self,
        observation_space,
        action_space,
        lr_schedule,
        features: int = 1,
        levels: int = 1,
        **kwargs,
    ):
        kwargs["features_extractor_class"] = ObservationKeeper
        self.features, self.levels = features, levels  # _build, in super().__init__, reads them
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        actions, size = self.sizes
        width = self.mlp_extractor.latent_dim_pi
        self.register_buffer("feature_map", torch.zeros(0, size))  # set_feature_map fills it
        self.register_buffer("scored", torch.zeros(actions))  # 1 where the map gives features
        for name, dtype in (("scored_ids", torch.long), ("read_columns", torch.long)):
            self.register_buffer(name, torch.zeros(0, dtype=dtype), persistent=False)
        self.register_buffer("read_map", torch.zeros(0, 0), persistent=False)
        self.feature_in = torch.nn.Linear(self.features * self.levels, width)
        self.latent_in = torch.nn.Linear(width, width, bias=False)
        self.feature_out = torch.nn.Linear(width, 1)
        # SB3's _build made the optimizer before these layers existed
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # as SB3's _build
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    @property
    def sizes(self) -> tuple[int, int]:
        """The action count and the observation size."""
        assert isinstance(self.action_space, gymnasium.spaces.Discrete)  # a card env's moves
        assert self.observation_space.shape is not None
        return int(self.action_space.n), int(self.observation_space.shape[0])

    def set_feature_map(self, feature_map: np.ndarray) -> None:
        """The game's ``(actions, features, observation)`` map, as this policy's buffers."""
        actions, size = self.sizes
        if feature_map.shape != (actions, self.features, size):
            raise ValueError(
                f"a feature map of shape {feature_map.shape}; this policy takes "
                f"{(actions, self.features, size)}"
            )
        tensor = torch.as_tensor(feature_map, dtype=torch.float32)
        self.scored.copy_((tensor.abs().sum(dim=(1, 2)) > 0).float())
        self._hold(tensor[self.scored > 0].reshape(-1, size))

    def _hold(self, rows: torch.Tensor) -> None:
        """The scored actions' rows of the map as the buffer; their ids from ``scored``, and the
        observation entries the map reads with its columns for them (a few of many)."""
        self.feature_map = rows.contiguous()
        self.scored_ids = torch.nonzero(self.scored).flatten()
        self.read_columns = torch.nonzero(rows.abs().sum(dim=0)).flatten()
        self.read_map = rows[:, self.read_columns].T.contiguous()

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        self._load_map(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        self._hold(self.feature_map)  # the loaded values into the derived buffers

    def _load_map(self, state_dict, prefix: str) -> None:
        """Take the map as saved: the scored actions' rows, or every action's rows (the layout
        of checkpoints before 2026-12-07), kept to the scored ones."""
        held, scored = state_dict.get(prefix + "feature_map"), state_dict.get(prefix + "scored")
        if held is not None and scored is not None:
            actions, size = self.sizes
            if held.shape[0] == actions * self.features and held.shape[0] > 0:
                held = held.view(actions, self.features, -1)[scored > 0].reshape(-1, size)
                state_dict[prefix + "feature_map"] = held
            self.feature_map = torch.zeros_like(held)  # the right shape; the load fills it

    def logits(self, observations: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
        """Every action's logit, ``(rows, actions)``: the MLP's plus the scorer's."""
        return self.action_net(latent) + self.feature_logits(observations, latent)

    def feature_logits(self, observations: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
        """The scorer's logit of every action, ``(rows, actions)``: 0 where the map gives none."""
        rows = len(observations)
        read = observations.index_select(1, self.read_columns)
        counts = (read @ self.read_map).view(rows, -1, 1, self.features)
        steps = torch.arange(self.levels, dtype=counts.dtype, device=counts.device)
        # (rows, scored actions, levels * features), level by level: one clamp for every step
        at_least = torch.clamp(counts - steps[:, None], 0.0, 1.0).flatten(2)
        hidden = torch.relu(self.feature_in(at_least) + self.latent_in(latent)[:, None])
        scores = self.feature_out(hidden).squeeze(2)
        return scores.new_zeros(rows, self.sizes[0]).index_copy(1, self.scored_ids, scores)

    def action_logits(self, latent_pi: torch.Tensor) -> torch.Tensor:
        """Every action's logit for the observations the extractor last read."""
        return self.logits(self.pi_features_extractor.observations, latent_pi)

    def _get_action_dist_from_latent(self, latent_pi):
        return self.action_dist.proba_distribution(action_logits=self.action_logits(latent_pi))
