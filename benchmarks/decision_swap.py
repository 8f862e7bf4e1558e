"""Where an agent loses its games, decision kind by decision kind: the agent plays alone against
three opponents on the arena's deals, once as it is and once per group of decision kinds with
another agent (``--other``, the opponent's kind by default) making the decisions of that group
for it. A group whose swap raises the win share is one the agent plays worse than the other.

A decision's kind is the action block of its first legal move (``pass`` for Sequitur's card
decisions, ``spell`` or ``spell_nothing`` for its spellings): ``--groups colour keep,discard
place pass spell,spell_nothing,blank,q_mode claim`` swaps six groups in turn. Every row plays
the same deals and seats (``card-envs arena --game GAME --agents AGENT OPPONENT OPPONENT
OPPONENT --episodes D --seed S``, the unswapped row being that very game set), so the rows
differ by the swapped decisions alone, and each row's gain over the unswapped one is given with
a 95% interval over deals (paired, a normal approximation).

Usage: ``.venv/bin/python benchmarks/decision_swap.py --game sequitur_v1 --agent ppo
--opponent heuristic --groups ... [--deals 1000] [--seed 7] [--json PATH]``; it writes nothing
unless given ``--json``. docs/training.md reads Sequitur's network with it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial

import numpy as np

from card_envs import make
from card_envs.agents import Agent, make_agent
from card_envs.agents.match import play_game
from card_envs.agents.pool import in_processes
from card_envs.core.env import CardEnv
from card_envs.tools.arena import Lineup, Task, make_tasks, seat_table
from card_envs.tools.stats import deal_interval


class Swapped(Agent):
    """``agent``, except at the decisions whose first legal move is one of ``swapped`` (a bool
    per action id): ``other`` makes those."""

    def __init__(self, agent: Agent, other: Agent, swapped: np.ndarray):
        super().__init__(agent.info)
        self.agent, self.other, self.swapped = agent, other, swapped
        self.reads_derived = agent.reads_derived or other.reads_derived

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.agent.reset(seed)
        self.other.reset(seed)

    def chooser(self, observation: dict[str, np.ndarray]) -> Agent:
        first = int(np.argmax(observation["action_mask"] != 0))
        return self.other if self.swapped[first] else self.agent

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.chooser(observation).act(observation)

    def act_at(self, env: CardEnv, observation: dict[str, np.ndarray]) -> int:
        return self.chooser(observation).act_at(env, observation)


def swapped_ids(env: CardEnv, blocks: Sequence[str]) -> np.ndarray:
    """A bool per action id: True for the ids of ``blocks`` (names of the game's action
    blocks; a ValueError names the ones it has when one is not)."""
    spec = env.game.actions
    names = [block.name for block in spec.blocks]
    unknown = [block for block in blocks if block not in names]
    if unknown:
        raise ValueError(f"{env.metadata['name']} has no action block {unknown}: {names}")
    return np.array([spec.decode(a)[0] in blocks for a in range(spec.size)])


_OTHERS: dict[str, Agent] = {}  # per process: the other agent of a kind, reseeded every game


def play_swapped(other: str, swapped: np.ndarray | None, table: tuple[Task, int]) -> float:
    """The share of the win of the agent's seat in the arena's game ``table`` (a task and the
    agent's seat), with ``other`` making its decisions whose first legal move is ``swapped``
    (:func:`swapped_ids`; None: none), seeded as the agent."""
    task, seat = table
    env, agents = seat_table(task)
    if swapped is not None:
        if other not in _OTHERS:
            _OTHERS[other] = make_agent(other, env.describe(), trust=task.trust)
        _OTHERS[other].reset(task.agent_seeds[seat])
        agents[seat] = Swapped(agents[seat], _OTHERS[other], swapped)
    winners = play_game(env, agents, seed=task.deal_seed).winners
    return (seat in winners) / max(len(winners), 1)


@dataclass(frozen=True)
class Row:
    """One group's swap: the agent's win share with it, and its gain over no swap."""

    blocks: tuple[str, ...]
    games: int
    win_share: float
    interval: tuple[float, float]
    gain: float
    gain_interval: tuple[float, float]
    deal_wins: tuple[float, ...]


def measure(
    game: str,
    agent: str,
    opponent: str,
    other: str,
    groups: Sequence[tuple[str, ...]],
    deals: int,
    seed: int,
    workers: int,
) -> list[Row]:
    """The unswapped row, then one per group, each on the same ``deals`` arena deals in every
    seating of the agent alone against ``opponent``. Every group's blocks are checked before
    any game is played."""
    env = make(game)
    info = env.describe()
    swaps = [None, *(swapped_ids(env, blocks) for blocks in groups)]
    lineup = Lineup.cell(agent, opponent, info.num_players)
    tasks = make_tasks(game, info.num_players, lineup, range(deals), seed)
    seated = len(lineup.tables)
    tables = [(task, lineup.tables[i % seated].index(0)) for i, task in enumerate(tasks)]
    rows: list[Row] = []
    for blocks, swapped in zip([(), *groups], swaps, strict=True):
        shares = list(in_processes(partial(play_swapped, other, swapped), tables, workers))
        wins = np.array([sum(shares[d * seated : (d + 1) * seated]) for d in range(deals)])
        base = wins if not rows else np.array(rows[0].deal_wins)
        gain = (wins - base) / seated
        mean = float(gain.mean())
        spread = 1.96 * float(gain.std(ddof=1)) / math.sqrt(deals) if deals > 1 else math.nan
        rows.append(
            Row(
                blocks,
                len(tables),
                float(wins.sum()) / len(tables),
                deal_interval(wins.tolist(), seated),
                mean,
                (mean - spread, mean + spread),
                tuple(wins.tolist()),
            )
        )
    return rows


def markdown(row: Row) -> str:
    low, high = row.interval
    swapped = ", ".join(f"`{block}`" for block in row.blocks) or "none"
    gain = f"{row.gain:+.3f} [{row.gain_interval[0]:+.3f}, {row.gain_interval[1]:+.3f}]"
    return f"| {swapped} | {row.games} | {row.win_share:.3f} | [{low:.3f}, {high:.3f}] | {gain} |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--agent", required=True, help="the agent read (any arena entry)")
    parser.add_argument("--opponent", default="heuristic", help="every other seat")
    parser.add_argument(
        "--other",
        default=None,
        help="who makes the swapped decisions (default: the opponent's kind)",
    )
    parser.add_argument(
        "--groups",
        nargs="+",
        required=True,
        metavar="BLOCK[,BLOCK...]",
        help="action blocks swapped together, one group per row",
    )
    parser.add_argument("--deals", type=int, default=100, help="deals per row (x4 seatings)")
    parser.add_argument("--seed", type=int, default=0, help="the arena's --seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", default=None, metavar="PATH", help="write the rows here")
    args = parser.parse_args(argv)
    groups = [tuple(text.split(",")) for text in args.groups]
    other = args.other or args.opponent
    rows = measure(
        args.game, args.agent, args.opponent, other, groups, args.deals, args.seed, args.workers
    )
    print(f"{args.agent} alone against {args.opponent}, {other} making the swapped decisions")
    print("| swapped to the other | games | win share | 95% interval | gain (paired 95%) |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(markdown(row))
    if args.json:
        with open(args.json, "w") as out:
            settings = {key: value for key, value in vars(args).items() if key != "json"}
            json.dump({**settings, "rows": [asdict(row) for row in rows]}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
