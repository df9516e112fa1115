"""The curated knowledge of spec changes: schema, loader and queries."""
