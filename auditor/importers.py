"""Which files of a repository import a module, read from their import lines: the way code that
no lock governs (`shared/util.py` beside `services/*/requirements.txt`) is tied to the projects
that run it. Text is searched, not parsed: a file is read only when its text names the module."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

_SOURCE_ROOTS = ("src", "lib", "python")  # folders a project puts on the path, not in module names


def module_names(path: str) -> tuple[str, ...]:
    """The dotted names a file of the repository is imported by: `shared/util.py` is
    `shared.util`, `src/kit/io.py` also `kit.io`, a package's `__init__.py` the package."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    names = []
    while parts and all(p.isidentifier() for p in parts):
        names.append(".".join(parts))
        if parts[0] not in _SOURCE_ROOTS:
            break
        parts = parts[1:]
    return tuple(names)


def _pattern(name: str) -> re.Pattern[str]:
    parent, _, last = name.rpartition(".")
    forms = [rf"import\s+{re.escape(name)}\b", rf"from\s+{re.escape(name)}\s+import\b"]
    if parent:  # `from shared import util`, also `from shared import (a,\n util)`
        forms.append(rf"from\s+{re.escape(parent)}\s+import\s+\(?[^)#]*?\b{re.escape(last)}\b")
    return re.compile(rf"^[ \t]*(?:{'|'.join(forms)})", re.MULTILINE)


class Importers:
    """The files of a tree that import a file's module, each source read once (only when some
    file is asked about) and each answer kept."""

    def __init__(self, root: Path, sources: Iterable[str]) -> None:
        self.root, self.sources = root, tuple(sources)
        self._texts: dict[str, str] = {}
        self._found: dict[str, set[str]] = {}

    def of(self, path: str) -> set[str]:
        """The files among the sources whose import lines name the module `path` is, or one of
        its packages' modules below it."""
        if path not in self._found:
            self._found[path] = self._search(path)
        return self._found[path]

    def _search(self, path: str) -> set[str]:
        names = module_names(path)
        if not names:
            return set()
        patterns = [_pattern(n) for n in names]
        lasts = [n.rpartition(".")[2] for n in names]
        return {
            source
            for source in self.sources
            if source != path
            and any(last in (text := self._text(source)) for last in lasts)
            and any(p.search(text) for p in patterns)
        }

    def _text(self, source: str) -> str:
        if source not in self._texts:
            try:
                self._texts[source] = (self.root / source).read_text("utf-8", errors="replace")
            except OSError:
                self._texts[source] = ""
        return self._texts[source]
