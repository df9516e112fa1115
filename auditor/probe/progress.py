"""Progress while environments are built and probes run: silent unless the CLI attaches one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Protocol


class Reporter(Protocol):
    def task(self, description: str) -> contextlib.AbstractContextManager[None]:
        """A step that takes a while (resolving, installing, running a batch)."""

    def note(self, message: str) -> None:
        """Something the user should know that is not an outcome (an index left out, a rerun)."""


class SilentReporter:
    @contextlib.contextmanager
    def task(self, description: str) -> Iterator[None]:
        yield

    def note(self, message: str) -> None:
        pass


SILENT = SilentReporter()


class RichReporter:
    """A spinner per step with its elapsed time, on stderr."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)

    @contextlib.contextmanager
    def task(self, description: str) -> Iterator[None]:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
            console=self.console, transient=False,
        )
        with progress:
            task = progress.add_task(description, total=1)
            yield
            progress.update(task, completed=1)

    def note(self, message: str) -> None:
        self.console.print(f"[dim]note:[/dim] {message}", highlight=False)
