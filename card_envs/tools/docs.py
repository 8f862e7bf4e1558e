"""``card-envs docs``: the generated sections of ``docs/<game>.md``, whose tables come from the
specs, never by hand.

A page marks each generated block with ``<!-- generated:NAME -->`` ... ``<!-- /generated -->``;
``card-envs docs`` rewrites them and ``card-envs docs --check`` (run by the tests) fails when a
page and the code disagree. The pages live in a source checkout, not in the installed package,
so the folder is given (default: ``docs/`` under the current directory). The same blocks hold
``card-envs bench``'s tables in ``docs/benchmarks.md`` and the README, written by
:func:`write_block`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from card_envs.core.env import CardEnv
from card_envs.registry import env_module, env_names

BLOCK_END = "<!-- /generated -->"
_BLOCK = re.compile(r"(<!-- generated:(\w+) -->\n).*?(<!-- /generated -->)", re.S)


def block_start(name: str) -> str:
    """The line that opens the generated block ``name``."""
    return f"<!-- generated:{name} -->"


def block_names(text: str) -> list[str]:
    """The names of the generated blocks in ``text``, in order."""
    return [match.group(2) for match in _BLOCK.finditer(text)]


def fill_blocks(text: str, blocks: Mapping[str, str]) -> str:
    """``text`` with each generated block named in ``blocks`` holding that Markdown; blocks of
    other names are kept as they are."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in blocks:
            return match.group(0)
        return f"{match.group(1)}{blocks[name]}\n{match.group(3)}"

    return _BLOCK.sub(fill, text)


def write_block(path: Path, name: str, markdown: str, title: str) -> None:
    """Fill the generated block ``name`` of the page at ``path`` with ``markdown``, the rest of
    the page kept (a missing page is made: ``# title`` and the block). A ``ValueError`` when the
    page has no such block."""
    start = block_start(name)
    text = path.read_text() if path.exists() else f"# {title}\n\n{start}\n{BLOCK_END}\n"
    if name not in block_names(text):
        raise ValueError(f"{path} has no {start} ... {BLOCK_END} block to fill")
    path.write_text(fill_blocks(text, {name: markdown}))


def docs_dir(path: str | Path | None = None) -> Path:
    """The docs folder to read: ``path``, or ``docs/`` under the current directory. A
    FileNotFoundError says which folder was looked for when it is not there."""
    folder = Path("docs") if path is None else Path(path)
    if not folder.is_dir():
        where = f"{folder.resolve()}" + (" (the default: docs/ here)" if path is None else "")
        raise FileNotFoundError(
            f"no docs folder at {where}: run from the root of a card-envs checkout or give "
            "--docs-dir DIR, the folder that holds the game pages (<game>.md, one per env)"
        )
    return folder


def doc_path(folder: Path, env_name: str) -> Path:
    """``folder/seamless.md`` for ``seamless_v0``; a later version has its own page
    (``folder/sequitur_v1.md``)."""
    return folder / f"{env_name.removesuffix('_v0')}.md"


def generated_blocks(env_name: str) -> dict[str, str]:
    """The Markdown of each generated block for one environment."""
    raw_env = env_module(env_name).raw_env
    game_class = raw_env.game_class
    envs = {n: raw_env(num_players=n) for n in game_class.player_counts}
    default = envs[game_class.default_players]
    sizes = ", ".join(f"{n}: {e.encoding.spec.size}" for n, e in envs.items())
    actions = ", ".join(f"{n}: {e.game.actions.size}" for n, e in envs.items())
    header = "\n".join(
        [
            "| | |",
            "|---|---|",
            f"| import | `from card_envs import {env_name}` |",
            f'| make | `card_envs.make("{env_name}", num_players=...)` |',
            f"| players | {', '.join(map(str, game_class.player_counts))} "
            f"(default {game_class.default_players}) |",
            "| agents | `player_0` .. `player_{n-1}` |",
            f"| action space | `Discrete` (by players: {actions}) |",
            f"| observation | `Dict(observation=Box(float32), action_mask=Box(int8))`, "
            f"observation length by players: {sizes} |",
            f"| max steps | {', '.join(f'{n}: {e.game.max_steps}' for n, e in envs.items())} |",
            f"| state | `env.state()`, `env.state_space`: `Box(float32)` for centralised training "
            f"only (it shows every hand), length by players: "
            f"{', '.join(f'{n}: {e.state_spec.size}' for n, e in envs.items())} |",
        ]
    )
    return {
        "header": header,
        "observation": (
            f"Observation pieces for {game_class.default_players} players, in order "
            f"(a flat `float32` vector; `EnvInfo.obs_spec.views(vector)` gives named views):\n\n"
            + default.encoding.spec.markdown()
            + "\n\n"
            + state_markdown(default)
        ),
        "actions": default.game.actions.markdown(),
    }


