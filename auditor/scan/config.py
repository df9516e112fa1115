"""The project's scan settings: `[tool.auditor]` in pyproject.toml, or the file `--config` names.

```toml
[tool.auditor]
exclude = ["legacy/**", "notebooks/scratch_*.ipynb"]   # gitignore-style patterns
ignore = ["torch-dropout2d-3d-input-warns"]            # change ids never reported
min-confidence = "medium"                              # low | medium | high
respect-gitignore = true                               # the default
vendored = ["third_party/", "vendor/"]                 # code copied in: reported apart, not gating

[tool.auditor.per-path-ignores]
"tests/**" = ["torch-floor-divide-rounds-toward-floor"]
"scripts/convert_*.py" = ["*"]                         # every change

[tool.auditor.lock-scopes]                             # compare --git: the code each lock governs
"services/vision/uv.lock" = ["services/vision", "shared/vision"]
```

A file given with `--config` may hold the same keys at its top level (an `auditor.toml`) or
under `[tool.auditor]` (another pyproject.toml).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec

from auditor import tomlread
from auditor.errors import UsageError
from auditor.knowledge.entry import Confidence
from auditor.models import Finding, rank

MAX_BYTES = 4 * 2**20  # a configuration is a few lines; a bigger file is a mistake or an attack
KEYS = frozenset(
    {
        "exclude",
        "ignore",
        "min-confidence",
        "respect-gitignore",
        "per-path-ignores",
        "lock-scopes",
        "vendored",
    }
)
# Folders of code copied from other projects: its findings are listed apart and gate only with
# --fail-on-vendored. `vendored` in the settings replaces this list (an empty list: none).
VENDORED = ("third_party/", "third-party/", "vendor/", "vendored/", "_vendor/")
ALIASES = {
    "per-file-ignores": "per-path-ignores",
    "min_confidence": "min-confidence",
    "respect_gitignore": "respect-gitignore",
    "per_path_ignores": "per-path-ignores",
    "lock_scopes": "lock-scopes",
}
CONFIDENCES: tuple[Confidence, ...] = ("low", "medium", "high")


def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


@dataclass(frozen=True)
class ScanConfig:
    exclude: tuple[str, ...] = ()
    ignore: frozenset[str] = frozenset()
    per_path_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    min_confidence: Confidence = "low"
    respect_gitignore: bool = True
    source: str | None = None  # the file the settings were read from
    # lock path -> the folders of code it governs, relative to the project root ("" the root)
    lock_scopes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    vendored: tuple[str, ...] = VENDORED
    _exclude_spec: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)
    _vendored_spec: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)
    _path_specs: tuple[tuple[pathspec.GitIgnoreSpec, frozenset[str]], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_exclude_spec", _spec(self.exclude))
        object.__setattr__(self, "_vendored_spec", _spec(self.vendored))
        object.__setattr__(
            self, "_path_specs", tuple((_spec((glob,)), ids) for glob, ids in self.per_path_ignores)
        )

    def excluded(self, relative: str, is_dir: bool = False) -> bool:
        """Whether a path (relative to the project root, forward slashes) is excluded."""
        return bool(self.exclude) and self._exclude_spec.match_file(
            relative + ("/" if is_dir else "")
        )

    def is_vendored(self, relative: str) -> bool:
        """Whether a file (relative to the project root) is under a vendored folder."""
        return bool(self.vendored) and self._vendored_spec.match_file(relative)

    def keeps(self, finding: Finding) -> bool:
        if finding.change in self.ignore or rank(finding.confidence) < rank(self.min_confidence):
            return False
        for spec, ids in self._path_specs:
            if (finding.change in ids or "*" in ids) and spec.match_file(finding.path):
                return False
        return True


def _strings(value: Any, where: str, path: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where} must be a list of strings", path)
    return tuple(value)


def _relative(path: str) -> str:
    """A path of the project as the settings write it (`./a/`, `.`), as a plain relative one."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def parse_config(table: dict[str, Any], path: Path) -> ScanConfig:
    """Settings from a `[tool.auditor]` table; every key is checked."""
    table = {ALIASES.get(k, k): v for k, v in table.items()}
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise UsageError(
            f"[tool.auditor]: unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS))})", path
        )
    confidence = table.get("min-confidence", "low")
    if confidence not in CONFIDENCES:
        raise UsageError(
            f"[tool.auditor] min-confidence must be one of low, medium, high, not {confidence!r}",
            path,
        )
    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise UsageError("[tool.auditor] respect-gitignore must be true or false", path)
    per_path = table.get("per-path-ignores", {})
    if not isinstance(per_path, dict):
        raise UsageError(
            "[tool.auditor] per-path-ignores must be a table of glob = [change ids]", path
        )
    scopes = table.get("lock-scopes", {})
    if not isinstance(scopes, dict):
        raise UsageError(
            "[tool.auditor] lock-scopes must be a table of lock path = [folders]", path
        )
    return ScanConfig(
        lock_scopes=tuple(
            (
                _relative(lock),
                tuple(
                    _relative(f)
                    for f in _strings(folders, f"[tool.auditor.lock-scopes] {lock!r}", path)
                ),
            )
            for lock, folders in sorted(scopes.items())
        ),
        exclude=_strings(table.get("exclude", []), "[tool.auditor] exclude", path),
        ignore=frozenset(_strings(table.get("ignore", []), "[tool.auditor] ignore", path)),
        per_path_ignores=tuple(
            (glob, frozenset(_strings(ids, f"[tool.auditor.per-path-ignores] {glob!r}", path)))
            for glob, ids in sorted(per_path.items())
        ),
        min_confidence=confidence,
        respect_gitignore=respect,
        source=str(path),
        vendored=_strings(table["vendored"], "[tool.auditor] vendored", path)
        if "vendored" in table
        else VENDORED,
    )


def _read_toml(path: Path) -> dict[str, Any]:
    """The file as TOML, bounded in size and shape before parsing (a PR may have written it)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError as exc:
        raise UsageError("no such configuration file", path) from exc
    except OSError as exc:
        raise UsageError(f"cannot read the configuration: {exc.strerror or exc}", path) from exc
    if len(data) > MAX_BYTES:
        raise UsageError(f"larger than {MAX_BYTES // 2**20} MB: not a configuration file", path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError("not UTF-8 text", path, data[: exc.start].count(b"\n") + 1) from exc
    return tomlread.loads(text, path, UsageError)


def load_config(config: Path | None, project: Path | None) -> ScanConfig:
    """The file `--config` names, else `[tool.auditor]` of the project's pyproject.toml, else defaults."""
    if config is not None:
        data = _read_toml(config)
        tool = data.get("tool", {})
        table: Any = tool.get("auditor") if isinstance(tool, dict) and "auditor" in tool else data
        if table is data:
            table = {k: v for k, v in data.items() if k != "tool"}
        if not isinstance(table, dict):
            raise UsageError("[tool.auditor] must be a table", config)
        return parse_config(table, config)
    if project is None:
        return ScanConfig()
    pyproject = (project if project.is_dir() else project.parent) / "pyproject.toml"
    if not pyproject.is_file():
        return ScanConfig()
    tool = _read_toml(pyproject).get("tool", {})
    table = tool.get("auditor") if isinstance(tool, dict) else None
    if table is None:
        return ScanConfig()
    if not isinstance(table, dict):
        raise UsageError("[tool.auditor] must be a table", pyproject)
    return parse_config(table, pyproject)
