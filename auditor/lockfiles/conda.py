"""What the conda formats share: match specs, package names, versions, YAML with line numbers."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from auditor.errors import LockfileError
from auditor.lockfiles.interface import canonical
from auditor.models import Pin

# conda's `pytorch` is PyPI's `torch`; `pytorch-cuda`, `pytorch-mutex`, `cpuonly` are selectors
# of the build and keep their own names.
CONDA_NAMES = {"pytorch": "torch"}
# conda-forge's metapackages that install the `pytorch` of their own version and build: torch,
# where no `pytorch` is listed beside them (an export lists both, and `pytorch` says it)
METAPACKAGES = ("pytorch-gpu", "pytorch-cpu")

_SPEC = re.compile(
    r"^(?:(?P<channel>[^:\s]+)::)?(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*(?P<rest>.*)$"
)
_SELECTOR = re.compile(r"#\s*\[\s*([A-Za-z0-9_]+)\s*\]")

if TYPE_CHECKING:
    import yaml  # imported where YAML is read: only conda files need it


def conda_name(name: str) -> str:
    """PEP 503 form, except conda's leading underscores (`_libgcc_mutex`), which are part of it."""
    stripped = name.lstrip("_")
    name = "_" * (len(name) - len(stripped)) + canonical(stripped)
    return CONDA_NAMES.get(name, name)


def torch_of_metapackages(pins: list[Pin]) -> list[Pin]:
    listed = {p.platform for p in pins if p.name == "torch"}
    return [
        replace(p, name="torch") if p.name in METAPACKAGES and p.platform not in listed else p
        for p in pins
    ]


def version_pin(name: str, version: str, **fields: Any) -> Pin:
    """A conda version is PEP 440 almost always; one that is not (`1.1.1w`) stays pinned as `===`."""
    try:
        return Pin(conda_name(name), Version(version), **fields)
    except InvalidVersion:
        return Pin(conda_name(name), None, specifier=f"==={version}", **fields)


def match_spec_pin(spec: str, path: Path, line: int | None, **fields: Any) -> Pin:
    """`pytorch::pytorch=2.0.1=py3.10_cuda11.8_cudnn8.7.0_0`, `numpy>=1.24`, `python 3.10.* *`."""
    found = _SPEC.match(spec.strip())
    if not found:
        raise LockfileError(f"not a conda package spec: {spec!r}", path, line)
    name, rest = found.group("name"), found.group("rest").strip()
    fields.setdefault("source", found.group("channel"))
    version = build = None
    if " " in rest and not rest.startswith(("=", "<", ">", "!", "~", "[")):
        version, _, build = rest.partition(" ")
    elif rest.startswith("==") or (
        rest.startswith("=") and rest.count("=") == 2 and "==" not in rest
    ):
        version, _, build = rest.lstrip("=").partition("=")
    elif rest.startswith("=") and "*" not in rest and rest.count(".") >= 2:
        version = rest[1:]  # `=2.0.1` means 2.0.1.*; with a full release it names one version
    if version is None or "*" in version or not version:
        return Pin(conda_name(name), None, line=line, specifier=rest or None, **fields)
    build = build.strip() or None if build else None
    return version_pin(name, version, line=line, build=build, **fields)


def selector(text: str, line: int | None) -> str | None:
    """The `# [linux]` selector on a line of an environment file, as a platform."""
    if line is None:
        return None
    lines = text.splitlines()
    found = _SELECTOR.search(lines[line - 1]) if 0 < line <= len(lines) else None
    return found.group(1) if found else None


_FLOW = re.compile(r"[\[\]{}]")
_BLOCK_PREFIX = re.compile(r"^[ \t?:-]{300,}", re.MULTILINE)


def _loader(text: str) -> Any:
    """libyaml's loader, unless the text nests deeply: libyaml recurses on the C stack and
    crashes the interpreter; the pure-Python loader stops at the recursion limit instead."""
    import yaml  # here, as below: only conda files need PyYAML (a fiftieth of a second)

    depth = deepest = 0
    for bracket in _FLOW.findall(text):
        depth = depth + 1 if bracket in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return (
        yaml.SafeLoader
        if deepest > 100 or _BLOCK_PREFIX.search(text)
        else getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )


def _yaml(path: Path, text: str, read: Any) -> Any:
    import yaml

    try:
        return read(text, Loader=_loader(text))
    except RecursionError as exc:
        raise LockfileError("invalid YAML: nested too deeply", path) from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise LockfileError(f"invalid YAML: {str(exc).split(';')[0]}", path) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise LockfileError(
            f"invalid YAML: {problem}", path, mark.line + 1 if mark else None
        ) from exc


def compose_yaml(path: Path, text: str) -> yaml.Node | None:
    import yaml

    node: yaml.Node | None = _yaml(path, text, yaml.compose)
    return node


def load_yaml(path: Path, text: str) -> Any:
    import yaml

    return _yaml(path, text, yaml.load)


def mapping_get(node: yaml.Node | None, key: str) -> yaml.Node | None:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    return next(
        (value for k, value in node.value if isinstance(k, yaml.ScalarNode) and k.value == key),
        None,
    )


def node_line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
