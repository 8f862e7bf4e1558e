"""What one run of ``card-envs bench`` measured, section by section, with the targets each
figure is read against."""

from __future__ import annotations

from dataclasses import dataclass, field

# The targets of issue 18: every game at least this many times the faster reference's env() and
# raw_env() in AEC agent-steps/s, every built-in heuristic at most this median decision time.
TARGET_RATIO = 4.0
TARGET_RAW_RATIO = 1.5
TARGET_DECISION_US = 150.0


@dataclass
class Measurement:
    """One environment at one player count."""

    env: str
    players: int
    reference: bool
    agent_steps_per_s: float
    games_per_s: float
    rules_steps_per_s: float | None
    reset_us: float
    peak_kib: float
    ratio: float | None = None  # agent-steps/s over the faster reference's (both env())
    ratio_raw: float | None = None  # the same over the faster unwrapped reference
    rules_observed_steps_per_s: float | None = None  # rules + mask + observation

    @property
    def meets_target(self) -> bool | None:
        """Both ratios at their targets (None without references)."""
        if self.ratio is None:
            return None
        raw_ok = self.ratio_raw is None or self.ratio_raw >= TARGET_RAW_RATIO
        return self.ratio >= TARGET_RATIO and raw_ok


@dataclass
class DecisionTimes:
    """CPU time of one built-in heuristic's decisions, in games of that kind against itself."""

    env: str
    players: int
    kind: str
    median_us: float
    p99_us: float
    decisions: int
    games: int

    @property
    def meets_target(self) -> bool:
        return self.median_us <= TARGET_DECISION_US


@dataclass
class RulesReference:
    """OpenSpiel's hearts: decisions/s of its rules alone and with its observation."""

    env: str
    players: int
    rules_steps_per_s: float
    rules_observed_steps_per_s: float


@dataclass
class Report:
    """Everything one run measured, section by section (a new section is a new field, with its
    text and Markdown tables and its JSON key)."""

    rows: list[Measurement]  # the games, then the references
    decisions: list[DecisionTimes] = field(default_factory=list)
    hearts: RulesReference | None = None
