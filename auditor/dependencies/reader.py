"""Where each locked dependency is read from: an environment's site-packages for git and local
requirements (or a release installed at the locked version), else the package index."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from packaging.version import Version

from auditor.dependencies import installed, sources
from auditor.dependencies.installed import Installed
from auditor.dependencies.metadata import Index, Unread
from auditor.models import Pin


class Reader:
    """Where each locked dependency is read from: an environment's site-packages (git and local
    requirements, or a release installed at the locked version), else the index."""

    def __init__(self, index: Index, cache: Path, site_packages: Path | None = None) -> None:
        self.index, self.cache, self.site_packages = index, cache, site_packages
        # the requirements check and the dependency scan both ask for each pin's: read once
        self._requires: dict[tuple[str, Version | None], tuple[str, ...]] = {}

    @cached_property
    def _installed(self) -> dict[str, Installed]:
        return installed.installed_in(self.site_packages) if self.site_packages is not None else {}

    def installed(self, pin: Pin) -> Installed | None:
        found = self._installed.get(pin.name)
        return (
            found
            if found is not None and (pin.version is None or found.version == pin.version)
            else None
        )

    def requires(self, pin: Pin) -> tuple[str, ...]:
        """Raises Unread."""
        key = (pin.name, pin.version)
        if key not in self._requires:
            found = self.installed(pin)
            if found is not None:
                self._requires[key] = found.requires
            elif pin.version is None:
                raise Unread(_not_on_index(pin))
            else:
                self._requires[key] = self.index.release(pin.name, pin.version).requires
        return self._requires[key]

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