def state_markdown(env: CardEnv) -> str:
    """The ``state()`` section: one row per seat (its observation pieces are the table above),
    not every piece again for every seat."""
    spec, obs_size = env.state_spec, env.encoding.spec.size
    rows = [
        "### State (centralised training only)",
        "",
        "`env.state()` is the whole table for a centralised critic (MAPPO and the like): every "
        "seat's observation in seat order, then who is to act. It shows every hand, so it is for "
        "centralised training only, never for a policy that acts. What no seat may know (the "
        "order of the deck, face-down cards nobody has seen) is not in it. "
        "`env.state_spec.views(state)` gives named views "
        f"(`player_1.{env.encoding.spec.pieces[0].name}`, ..., `to_act`). "
        f"For {env.game.num_players} players:",
        "",
        "| piece | size | offset | meaning |",
        "|---|---|---|---|",
    ]
    for seat, agent in enumerate(env.possible_agents):
        rows.append(
            f"| `{agent}.*` | {obs_size} | {seat * obs_size} | {agent}'s observation, "
            f"seat-relative to {agent} (the pieces above) |"
        )
    to_act = spec.pieces[-1]
    offset = spec.offsets[to_act.name]
    rows.append(f"| `{to_act.name}` | {to_act.size} | {offset} | {to_act.meaning} |")
    rows.append(f"| **total** | {spec.size} | | |")
    return "\n".join(rows)


def render_page(text: str, blocks: dict[str, str]) -> str:
    """``text`` with each generated block replaced by its current Markdown; a ``ValueError`` for
    a block the page should not have."""
    unknown = [name for name in block_names(text) if name not in blocks]
    if unknown:
        raise ValueError(f"unknown generated block {unknown[0]!r}; known: {sorted(blocks)}")
    return fill_blocks(text, blocks)


def stale_pages(folder: str | Path | None = None, write: bool = False) -> list[str]:
    """Pages of the docs ``folder`` (default: ``docs/`` here) whose generated blocks differ from
    the code (rewritten when ``write``)."""
    folder = docs_dir(folder)
    stale = []
    for name in env_names():
        path = doc_path(folder, name)
        text = path.read_text() if path.exists() else ""
        blocks = generated_blocks(name)
        missing = [b for b in blocks if block_start(b) not in text]
        fresh = render_page(text, blocks)
        if missing or fresh != text:
            stale.append(f"{path.name}" + (f" (missing blocks {missing})" if missing else ""))
            if write and not missing:
                path.write_text(fresh)
    return stale


def cmd_docs(args: argparse.Namespace) -> int:
    stale = stale_pages(args.docs_dir, write=not args.check)
    if args.check and stale:
        print("out of date: " + ", ".join(stale))
        return 1
    print("updated: " + ", ".join(stale) if stale else "docs are up to date")
    return 0


DESCRIPTION = (
    "Regenerate the tables of docs/<game>.md that come from the code (observation pieces, "
    "action ids), or with --check list the pages that are out of date."
)


def add_parser(subparsers: Any) -> None:
    """Register ``card-envs docs``."""
    parser = subparsers.add_parser(
        "docs", help="regenerate the tables in docs/<game>.md", description=DESCRIPTION
    )
    parser.add_argument("--check", action="store_true", help="fail if a page is out of date")
    parser.add_argument(
        "--docs-dir",
        default=None,
        metavar="DIR",
        help="the folder holding the game pages (default: docs/ in the current directory)",
    )
    parser.set_defaults(func=cmd_docs)
