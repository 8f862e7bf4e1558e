"""Search agents over the Game contract: information-set MCTS (``"ismcts"``) and perfect
information Monte Carlo (``"pimc"``), with budgets given in the kind:
``"ismcts:iterations=800,depth=40"``."""

from __future__ import annotations

from card_envs.agents.search.base import Budget, SearchAgent, parse_budget
from card_envs.agents.search.ismcts import ISMCTSAgent
from card_envs.agents.search.pimc import PIMCAgent

__all__ = ["Budget", "ISMCTSAgent", "PIMCAgent", "SearchAgent", "parse_budget"]
