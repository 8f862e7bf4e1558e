"""DQN with Tianshou 2 on the AEC env, in one file: 2-player Seals against the heuristic.

``tianshou.env.PettingZooEnv`` takes ``card_envs.make(...)`` as it is (it reads the mask from
the observation dict); ``MultiAgentOffPolicyAlgorithm`` seats a masked DQN learner in
``player_0`` and the game's heuristic in ``player_1``, the heuristic wrapped as a Tianshou
algorithm that learns nothing (as Tianshou's own random opponent is). Tianshou's off-policy
trainer trains briefly, on the points as scored, then the greedy learner plays fresh deals
against the heuristic, and a random player the same deals, for comparison: the share of wins,
and the points ahead of the heuristic at the end. At the defaults the learner does not beat the
heuristic: Tianshou's multi-agent targets mix in the other seat's moves (docs/integrations.md).
Every hyperparameter is in ``Args``, each also a flag. Needs the ``tianshou`` extra. Run:
``python examples/tianshou_dqn.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from dataclasses import dataclass

import numpy as np

import card_envs
from card_envs.agents import make_agent
from card_envs.core.extras import require

with require("tianshou"):
    import torch
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, TrainingStats
    from tianshou.algorithm.algorithm_base import Policy as BasePolicy
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net


@dataclass
class Args:
    env_id: str = "seals_v0"
    num_players: int = 2
    opponent: str = "heuristic"  # the built-in agent kind in player_1
    reward_mode: str = "score"  # for training: points as scored (wins only: "win")
    seed: int = 1
    torch_threads: int = 1  # more only contend on a busy machine: the networks are small
    epochs: int = 10
    epoch_steps: int = 4_000  # env steps (both seats) per epoch
    collect_steps: int = 40  # env steps between gradient steps
    updates_per_step: float = 0.25
    batch_size: int = 128
    buffer_size: int = 50_000
    learning_rate: float = 5e-4
    gamma: float = 0.99
    n_step: int = 3
    target_update: int = 200
    eps_train: float = 0.1
    hidden: int = 256
    num_envs: int = 8
    eval_games: int = 400  # fresh deals, learner in player_0
    eval_seed: int = 10**9
    json: str = ""  # also write the final figures to this path


def parse_args(argv: list[str] | None = None) -> Args:
    """Each field of ``Args`` as a ``--flag`` of its type."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        parser.add_argument("--" + field.name.replace("_", "-"), type=type(field.default))
    given = {k: v for k, v in vars(parser.parse_args(argv)).items() if v is not None}
    return Args(**given)


class BuiltinOpponent(OffPolicyAlgorithm):
    """A built-in agent of card_envs (the heuristic) as a Tianshou algorithm that learns
    nothing: each row's action from ``agent.act`` on its observation and mask."""

    class Policy(BasePolicy):
        def __init__(self, action_space, agent):
            super().__init__(action_space=action_space)
            self.agent = agent

        def forward(self, batch, state=None, **kwargs):
            rows = zip(batch.obs.obs, batch.obs.mask, strict=True)
            acts = [
                self.agent.act({"observation": o, "action_mask": m.astype(np.int8)})
                for o, m in rows
            ]
            return Batch(act=np.asarray(acts))

    def __init__(self, action_space, agent):
        super().__init__(policy=self.Policy(action_space, agent))

    def _update_with_batch(self, batch):
        return TrainingStats()


def make_env(args: Args) -> PettingZooEnv:
    raw = card_envs.make(args.env_id, num_players=args.num_players, reward_mode=args.reward_mode)
    return PettingZooEnv(raw)


def build(args: Args) -> tuple[MultiAgentOffPolicyAlgorithm, DQN]:
    """The learner (player_0) and the opponent (player_1) as one multi-agent algorithm."""
    env = make_env(args)
    raw = env.env
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=[args.hidden, args.hidden],
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=args.eps_train, eps_inference=0.0
    )
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.learning_rate),
        gamma=args.gamma,
        n_step_return_horizon=args.n_step,
        target_update_freq=args.target_update,
    )
    opponent = BuiltinOpponent(
        env.action_space, make_agent(args.opponent, raw.describe(), args.seed)
    )
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env), learner


def train(args: Args) -> tuple[DQN, dict]:
    algorithm, learner = build(args)
    envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.num_envs)])
    envs.seed(args.seed)
    collector = Collector[CollectStats](
        algorithm, envs, VectorReplayBuffer(args.buffer_size, args.num_envs), exploration_noise=True
    )
    collector.reset()
    collector.collect(n_step=args.batch_size * args.num_envs)
    start = time.time()
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=args.collect_steps,
            batch_size=args.batch_size,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda rewards: rewards[:, 0],
        )
    )
    return learner, {
        "env_steps": args.epochs * args.epoch_steps,
        "train_seconds": time.time() - start,
    }


def evaluate(args: Args, choose) -> tuple[float, float]:
    """``choose(observation)`` in player_0 against the opponent in player_1, over
    ``eval_games`` deals that training never saw: its share of the wins, and its mean points
    ahead of the opponent at the end (the game's scores)."""
    env = card_envs.make(args.env_id, num_players=args.num_players)
    opponent = make_agent(args.opponent, env.describe(), args.eval_seed)
    won = margin = 0.0
    for game in range(args.eval_games):
        env.reset(seed=args.eval_seed + game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            act = choose if agent == "player_0" else opponent.act
            env.step(int(act(observation)))
        rules, state = env.unwrapped.game, env.unwrapped.game_state
        winners = rules.winners(state) if rules.is_over(state) else []
        won += (0 in winners) / max(len(winners), 1)
        scores = rules.scores(state)
        margin += float(scores[0] - scores[1])
    return won / args.eval_games, margin / args.eval_games


def greedy(learner: DQN):
    """The learner's highest-valued legal action."""

    def choose(observation) -> int:
        with torch.no_grad():
            values = learner.policy.model(observation["observation"][None])[0][0]
        values[torch.as_tensor(observation["action_mask"] == 0)] = -math.inf
        return int(values.argmax())

    return choose


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    learner, trained = train(args)
    learner.policy.eval()
    rng = np.random.default_rng(args.seed)
    learned = evaluate(args, greedy(learner))
    random = evaluate(args, lambda o: int(rng.choice(np.flatnonzero(o["action_mask"]))))
    result = {
        **trained,
        "win_share": learned[0],
        "points_ahead": learned[1],
        "random_win_share": random[0],
        "random_points_ahead": random[1],
        "eval_games": args.eval_games,
        "opponent": args.opponent,
    }
    print(json.dumps(result))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out)
    return result


if __name__ == "__main__":
    main()
