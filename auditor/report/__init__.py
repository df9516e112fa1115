"""Renderers: pure functions from results to text. Only the CLI writes."""

from collections.abc import Callable

from auditor.report import github, json, markdown, sarif, text

# Each takes an AuditResult first; text takes `color`, markdown `links`, sarif and github `prefix`.
RENDERERS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "json": json.render,
    "markdown": markdown.render,
    "sarif": sarif.render,
    "github": github.render,
}

__all__ = ["RENDERERS", "github", "json", "markdown", "sarif", "text"]
