"""Renderers: from results to text. Only the CLI decides where the text goes."""

from collections.abc import Callable
from typing import Any, TextIO

from auditor.report import github, json, markdown, sarif, text

# Each takes an AuditResult first; text takes `color`, markdown `links`, sarif and github `prefix`.
RENDERERS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "json": json.render,
    "markdown": markdown.render,
    "sarif": sarif.render,
    "github": github.render,
}


def _whole(render: Callable[..., str]) -> Callable[..., None]:
    """A writer for a format made whole before it is written: the Markdown comment (it is cut
    to GitHub's limit by measuring it) and the annotations (ten per level at most)."""

    def write(result: Any, out: TextIO, **options: Any) -> None:
        out.write(render(result, **options))

    return write


# The same, written to a stream as they are made: the result, the stream, the same options.
WRITERS: dict[str, Callable[..., None]] = {
    "text": text.write,
    "json": json.write,
    "markdown": _whole(markdown.render),
    "sarif": sarif.write,
    "github": _whole(github.render),
}

__all__ = ["RENDERERS", "WRITERS", "github", "json", "markdown", "sarif", "text"]
