"""The curated knowledge of spec changes: schema, loader and queries."""

from auditor.knowledge.base import KnowledgeBase
from auditor.knowledge.loader import default_directory, load_entries, parse_entry

__all__ = ["KnowledgeBase", "default_directory", "load_entries", "parse_entry"]
