"""Where each locked dependency is read from: an environment's site-packages for git and local
requirements (or a release installed at the locked version), else the package index."""

from __future__ import annotations

from pathlib import Path

from auditor.dependencies import installed, sources
from auditor.dependencies.installed import Installed
from auditor.dependencies.metadata import Index, Unread
from auditor.models import Pin


class Reader:
    """Where each locked dependency is read from: an environment's site-packages (git and local
    requirements, or a release installed at the locked version), else the index."""

    def __init__(self, index: Index, cache: Path, site_packages: Path | None = None) -> None:
        self.index, self.cache, self.site_packages = index, cache, site_packages

    def installed(self, pin: Pin) -> Installed | None:
        if self.site_packages is None:
            return None
        found = installed.find(self.site_packages, pin.name)
        return found if found is not None and (pin.version is None or found.version == pin.version) else None

    def requires(self, pin: Pin) -> tuple[str, ...]:
        """Raises Unread."""
        found = self.installed(pin)
        if found is not None:
            return found.requires
        if pin.version is None:
            raise Unread(_not_on_index(pin))
        return self.index.release(pin.name, pin.version).requires

    def sources(self, pin: Pin) -> Path:
        """Raises Unread."""
        found = self.installed(pin)
        if found is not None:
            return installed.sources(found, self.cache)
        if pin.version is None:
            raise Unread(_not_on_index(pin))
        return sources.sources(self.index, pin.name, pin.version, self.cache)


def _not_on_index(pin: Pin) -> str:
    where = f" ({pin.source})" if pin.source else ""
    return f"not from the index{where}: read it from an environment with --site-packages DIR"
