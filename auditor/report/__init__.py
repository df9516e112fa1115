"""Renderers: pure functions from results to text. Only the CLI writes."""

from auditor.report import github, json, markdown, sarif, text

RENDERERS = {
    "text": text.render,
    "json": json.render,
    "markdown": markdown.render,
    "sarif": sarif.render,
    "github": github.render,
}

__all__ = ["RENDERERS", "github", "json", "markdown", "sarif", "text"]
