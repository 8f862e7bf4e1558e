"""Progress of a run on stderr, and the short texts of counts and times it is written in."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

PROGRESS_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal
REDRAW_EVERY = 0.25  # seconds between redraws of the progress line on a terminal


def plural(count: int, noun: str) -> str:
    """``1 worker``, ``2 workers``."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def clock_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def clock_text_fine(seconds: float) -> str:
    """A decision's time: ``0.31 s``, ``12 ms``, ``40 µs``."""
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.0f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


class Progress:
    """Progress of a run on ``stream`` (stderr): a line redrawn in place on a terminal, else a
    line every :data:`PROGRESS_EVERY` seconds; lines of their own (the plan, each finished game)
    either way.

    The ETA is ``elapsed * left / done`` in CPU seconds of play: the tables done as measured,
    those left as estimated from each line-up's measured cost, so it holds from the first
    tables on although a table of one game can cost a hundred times one of another.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        every: float = PROGRESS_EVERY,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every = REDRAW_EVERY if self.tty else every
        self.clock = clock
        self.label = "arena"
        self.budgeted = False
        self.started = self.shown = clock()
        self.drawn = False

    def start(self, label: str, budgeted: bool = False) -> None:
        """Time a new phase from now; ``budgeted``: a run sized to a budget, whose plan changes
        as it goes (so its game total, which would change too, is not shown)."""
        self.label, self.budgeted = label, budgeted
        self.started = self.shown = self.clock()

    def update(self, games: int, total: int, done: float, left: float) -> None:
        """``games`` of ``total`` tables played, ``done`` CPU seconds spent, ``left`` to go;
        shown when the last line is old enough, or at the end."""
        now = self.clock()
        if now - self.shown >= self.every or games == total:
            self.shown = now
            self._show(self.status(games, total, done, left, now - self.started))

    def status(self, games: int, total: int, done: float, left: float, elapsed: float) -> str:
        eta = clock_text(elapsed * left / done) if done else "?"
        if self.budgeted:
            return (
                f"{self.label}: {games:,} games played, {clock_text(elapsed)} elapsed, "
                f"ETA {eta} (the plan follows the budget)"
            )
        share = done / (done + left) if done + left else 1.0
        return (
            f"{self.label}: {share:4.0%} ({games:,}/{total:,} games), "
            f"{clock_text(elapsed)} elapsed, ETA {eta}"
        )

    def note(self, text: str) -> None:
        """A line of its own, kept above the progress line."""
        self.clear()
        print(text, file=self.stream, flush=True)

    def clear(self) -> None:
        """Take the redrawn line off the terminal (before other output)."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        """Leave the last progress line on screen."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def _show(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text)
            self.drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
