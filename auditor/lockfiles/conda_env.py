"""conda `environment.yml` (match specs, a nested `pip:` list, `# [linux]` selectors) and the
`conda env export` output of the same shape, whose pins are `name=version=build`."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.errors import LockfileError
from auditor.lockfiles.conda import (
    compose_yaml,
    mapping_get,
    match_spec_pin,
    node_line,
    selector,
    torch_of_metapackages,
)
from auditor.lockfiles.interface import LockFormat, nothing_in, unique_pins
from auditor.lockfiles.pep508 import editable_pin, is_local, requirement_pin, url_pin
from auditor.lockfiles.requirements import EDITABLE, is_url, split_options
from auditor.models import Lock, Pin

if TYPE_CHECKING:
    import yaml

ENVIRONMENT = "environment.yml"
EXPORT = "conda-env-export"

_ENV_NAME = re.compile(r"(^|[-_.])(environment|env|conda)[^/]*\.ya?ml$", re.IGNORECASE)
_EXPORT_PIN = re.compile(r"^[ \t]*-[ \t]*[A-Za-z0-9_.-]+=[^=\s]+=\S+[ \t]*$", re.MULTILINE)


def _is_export(text: str) -> bool:
    return (
        bool(re.search(r"^prefix:", text, re.MULTILINE))
        or len(_EXPORT_PIN.findall(text[:20000])) >= 3
    )


def _looks_like_environment(text: str) -> bool:
    return bool(re.search(r"^dependencies:", text, re.MULTILINE)) and not re.search(
        r"^package:", text, re.MULTILINE
    )


def claims_environment(path: Path, text: str) -> int:
    if not path.name.endswith((".yml", ".yaml")) or _is_export(text):
        return 0
    if not text.strip():
        return 2 if _ENV_NAME.search(path.name) else 0
    if not _looks_like_environment(text):
        return 0
    return 2 if _ENV_NAME.search(path.name) else 1


def claims_export(path: Path, text: str) -> int:
    return (
        3
        if path.name.endswith((".yml", ".yaml"))
        and _looks_like_environment(text)
        and _is_export(text)
        else 0
    )


def _parse(path: Path, text: str, fmt: str) -> Lock:
    import yaml  # here, not at import: only conda files need PyYAML (a fiftieth of a second)

    root = compose_yaml(path, text)
    if root is None:
        raise nothing_in(path, fmt)
    if not isinstance(root, yaml.MappingNode):
        raise LockfileError("expected a mapping with `dependencies`", path, node_line(root))
    dependencies = mapping_get(root, "dependencies")
    if dependencies is None:
        return Lock(path=str(path), format=fmt, pins=())
    if not isinstance(dependencies, yaml.SequenceNode):
        raise LockfileError("dependencies: expected a list", path, node_line(dependencies))
    conda: list[Pin] = []
    pip: list[Pin] = []
    for item in dependencies.value:
        line = node_line(item)
        if isinstance(item, yaml.ScalarNode):
            conda.append(match_spec_pin(str(item.value), path, line, platform=selector(text, line)))
            continue
        section = mapping_get(item, "pip")
        if not isinstance(section, yaml.SequenceNode):
            raise LockfileError(
                "dependencies: expected a package spec or a `pip:` list", path, line
            )
        pip += [pin for pin in (_pip_pin(entry, path) for entry in section.value) if pin]
    conda = torch_of_metapackages(unique_pins((p, path) for p in conda))
    pins, notes = _pip_installs_last(conda, unique_pins((p, path) for p in pip))
    python = next((str(p.version) for p in pins if p.name == "python" and p.version), None)
    return Lock(path=str(path), format=fmt, pins=tuple(pins), python=python, notes=tuple(notes))


def _pip_installs_last(conda: list[Pin], pip: list[Pin]) -> tuple[list[Pin], list[str]]:
    """pip runs after conda: a package its section pins to another version replaces conda's
    (`torch==2.6.0` under `pip:` beside `pytorch=2.5.1`: the environment runs 2.6.0); one it
    leaves unpinned or pins to the same version is conda's."""
    installed = {p.name: p for p in conda}
    pins, notes = list(conda), []
    for pin in pip:
        was = installed.get(pin.name)
        if was is None:
            pins.append(pin)
        elif (pin.version is not None or pin.local) and pin.version != was.version:
            pins[pins.index(was)] = pin
            notes.append(
                f"{pin.name} {_shown(pin)} of the pip section (line {pin.line}) replaces the conda "
                f"pin {_shown(was)} (line {was.line}): pip installs after conda"
            )
    return pins, notes


def _shown(pin: Pin) -> str:
    return str(pin.version) if pin.version is not None else pin.specifier or pin.source or "(local)"


def _pip_pin(node: yaml.Node, path: Path) -> Pin | None:
    import yaml

    line = node_line(node)
    if not isinstance(node, yaml.ScalarNode):
        raise LockfileError("pip: expected a requirement string", path, line)
    text = str(node.value).strip()  # a line of a requirements file, read as pip reads one
    editable = EDITABLE.match(text)
    if editable:
        pin = editable_pin(split_options(editable.group(1)), path, line)
        return replace(pin, groups=("pip", *pin.groups))
    if text.startswith("-"):
        return None  # -r, --extra-index-url, ...: options of pip, not packages
    target = split_options(text)  # per-line options: --hash, --no-binary
    if is_local(target) or is_url(target):
        pin = url_pin(target, path, line)
        return replace(pin, groups=("pip", *pin.groups))
    return requirement_pin(target, path, line, groups=("pip",))


def parse_environment(path: Path, text: str) -> Lock:
    return _parse(path, text, ENVIRONMENT)


def parse_export(path: Path, text: str) -> Lock:
    return _parse(path, text, EXPORT)


CONDA_ENVIRONMENT = LockFormat(ENVIRONMENT, claims_environment, parse_environment)
CONDA_ENV_EXPORT = LockFormat(EXPORT, claims_export, parse_export)
