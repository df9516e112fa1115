"""Where probe environments get their wheels: pip's configuration, options, PyTorch's CPU index.

uv does not read pip's configuration, so it is read here (`pip config list`, which also shows the
PIP_* variables) and handed to uv explicitly, together with the command line's options.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from functools import cache

# PyTorch's own index of CPU builds: PyPI's Linux torch 2.x wheels are CUDA builds that pull
# several GB of nvidia-* wheels, so this is where real users get a torch that imports on a CPU.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


@dataclass(frozen=True, slots=True)
class Sources:
    index_url: str | None = None  # None: the installer's default (PyPI)
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    offline: bool = False
    torch_index: str | None = TORCH_CPU_INDEX  # consulted first for torch; None to not use one
    use_pip_config: bool = False  # merge pip's configuration under these settings when resolved

    @classmethod
    def from_pip_config(cls, python: str | None = None, **overrides: object) -> Sources:
        """pip's configuration (files and PIP_* variables) as `pip config list` shows it."""
        return replace(cls(**pip_config(python or sys.executable)), **overrides)  # type: ignore[arg-type]

    def resolved(self) -> Sources:
        """These settings over pip's configuration, read only now: `pip config list` takes a second
        that a run with every environment built and every result cached does not need to spend."""
        if not self.use_pip_config:
            return self
        base = Sources.from_pip_config(torch_index=self.torch_index)
        merged = base.with_options(
            self.index_url, self.extra_index_urls, self.find_links, self.offline
        )
        return replace(merged, no_index=merged.no_index or self.no_index)

    def with_options(
        self,
        index_url: str | None = None,
        extra_index_urls: tuple[str, ...] = (),
        find_links: tuple[str, ...] = (),
        offline: bool = False,
    ) -> Sources:
        """Command-line options on top: --index-url replaces, the others add."""
        return replace(
            self,
            index_url=index_url or self.index_url,
            extra_index_urls=tuple(dict.fromkeys(self.extra_index_urls + extra_index_urls)),
            find_links=tuple(dict.fromkeys(self.find_links + find_links)),
            offline=offline or self.offline,
        )

    def for_package(self, package: str) -> tuple[Sources, str | None]:
        """The sources to install `package` from, and a note when the CPU index was left out."""
        if package != "torch" or not self.torch_index or self.no_index:
            return self, None
        if self.offline:
            return self, None
        if not reachable(self.torch_index):
            return self, f"{self.torch_index} is not reachable; torch comes from the other indexes"
        return replace(self, extra_index_urls=(self.torch_index, *self.extra_index_urls)), None

    def uv_args(self) -> list[str]:
        args = ["--only-binary", ":all:", "--index-strategy", "unsafe-best-match"]
        if self.no_index:
            args.append("--no-index")
        elif self.index_url:
            args += ["--index-url", self.index_url]
        for url in self.extra_index_urls:
            args += ["--extra-index-url", url]
        for link in self.find_links:
            args += ["--find-links", link]
        if self.offline:
            args.append("--offline")
        return args

    def pip_args(self) -> list[str]:
        args = ["--only-binary", ":all:", "--disable-pip-version-check"]
        indexes: list[str | None] = [self.index_url, *self.extra_index_urls]
        if self.offline:  # pip has no offline mode: local indexes and find-links only
            indexes = [url for url in indexes if url and url.startswith("file:")]
        elif not self.index_url:
            indexes = [None, *self.extra_index_urls]
        if self.no_index or not indexes:
            args.append("--no-index")
        else:
            if indexes[0]:
                args += ["--index-url", indexes[0]]
            for url in indexes[1:]:
                args += ["--extra-index-url", str(url)]
        for link in self.find_links:
            args += ["--find-links", link]
        return args


def _split(value: str) -> tuple[str, ...]:
    return tuple(value.split())


def pip_config(python: str) -> dict[str, object]:
    """The index settings of pip's configuration; empty when pip is not there."""
    try:
        done = subprocess.run(
            [python, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    sections: dict[str, dict[str, str]] = {"global": {}, "install": {}, ":env:": {}}
    for line in done.stdout.splitlines():
        key, sep, raw = line.partition("=")
        if not sep:
            continue
        section, _, name = key.rpartition(".")
        if section not in sections:
            continue
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        sections[section][name] = str(value)
    # as in pip: environment variables over [install] over [global]
    settings = {**sections["global"], **sections["install"], **sections[":env:"]}
    found: dict[str, object] = {}
    if "index-url" in settings:
        found["index_url"] = settings["index-url"]
    if "extra-index-url" in settings:
        found["extra_index_urls"] = _split(settings["extra-index-url"])
    if "find-links" in settings:
        found["find_links"] = _split(settings["find-links"])
    if settings.get("no-index", "").lower() in ("1", "true", "yes", "on"):
        found["no_index"] = True
    return found


@cache
def reachable(url: str, timeout: float = 5.0) -> bool:
    if url.startswith("file:"):
        return True
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return True
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (OSError, ValueError):
        return False
