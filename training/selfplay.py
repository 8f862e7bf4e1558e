"""Batched self-play collection: many tables in lockstep, one forward pass per policy per tick.

Every seat of every table is played by the learning policy, by a frozen snapshot of it from a
:class:`SnapshotPool`, or by a fixed opponent such as the heuristic (the pool's
``opponent_share``). The tables are one :mod:`card_envs.vector` env, the library's one
implementation of stepping many tables. Each tick every table has one seat to act; the
decisions that belong to the same policy are evaluated together in one batched forward pass
over the env's observation rows, a fixed opponent acts on its own, then every table steps.

Each learning seat's own decisions form its trajectory. A reward that a seat receives is
credited to that seat's own last decision, whoever acted: rewards that arrive while the others
play, and the terminal reward after its last move, land on its last decision (a reward before
its first decision of a game goes to that first decision). A decision's successor is the same
seat's next decision at the same table, or nothing when the game has ended (a truncated game
ends too: no reward can follow). Advantages are GAE over each seat's trajectory; a trajectory
cut by the end of a rollout is bootstrapped with the value of the seat's next decision. The
last decision of each seat is still open when a rollout ends (its reward is not known yet), so
it goes into the next rollout, with the log-probability and value of the policy that made it.

The policy is Stable-Baselines3's ``MaskableActorCriticPolicy`` (what MaskablePPO trains and
:func:`card_envs.agents.checkpoint.save_policy` saves); its distribution is evaluated over the legal
actions alone, which equals MaskablePPO's masked distribution (masked logits at -1e8 carry no
probability) at a cost that grows with the legal moves instead of the action table.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs import vector
from card_envs.agents import make_agent
from card_envs.agents.action_feature_policy import ActionFeaturePolicy
from card_envs.agents.advised_policy import AdvisedPolicy
from card_envs.agents.base import Agent
from card_envs.core.errors import IllegalActionError
from card_envs.core.extras import require
from card_envs.training.central_critic import seat_table
from card_envs.vector.engine import PLAYING
from card_envs.vector.single import TableView

with require("train"):
    import torch

MASKED_LOGIT = -1e8  # MaskablePPO's logit for a masked action: no probability, finite gradient
Policy = Any  # a MaskableActorCriticPolicy (sb3_contrib), typed loosely like the rest of training


def legal_index(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's legal action ids, left-aligned and padded to the widest row: ``(ids, valid)``,
    both ``(rows, widest)``; padding holds id 0 and ``valid`` False."""
    flat = np.flatnonzero(masks.astype(bool, copy=False))  # faster on bool than on int8
    rows, ids = np.divmod(flat, masks.shape[1])
    counts = np.bincount(rows, minlength=len(masks))
    if counts.min(initial=1) == 0:
        raise ValueError(f"row {int(np.argmin(counts))} has no legal action: a mask is empty")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slots = np.arange(len(rows)) - starts[rows]
    padded = np.zeros((len(masks), int(counts.max(initial=1))), np.int64)
    valid = np.zeros(padded.shape, bool)
    padded[rows, slots], valid[rows, slots] = ids, True
    return padded, valid


