"""Warm start: clone the heuristic into a MaskablePPO policy before self-play.

PPO from scratch needs millions of steps to discover what the heuristic already knows (which
meld to lead, which word scores); the learner then spends its budget catching up instead of
improving. Behaviour cloning on heuristic-vs-heuristic games gives the actor the heuristic's
moves and the critic the value of those positions, so PPO starts at the heuristic's level and
trains to beat it. The demonstrations come from the same seats and observations the learner sees.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from card_envs import make
from card_envs.agents import Agent, make_agent
from card_envs.agents.match import play_game
from card_envs.agents.policy import with_advice
from card_envs.agents.pool import in_processes
from card_envs.core.env import EnvInfo
from card_envs.core.extras import require
from card_envs.training.config import Config
from card_envs.training.selfplay import legal_index, legal_log_probs, values

with require("train"):
    import torch
    from tqdm import tqdm


@dataclass
class Demonstrations:
    """One row per decision: what the seat saw, what it could do, what the teacher did, and the
    reward that seat received by the end of the game (the critic's target)."""

    observations: np.ndarray  # float32 (rows, obs size)
    masks: np.ndarray  # bool (rows, actions)
    actions: np.ndarray  # int64 (rows,)
    returns: np.ndarray  # float32 (rows,)
    # The teacher's action values (Agent.action_values), NaN where it rated none: (rows, actions)
    # when they were asked for, else (rows, 0).
    values: np.ndarray


_COLUMNS = [column.name for column in fields(Demonstrations)]


class _Labelled(Agent):
    """Asks the teacher at every decision and records its answer; plays the student's move
    when there is a student (DAgger: the states the student reaches, the teacher's labels). The
    teacher is asked through ``act_at``, so a search agent (``"ismcts"``) can label too."""

    def __init__(
        self,
        teacher: Agent,
        student: Agent | None,
        seat: int,
        rows: list,
        advised: bool,
        rated: bool = False,
    ):
        super().__init__(teacher.info)
        self.teacher, self.student, self.seat, self.rows = teacher, student, seat, rows
        self.advised, self.rated = advised, rated

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise TypeError("a labelling seat asks its teacher through act_at(env, observation)")

    def act_at(self, env, observation: dict[str, np.ndarray]) -> int:
        if self.rated:
            label, values = self.teacher.rated_act_at(env, observation)
        else:
            label, values = self.teacher.act_at(env, observation), None
        vector = observation["observation"]
        if self.advised:  # the teacher is the advisor: its move is the advice
            vector = with_advice(vector, label, self.info.num_actions)
        self.rows.append((vector.copy(), observation["action_mask"], label, self.seat, values))
        return label if self.student is None else self.student.act_at(env, observation)


def collect_demonstrations(
    env_name: str,
    num_players: int,
    games: int,
    student: Callable[[EnvInfo, int], Agent] | None = None,
    teacher: str = "heuristic",
    first_seed: int = 1_000_000,
    advised: bool = False,
    progress: bool = True,
    workers: int = 1,
    others: str | None = None,
    rated: bool = False,
) -> Demonstrations:
    """Play ``games`` games with ``teacher`` in every seat and record its every decision; with a
    ``student`` (an agent factory), the student plays one seat (rotated) and the teacher labels
    what it sees there. ``others`` (an agent kind), with a student, plays the other seats
    unlabelled instead of the teacher: a search teacher then labels only the student's seat,
    at a table like the arena's. ``advised`` records observations with the teacher's move appended
    (:func:`card_envs.agents.policy.with_advice`), for a policy trained with the teacher as
    advisor. ``rated`` records the teacher's action values too (``Demonstrations.values``).
    With ``workers`` the games are shared out between processes (``student`` must pickle); the
    rows are the same, in the same order."""
    chunks = [range(start, min(start + 25, games)) for start in range(0, games, 25)]
    job = functools.partial(
        _demonstrations,
        env_name,
        num_players,
        student,
        teacher,
        first_seed,
        advised,
        others,
        rated,
    )
    parts = []
    with tqdm(total=games, desc="demonstrations", disable=not progress) as bar:
        for chunk, part in zip(chunks, in_processes(job, chunks, workers), strict=True):
            parts.append(part)
            bar.update(len(chunk))
    return concatenate(parts)


def _demonstrations(
    env_name: str,
    num_players: int,
    student: Callable[[EnvInfo, int], Agent] | None,
    teacher: str,
    first_seed: int,
    advised: bool,
    others: str | None,
    rated: bool,
    games: range,
) -> Demonstrations:
    """The rows of ``games`` (indices into :func:`collect_demonstrations`' games)."""
    env = make(env_name, num_players=num_players)
    info = env.describe()
    rows: list[tuple] = []
    returns: list[float] = []
    for game in games:
        seed = first_seed + game
        student_seat = game % num_players if student is not None else -1
        seats = [
            _seat(
                info,
                seed * 31 + s,
                s,
                s == student_seat,
                teacher,
                student,
                others,
                rows,
                advised,
                rated,
            )
            for s in range(num_players)
        ]
        start = len(rows)
        result = play_game(env, seats, seed=seed)
        returns.extend(result.rewards[row[3]] for row in rows[start:])
    observations, masks, actions, _, rated_values = zip(*rows, strict=True)
    unrated = np.full(info.num_actions if rated else 0, np.nan, np.float32)
    return Demonstrations(
        np.asarray(observations, dtype=np.float32),
        np.asarray(masks, dtype=bool),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        np.asarray([unrated if v is None else v for v in rated_values], dtype=np.float32),
    )


def _seat(
    info: EnvInfo,
    seed: int,
    seat: int,
    is_student: bool,
    teacher: str,
    student: Callable[[EnvInfo, int], Agent] | None,
    others: str | None,
    rows: list,
    advised: bool,
    rated: bool,
) -> Agent:
    """One seat of a demonstration game: the student's (labelled by the teacher), a teacher's
    (labelled, playing) or, with ``others``, an unlabelled player beside the student."""
    if student is not None and others is not None and not is_student:
        return make_agent(others, info, seed)
    player = student(info, seed) if student is not None and is_student else None
    return _Labelled(make_agent(teacher, info, seed), player, seat, rows, advised, rated)


def merge(first: Demonstrations, second: Demonstrations) -> Demonstrations:
    """DAgger's aggregate: every row of both."""
    return concatenate([first, second])


def concatenate(parts: list[Demonstrations]) -> Demonstrations:
    """The parts' rows in order (their arrays are read, not copied first as ``astuple`` would)."""
    return Demonstrations(
        *(np.concatenate([getattr(part, name) for part in parts]) for name in _COLUMNS)
    )


def check_rated(demos: Demonstrations, temperature: float, teacher: str, setting: str) -> None:
    """A fit at a ``temperature`` above 0 needs the teacher's values: a ``ValueError`` (naming
    ``setting``, the flag as the user gave it) when it rated none of its moves."""
    if temperature > 0 and np.isnan(demos.values).all():
        raise ValueError(
            f"{setting}: {teacher} rates none of its moves (Agent.rated_act_at), so there are "
            "no values to fit"
        )


def clone(
    policy,
    demos: Demonstrations,
    epochs: int = 10,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    smoothing: float = 0.1,
    seed: int = 0,
    progress: bool = True,
    temperature: float = 0.0,
) -> dict[str, float]:
    """Fit the actor to the teacher's moves and the critic to the returns (squared error).

    The actor's target is the teacher's move with probability ``1 - smoothing`` and the legal
    moves uniformly otherwise (label smoothing): a clone that is certain of every move gives PPO
    no exploration and no gradient (docs/training-results.md, what moved the number), while its
    greedy play is still the teacher's. With a ``temperature`` and the teacher's values, a row the
    teacher rated has the softmax of its values at that temperature as the target instead: every
    move's worth, not only the best one's. Returns the final agreement, confidence and value
    error."""
    generator = torch.Generator().manual_seed(seed)
    arrays = [np.asarray(getattr(demos, name)) for name in _COLUMNS]
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    rows = len(demos.actions)
    soft = temperature > 0 and demos.values.shape[1] > 0  # the teacher's values, where rated
    for _ in tqdm(range(epochs), desc="cloning", disable=not progress):
        for batch in torch.randperm(rows, generator=generator).split(batch_size):
            # numpy gathers the rows faster than torch's indexing, the same values
            obs, mask, action, target, rated = (array[batch.numpy()] for array in arrays)
            obs, action, target = map(torch.from_numpy, (obs, action, target))
            loss = _loss(
                policy, obs, mask, action, target, smoothing, rated if soft else None, temperature
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.set_training_mode(False)
    return fit_report(policy, demos)


def clone_as_configured(
    policy, demos: Demonstrations, config: Config, threads: int = 1
) -> dict[str, float]:
    """:func:`clone` with a training config's ``clone_epochs``, ``clone_smoothing`` and
    ``seed``, on ``threads`` torch threads at least (the fit alone may use cores the
    collectors leave idle); the thread count is restored after."""
    before = torch.get_num_threads()
    torch.set_num_threads(max(before, threads))
    try:
        return clone(
            policy,
            demos,
            epochs=config.clone_epochs,
            smoothing=config.clone_smoothing,
            seed=config.seed,
            temperature=getattr(config, "clone_temperature", 0.0),
        )
    finally:
        torch.set_num_threads(before)


def _loss(
    policy,
    obs,
    mask: np.ndarray,
    action,
    target,
    smoothing: float,
    rated: np.ndarray | None = None,
    temperature: float = 0.0,
) -> torch.Tensor:
    """Over each row's legal moves only, as the self-play update computes them: MaskablePPO's
    distribution over every action id made a step slower for the same loss (docs/training.md,
    measured choices). With ``rated`` values, a row whose every legal move the teacher rated
    has their softmax at ``temperature`` as the actor's target."""
    legal, valid = (torch.from_numpy(array) for array in legal_index(mask))
    log_probs = legal_log_probs(policy, obs, legal, valid)
    chosen = log_probs.where((legal == action[:, None]) & valid, 0.0).sum(1)  # the teacher's
    legal_mean = log_probs.where(valid, 0.0).sum(1) / valid.sum(1)
    fitted = (1 - smoothing) * chosen + smoothing * legal_mean
    if rated is not None:
        worth = torch.from_numpy(rated).gather(1, legal)
        scored = (~worth.isnan() | ~valid).all(1)
        # a move the teacher never tried (-inf, a search's) becomes the lowest float: share 0
        logits = (worth.nan_to_num(0.0) / temperature).masked_fill(~valid, -torch.inf)
        soft = (logits.softmax(dim=1) * log_probs.where(valid, 0.0)).sum(1)
        fitted = torch.where(scored, soft, fitted)
    critic = torch.nn.functional.mse_loss(values(policy, obs), target)
    return -fitted.mean() + 0.5 * critic


@torch.no_grad()
def fit_report(policy, demos: Demonstrations) -> dict[str, float]:
    """How closely the policy follows the teacher on the first 20,000 rows: how often its
    greedy move is the teacher's, the probability it gives that move, its value's error."""
    obs, mask, action, target, _ = (
        torch.as_tensor(np.asarray(getattr(demos, name))[:20_000]) for name in _COLUMNS
    )
    distribution = policy.get_distribution(obs, action_masks=mask.numpy())
    probs = distribution.distribution.probs
    values = policy.predict_values(obs).flatten()
    return {
        "teacher_agreement": float((probs.argmax(dim=1) == action).float().mean()),
        "teacher_move_probability": float(probs.gather(1, action[:, None]).mean()),
        "value_mse": float(torch.nn.functional.mse_loss(values, target)),
    }
