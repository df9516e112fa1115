"""The curated knowledge of spec changes: the entry types (`entry`), the schema and its
conditions, the loader, the horizon, the kept knowledge and the queries (`base.KnowledgeBase`).

This file imports nothing: `entry` sits in the models layer, below the harvest, and importing it
must not run the loader. Callers import each module (`auditor.knowledge.base`, ...) directly.
"""