def legal_logits(policy: Policy, observations: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """The logits of each row's action ``ids`` (``legal_index`` layout; padding's are those of
    id 0) under ``policy``."""
    latent = policy.mlp_extractor.forward_actor(policy.extract_features(observations))
    if isinstance(policy, ActionFeaturePolicy):  # its scorer's too, before the legal ids
        logits = policy.logits(observations, latent).gather(1, ids)
    else:
        logits = policy.action_net(latent).gather(1, ids)
    if isinstance(policy, AdvisedPolicy):  # its per-action input, of the same ids
        per_action = observations[:, -policy.pi_features_extractor.num_actions :]
        logits = policy.with_advice(logits, per_action.gather(1, ids))
    return logits


def legal_log_probs(
    policy: Policy, observations: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor
) -> torch.Tensor:
    """Log-probabilities of each row's legal actions (``legal_index`` layout) under ``policy``:
    MaskablePPO's masked softmax, over the legal actions only. Padding gets MaskablePPO's -1e8,
    not -inf, which would turn the entropy's gradient into nan."""
    return masked_log_softmax(legal_logits(policy, observations, ids), valid)


def masked_log_softmax(logits: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """The log-softmax of ``logits`` over each row's ``valid`` slots (padding: no probability)."""
    return logits.masked_fill(~valid, MASKED_LOGIT).log_softmax(dim=1)


def legal_entropy(log_probs: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Each row's entropy over its ``valid`` slots, ``(rows,)``."""
    return -(log_probs.exp() * log_probs).where(valid, 0.0).sum(dim=1)


def values(policy: Policy, observations: torch.Tensor) -> torch.Tensor:
    """The critic's value of each observation, ``(rows,)``."""
    latent = policy.mlp_extractor.forward_critic(policy.extract_features(observations))
    return policy.value_net(latent).flatten()


def minibatches(
    data: dict[str, np.ndarray], epochs: int, batch_size: int, rng: np.random.Generator
) -> Iterator[dict[str, torch.Tensor]]:
    """``epochs`` passes over the rows of ``data`` in minibatches of ``batch_size``, shuffled by
    ``rng``. numpy gathers the rows, faster than torch's indexing, the same values
    (docs/training.md, measured choices)."""
    count = len(next(iter(data.values())))
    for _epoch in range(epochs):
        order = rng.permutation(count)
        for start in range(0, count, batch_size):
            rows = order[start : start + batch_size]
            yield {key: torch.from_numpy(value[rows]) for key, value in data.items()}


def epsilon_greedy(
    log_probs: np.ndarray, valid: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """One slot per row: the likeliest, or with chance ``epsilon`` a uniformly random legal
    one (DouZero's behaviour)."""
    greedy = np.argmax(log_probs, axis=1)
    explore = rng.random(len(greedy)) < epsilon
    anyone = (rng.random(len(greedy)) * valid.sum(axis=1)).astype(np.int64)
    return np.where(explore, anyone, greedy)


def sample_legal(log_probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One slot per row drawn from ``log_probs`` (Gumbel-max over the legal slots)."""
    noise = -np.log(-np.log(rng.random(log_probs.shape)))
    return np.argmax(log_probs + noise, axis=1)


class SnapshotPool:
    """Frozen copies of the learner that play some seats (self-play against past selves), and
    the table's fixed opponents (the heuristic) beside them.

    ``add`` stores a deep copy of the policy (its later training does not reach the copy); the
    newest ``size`` are kept. ``draw`` seats a table for one game: one seat, drawn uniformly, is
    always the learner's; each other seat is the table's fixed opponent with probability
    ``opponent_share`` (when the table has them), else a snapshot with probability ``share``
    (drawn uniformly from the pool), else the learner's too. With an empty pool and no fixed
    opponents every seat learns.
    """

    def __init__(self, size: int = 8, share: float = 0.5, opponent_share: float = 0.0):
        if size < 1:
            raise ValueError(f"pool size must be at least 1, not {size}")
        for name, value in (("snapshot", share), ("opponent", opponent_share)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} share must be in [0, 1], not {value}")
        self.size, self.share, self.opponent_share = size, share, opponent_share
        self.snapshots: list[Policy] = []

    def add(self, policy: Policy) -> None:
        frozen = copy.deepcopy(policy)
        frozen.set_training_mode(False)
        frozen.requires_grad_(False)
        self.snapshots = [*self.snapshots, frozen][-self.size :]

    def draw(
        self, rng: np.random.Generator, num_players: int, opponents: Sequence[Agent] = ()
    ) -> list[Policy | Agent | None]:
        """Who plays each seat of a new game: ``None`` for the learner, else a snapshot or the
        seat's fixed opponent (``opponents[seat]``)."""
        anchor = int(rng.integers(num_players))
        seats: list[Policy | Agent | None] = []
        fixed = bool(opponents) and self.opponent_share > 0
        for seat in range(num_players):
            if seat != anchor and fixed and rng.random() < self.opponent_share:
                seats.append(opponents[seat])
            elif seat == anchor or not self.snapshots or rng.random() >= self.share:
                seats.append(None)
            else:
                seats.append(self.snapshots[int(rng.integers(len(self.snapshots)))])
        return seats


@dataclass
class Rollout:
    """The learner's closed decisions of one collection, in the order they closed."""

    observations: np.ndarray  # float32 (n, obs size)
    legal: np.ndarray  # int64 (n, widest): legal ids, legal_index layout
    valid: np.ndarray  # bool (n, widest)
    slots: np.ndarray  # int64 (n,): the slot of the action taken in its row of ``legal``
    log_probs: np.ndarray  # float32 (n,): of the action, under the policy that took it
    values: np.ndarray  # float32 (n,): the critic's, when the decision was made
    rewards: np.ndarray  # float32 (n,): everything credited to the decision
    advantages: np.ndarray  # float32 (n,): GAE over the seat's trajectory
    returns: np.ndarray  # float32 (n,): advantages + values, the critic's target
    env_steps: int  # AEC decisions taken at all tables (every seat) during the collection
    games: int  # games finished during the collection
    states: np.ndarray | None = None  # float32 (n, table size): a central critic's input

    @property
    def actions(self) -> np.ndarray:
        return self.legal[np.arange(len(self.slots)), self.slots]


class _Decision:
    """One learner decision, open until its seat's next decision (or the game's end)."""

    __slots__ = (
        "legal",
        "log_prob",
        "next",
        "observation",
        "result",
        "reward",
        "slot",
        "state",
        "value",
    )

    def __init__(
        self,
        observation: np.ndarray,
        legal: np.ndarray,
        slot: int,
        log_prob: float,
        value: float,
        reward: float = 0.0,
    ):
        self.observation, self.legal, self.slot = observation, legal, slot
        self.log_prob, self.value, self.reward = log_prob, value, reward
        self.next: _Decision | None = None  # the seat's next decision; None at the game's end
        self.state: np.ndarray | None = None  # the table, for a central critic
        self.result = 0.0  # with whole games, every reward from here to the game's end


class SelfPlayCollector:
    """``tables`` games of ``env_name`` stepped in lockstep on a :mod:`card_envs.vector` env;
    :meth:`collect` gathers the learner's decisions. With an ``opponent`` kind
    (``"heuristic"``), every table has one such agent per seat, seated by the pool's
    ``opponent_share``; they act one at a time through ``act_at`` and are never learned from.
    Deterministic for a ``seed``: the tables' deals, seatings and opponents' seeds and the
    actions sampled come from generators spawned from it.

    With a ``critic`` (:class:`~card_envs.training.central_critic.CentralCritic`), the
    learner's values are the critic's, of the whole table from the acting seat
    (:func:`~card_envs.training.central_critic.seat_table`), and the rollout keeps those rows.

    With ``whole_games`` (Deep Monte-Carlo), a game's decisions close together when it ends,
    each with its Monte-Carlo return as the rollout's return: none is cut at the rollout's
    edge and valued there, as GAE's are. With an ``epsilon`` the learner plays its likeliest
    move, or with that chance a random legal one, rather than sampling its softmax.

    Per table ``i``: ``players[i]`` says who plays each seat of its game (``None``: the
    learner), ``open[i]`` holds each learning seat's open decision, ``opponents[i]`` its fixed
    opponents (one per seat, or none) and ``views[i]`` what they read of the table."""

    def __init__(
        self,
        env_name: str,
        pool: SnapshotPool,
        tables: int = 64,
        num_players: int | None = None,
        seed: int = 0,
        gamma: float = 1.0,
        gae_lambda: float = 0.95,
        opponent: str | None = None,
        critic: Any = None,
        whole_games: bool = False,
        epsilon: float | None = None,
        **env_options: Any,
    ):
        if tables < 1:
            raise ValueError(f"tables must be at least 1, not {tables}")
        self.pool, self.gamma, self.gae_lambda = pool, gamma, gae_lambda
        self.critic, self.whole_games, self.epsilon = critic, whole_games, epsilon
        streams = np.random.SeedSequence(seed).spawn(tables + 1)
        self.rng = np.random.default_rng(streams[0])  # the actions sampled
        # each table's games are dealt from its own stream (reset_table), not the env's rule
        self.tables = vector.make(
            env_name, tables, seed=seed, num_players=num_players, **env_options
        )
        self.tables.reset()
        self.info = self.tables.describe()
        players = self.info.num_players
        self._rngs = [np.random.default_rng(stream) for stream in streams[1:]]
        self.opponents = [self._opponents(opponent) for _ in range(tables)]
        self.views: list[Any] = [TableView(self.tables, i) for i in range(tables)]  # duck-typed
        self.players: list[list[Policy | Agent | None]] = [[] for _ in range(tables)]
        self.open: list[list[_Decision | None]] = [[None] * players for _ in range(tables)]
        self._early = [[0.0] * players for _ in range(tables)]  # rewards before a first decision
        self._played: list[list[_Decision]] = [[] for _ in range(tables)]  # with whole games
        self.closed: list[_Decision] = []
        self.env_steps = self.games = 0
        for i in range(tables):
            self._new_game(i)

    def _opponents(self, kind: str | None) -> list[Agent]:
        """One ``kind`` agent per seat (reseeded every game), or none without a kind."""
        if kind is None:
            return []
        return [make_agent(kind, self.info) for _ in range(self.info.num_players)]

    def _new_game(self, i: int) -> None:
        """Deal table ``i`` its next game from its own generator, reseed its opponents and
        seat the game's players."""
        rng = self._rngs[i]
        self.tables.reset_table(i, int(rng.integers(2**31)))
        for agent in self.opponents[i]:
            agent.reset(int(rng.integers(2**31)))
        self.players[i] = self.pool.draw(rng, self.info.num_players, self.opponents[i])
        self.open[i] = [None] * self.info.num_players
        self._early[i] = [0.0] * self.info.num_players
        self._played[i] = []

    def add_snapshot(self, policy: Policy) -> None:
        """A frozen copy of ``policy`` into the pool (as every worker of
        :class:`~card_envs.training.selfplay_workers.CollectorWorkers` does)."""
        self.pool.add(policy)

    def close(self) -> None:
        """Nothing to release in one process (``CollectorWorkers`` ends its processes)."""

    def collect(self, policy: Policy, samples: int) -> Rollout:
        """Step every table until ``samples`` learner decisions have closed; those are the
        rollout (the env steps and games counted are the ones this call played)."""
        if samples < 1:
            raise ValueError(f"a rollout needs at least one decision, not {samples}")
        self.env_steps = self.games = 0
        with torch.no_grad():
            while len(self.closed) < samples:
                self._tick(policy)
        # exactly ``samples``: a later-closed decision's successor closes later still, so
        # the ones kept back keep their trajectories whole for the next rollout
        closed, self.closed = self.closed[:samples], self.closed[samples:]
        return self._rollout(closed)

    def _tick(self, policy: Policy) -> None:
        """Every table's acting seat decides: a fixed opponent on its own, the learner and
        each snapshot in one forward pass over its tables' rows; then every table steps and
        credits the rewards."""
        tables, actions = self.tables, [0] * self.tables.num_envs
        current_player = tables.game.current_player
        groups: dict[int, list[int]] = {}  # the tables of each policy, by its id
        for i, state in enumerate(tables.states):
            seat = current_player(state)
            player = self.players[i][seat]
            if isinstance(player, Agent):
                actions[i] = self._fixed_action(i, seat, player)
            else:
                tables.observe_row(i)
                groups.setdefault(id(player), []).append(i)
        for indices in groups.values():
            player = self.players[indices[0]][int(tables.current_player[indices[0]])]
            learning = player is None
            chosen = self._decide(policy if learning else player, indices, learning)
            for i, (action, decision) in zip(indices, chosen, strict=True):
                actions[i] = action
                if decision is not None:
                    self._record(i, int(tables.current_player[i]), decision)
        for i, action in enumerate(actions):
            self._step(i, action)

    def _fixed_action(self, i: int, seat: int, agent: Agent) -> int:
        """A fixed opponent's move at table ``i``, from the observation the AEC env would hand
        it: without the derived pieces when it does not read them. A move its mask forbids is
        an ``IllegalActionError`` naming the agent."""
        tables = self.tables
        state, encoding = tables.states[i], tables.encoding
        observe = encoding.observe if agent.reads_derived else encoding.observe_underived
        mask = tables.game.legal_mask(state)
        action = int(
            agent.act_at(self.views[i], {"observation": observe(state, seat), "action_mask": mask})
        )
        if not (0 <= action < len(mask) and mask[action]):
            reason = tables.game.illegal_reason(state, action)
            raise IllegalActionError(
                f"table {i}: the {agent.name} agent in seat {seat} chose {action}: {reason}"
            )
        return action

    def _decide(
        self, policy: Policy, indices: list[int], learning: bool
    ) -> list[tuple[int, _Decision | None]]:
        """One batched forward pass over the rows of tables ``indices``: each one's action,
        and for the learner the decision to record."""
        observations = self.tables.observations[indices]  # a copy the decisions keep
        batch = torch.from_numpy(observations)
        ids, valid = legal_index(self.tables.masks[indices])
        log_probs = legal_log_probs(
            policy, batch, torch.from_numpy(ids), torch.from_numpy(valid)
        ).numpy()
        if learning and self.epsilon is not None:
            slots = epsilon_greedy(log_probs, valid, self.epsilon, self.rng)
        else:
            slots = sample_legal(log_probs, self.rng)
        rows = np.arange(len(slots))
        actions = ids[rows, slots].tolist()
        if not learning:
            return [(action, None) for action in actions]
        legal = np.split(ids[valid], np.cumsum(valid.sum(axis=1))[:-1])
        states = None if self.critic is None else self._seat_tables(indices, observations)
        value = values(policy, batch) if states is None else self.critic(torch.from_numpy(states))
        columns = zip(
            observations,
            legal,
            slots.tolist(),
            log_probs[rows, slots].tolist(),
            value.numpy().tolist(),
            strict=True,
        )
        decisions = [_Decision(*column) for column in columns]
        if states is not None:
            for decision, state in zip(decisions, states, strict=True):
                decision.state = state
        return list(zip(actions, decisions, strict=True))

    def _seat_tables(self, indices: list[int], observations: np.ndarray) -> np.ndarray:
        """The central critic's input at each of tables ``indices``, from the acting seat."""
        tables, players = self.tables, self.info.num_players
        return np.stack(
            [
                seat_table(tables.encoding, tables.states[i], seat, own, players)
                for i, own in zip(indices, observations, strict=True)
                for seat in [int(tables.current_player[i])]
            ]
        )

    def _record(self, i: int, seat: int, decision: _Decision) -> None:
        """The seat's new decision closes its previous one (which bootstraps from it)."""
        previous = self.open[i][seat]
        if previous is not None:
            previous.next = decision
            if not self.whole_games:
                self.closed.append(previous)
        if self.whole_games:
            self._played[i].append(decision)
        decision.reward, self._early[i][seat] = self._early[i][seat], 0.0
        self.open[i][seat] = decision

    def _step(self, i: int, action: int) -> None:
        """Table ``i`` plays ``action``; each learning seat's reward goes to its open decision
        (or waits for its first); a game that ended closes them all and the next is dealt."""
        deltas, end = self.tables.apply(i, action)
        self.env_steps += 1
        if deltas:
            players, open_, early = self.players[i], self.open[i], self._early[i]
            for seat, reward in enumerate(deltas):
                if reward and players[seat] is None:
                    decision = open_[seat]
                    if decision is None:
                        early[seat] += float(reward)
                    else:
                        decision.reward += float(reward)
        if end != PLAYING:
            if self.whole_games:
                self.closed.extend(self._with_results(self._played[i]))
            else:
                self.closed.extend(decision for decision in self.open[i] if decision is not None)
            self.games += 1
            self._new_game(i)

    def _with_results(self, played: list[_Decision]) -> list[_Decision]:
        """A finished game's decisions, in the order they were made, each with its return:
        its rewards and, discounted, its successor's return (met first, walking back)."""
        for decision in reversed(played):
            following = decision.next
            later = 0.0 if following is None else self.gamma * following.result
            decision.result = decision.reward + later
        return played

    def _rollout(self, closed: list[_Decision]) -> Rollout:
        advantages = self._advantages(closed)
        legal, valid = pad_rows([decision.legal for decision in closed])
        value = np.array([decision.value for decision in closed], np.float32)
        return Rollout(
            observations=np.stack([decision.observation for decision in closed]),
            legal=legal,
            valid=valid,
            slots=np.array([decision.slot for decision in closed], np.int64),
            log_probs=np.array([decision.log_prob for decision in closed], np.float32),
            values=value,
            rewards=np.array([decision.reward for decision in closed], np.float32),
            advantages=advantages,
            returns=self._returns(closed) if self.whole_games else advantages + value,
            env_steps=self.env_steps,
            games=self.games,
            states=None if self.critic is None else table_rows(closed),
        )

    @staticmethod
    def _returns(closed: list[_Decision]) -> np.ndarray:
        """With whole games, each decision's Monte-Carlo return."""
        return np.array([decision.result for decision in closed], np.float32)

    def _advantages(self, closed: list[_Decision]) -> np.ndarray:
        """With whole games, each return less its value. Else GAE over each seat's trajectory:
        a decision's successor closes after it, so walking back in closing order meets the
        successor's advantage first; a successor outside ``closed`` (still open) cuts the sum
        there, bootstrapped with its value."""
        if self.whole_games:
            return self._returns(closed) - np.array([d.value for d in closed], np.float32)
        gamma, decay = self.gamma, self.gamma * self.gae_lambda
        advantage: dict[int, float] = {}
        out = np.zeros(len(closed), np.float32)
        for index in range(len(closed) - 1, -1, -1):
            decision = closed[index]
            following = decision.next
            if following is None:
                delta, carried = decision.reward - decision.value, 0.0
            else:
                delta = decision.reward + gamma * following.value - decision.value
                carried = advantage.get(id(following), 0.0)
            out[index] = advantage[id(decision)] = delta + decay * carried
        return out


def table_rows(closed: list[_Decision]) -> np.ndarray:
    """The central critic's input of each decision, one row each."""
    rows = [decision.state for decision in closed]
    if any(row is None for row in rows):
        raise ValueError("a decision was made without the table its critic reads")
    return np.stack([row for row in rows if row is not None])


def pad_rows(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Integer rows of different lengths, left-aligned in one array: ``(padded, valid)``."""
    lengths = np.array([len(row) for row in rows])
    padded = np.zeros((len(rows), int(lengths.max(initial=1))), np.int64)
    valid = np.arange(padded.shape[1]) < lengths[:, None]
    padded[valid] = np.concatenate(rows) if rows else []
    return padded, valid
