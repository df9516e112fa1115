"""Renderers: pure functions from results to text. Only the CLI writes."""

from auditor.report import json, text

RENDERERS = {"text": text.render, "json": json.render}

__all__ = ["RENDERERS", "json", "text"]
