"""Progress, silent unless the CLI attaches a reporter.

Two shapes of work report here: counted work (files scanned: `start`, `advance`, `finish`,
drawn by `RichProgressBar`) and steps of unknown length (environments built, probe batches run:
`task`, `note`, drawn by `RichReporter`). Whether anything is drawn, and where, is the CLI's
choice; `SILENT` stands for both in pipes and JSON runs.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any, Protocol, TextIO


class ProgressReporter(Protocol):
    def start(self, total: int, description: str) -> None:
        """`total` units of work are about to be done."""

    def advance(self, count: int = 1) -> None:
        """`count` more units are done."""

    def finish(self) -> None:
        """The work is over (also after an error): take the bar away."""


class Reporter(Protocol):
    def task(self, description: str) -> contextlib.AbstractContextManager[None]:
        """A step that takes a while (resolving, installing, running a batch)."""

    def note(self, message: str) -> None:
        """Something the user should know that is not an outcome (an index left out, a rerun)."""


class SilentProgress:
    def start(self, total: int, description: str) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass

    @contextlib.contextmanager
    def task(self, description: str) -> Iterator[None]:
        yield

    def note(self, message: str) -> None:
        pass


SILENT = SilentProgress()


class NoteKeeper:
    """Passes steps and notes on to `reporter`, and keeps the notes: the report lists them too
    (on stderr they are gone with the terminal, and JSON runs are silent)."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.notes: list[str] = []

    def task(self, description: str) -> contextlib.AbstractContextManager[None]:
        return self.reporter.task(description)

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)
        self.reporter.note(message)


def wants_color() -> bool:
    """NO_COLOR (https://no-color.org), any non-empty value, turns every ANSI style off."""
    return not os.environ.get("NO_COLOR")


def stderr_console() -> Any:
    from rich.console import Console  # here, as below: rich takes a fiftieth of a second to import

    return Console(stderr=True, color_system="auto" if wants_color() else None)


class LineReporter:
    """A line per step and per note, for a stderr that is not a terminal (CI logs, pipes): a step
    that takes minutes is not silence there either."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    @contextlib.contextmanager
    def task(self, description: str) -> Iterator[None]:
        self._line(f"{description} ...")
        yield

    def note(self, message: str) -> None:
        self._line(f"note: {message}")

    def _line(self, text: str) -> None:
        self.stream.write(f"auditor: {text}\n")
        self.stream.flush()


class RichReporter:
    """A spinner per step with its elapsed time, on stderr."""

    def __init__(self, console: Any = None) -> None:
        self.console = console or stderr_console()

    @contextlib.contextmanager
    def task(self, description: str) -> Iterator[None]:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        with progress:
            task = progress.add_task(description, total=1)
            yield
            progress.update(task, completed=1)

    def note(self, message: str) -> None:
        self.console.print(f"[dim]note:[/dim] {message}", highlight=False)


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
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console or stderr_console(),
            transient=True,
            auto_refresh=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(self._description, total=self._total, completed=self._done)
