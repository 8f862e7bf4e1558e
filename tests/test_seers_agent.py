"""The Seers Catalog heuristic's remembered best meld is the best by definition, whatever
order the prefixes of a meld are asked in (a search's tree may start a meld the heuristic
would not)."""

from __future__ import annotations

import random

from card_envs import make
from card_envs.agents.seers_catalog import HeuristicAgent, Meld, play_value
from card_envs.seers_catalog.rules.cards import KIND, NUM_CODES
from card_envs.seers_catalog.rules.melds import Key, legal_plays, meld_key


def best_by_definition(hand: list[int], top: Key | None, prefix: Meld) -> Meld | None:
    started = [c for c in legal_plays(hand, top) if c[: len(prefix)] == prefix]
    return max(started, key=lambda c: (play_value(c), c)) if started else None


def key_of(meld: Meld) -> Key:
    """The table key of ``meld`` played as a lead (its first finish)."""
    return meld_key(meld, next(iter(legal_plays(list(meld), None)[meld])))


def test_best_meld_matches_its_definition_for_any_prefix_order():
    agent = HeuristicAgent(make("seers_catalog_v0").describe(), seed=0)
    rng = random.Random(0)
    checked = 0
    for _ in range(300):
        hand = sorted(KIND[code] for code in rng.sample(range(NUM_CODES), rng.randrange(3, 16)))
        leads = list(legal_plays(hand, None))
        for top in (None, key_of(rng.choice(leads))):
            melds = list(legal_plays(hand, top)) or [()]
            for _ in range(4):
                meld = rng.choice(melds)
                prefixes = [meld[:k] for k in range(len(meld) + 1)]
                if rng.random() < 0.5:
                    rng.shuffle(prefixes)
                for prefix in prefixes:
                    got = agent._best_meld(hand, top, prefix)[1]
                    assert got == best_by_definition(hand, top, prefix), (hand, top, prefix)
                    checked += 1
    assert checked > 3000
