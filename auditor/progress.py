"""Progress of long counted work (files scanned): silent unless the CLI attaches a bar.

The scanner only calls `start`, `advance` and `finish`; whether anything is drawn, and where,
is the CLI's choice (`RichProgressBar` on a terminal's stderr, `SILENT` in pipes and JSON runs).
"""

from __future__ import annotations

import time
from typing import Any, Protocol


class ProgressReporter(Protocol):
    def start(self, total: int, description: str) -> None:
        """`total` units of work are about to be done."""

    def advance(self, count: int = 1) -> None:
        """`count` more units are done."""

    def finish(self) -> None:
        """The work is over (also after an error): take the bar away."""


class SilentProgress:
    def start(self, total: int, description: str) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass


SILENT = SilentProgress()


class RichProgressBar:
    """A transient bar on stderr that appears only once the work has taken `delay` seconds.

    Refreshed from `advance` rather than by rich's refresh thread, so that no thread is running
    when the scanner forks its worker processes.
    """

    def __init__(self, console: Any = None, delay: float = 0.5, interval: float = 0.1) -> None:
        self.console = console
        self.delay = delay
        self.interval = interval
        self._bar: Any = None
        self._task: Any = None
        self._description = ""
        self._total = 0
        self._done = 0
        self._started = 0.0
        self._drawn = 0.0

    def start(self, total: int, description: str) -> None:
        self._total, self._done, self._description = total, 0, description
        self._started = time.monotonic()

    def advance(self, count: int = 1) -> None:
        self._done += count
        now = time.monotonic()
        if self._bar is None:
            if now - self._started < self.delay or self._done >= self._total:
                return
            self._open()
        if now - self._drawn >= self.interval or self._done >= self._total:
            self._bar.update(self._task, completed=self._done)
            self._bar.refresh()
            self._drawn = now

    def finish(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _open(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=self.console or Console(stderr=True), transient=True, auto_refresh=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(self._description, total=self._total, completed=self._done)
