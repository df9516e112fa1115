"""PEP 751 `pylock.toml` / `pylock.<name>.toml`, validated by `packaging.pylock`."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from packaging.pylock import (
    Package,
    Pylock,
    PylockUnsupportedVersionError,
    PylockValidationError,
    is_valid_pylock_path,
)

from auditor.errors import LockfileError
from auditor.lockfiles.interface import (
    LockFormat,
    header_lines,
    index_source,
    load_toml,
    nothing_in,
)
from auditor.models import Lock, Pin

FORMAT = "pylock.toml"


def claims(path: Path, text: str) -> int:
    if is_valid_pylock_path(path):
        return 3
    return 1 if text.lstrip().startswith("lock-version") and "[[packages]]" in text else 0


def parse(path: Path, text: str) -> Lock:
    document = load_toml(path, text)
    if not document:
        raise nothing_in(path, FORMAT)
    try:
        lock = Pylock.from_dict(_with_wheel_names(document))
    except PylockUnsupportedVersionError as exc:
        raise LockfileError(str(exc), path) from exc
    except PylockValidationError as exc:
        raise LockfileError(
            f"not a valid pylock file: {exc}", path, _line(text, exc.context)
        ) from exc
    except (TypeError, ValueError, AttributeError) as exc:  # shapes packaging does not guard
        raise LockfileError(f"not a valid pylock file: {exc}", path) from exc
    lines = header_lines(text, "[[packages]]")
    pins = tuple(
        Pin(
            name=str(package.name),
            version=None if package.directory else package.version,  # a folder pins nothing
            marker=str(package.marker) if package.marker else None,
            source=_source(package),
            groups=("editable",) if package.directory and package.directory.editable else (),
            line=lines[i] if i < len(lines) else None,
            local=package.directory is not None
            or (package.archive is not None and package.archive.url is None),
            wheels=tuple(wheel.name for wheel in package.wheels or () if wheel.name),
        )
        for i, package in enumerate(lock.packages)
    )
    python = str(lock.requires_python) if lock.requires_python else None
    return Lock(path=str(path), format=FORMAT, pins=pins, python=python)


def _with_wheel_names(document: dict[str, Any]) -> dict[str, Any]:
    """Wheels named only by a URL such as the PyTorch index's `torch-2.3.1%2Bcu121-...whl`:
    packaging reads the name from the URL without unquoting it, so give the name explicitly."""
    for package in document.get("packages") or []:
        wheels = package.get("wheels") if isinstance(package, dict) else None
        for wheel in wheels if isinstance(wheels, list) else []:
            if (
                isinstance(wheel, dict)
                and "name" not in wheel
                and isinstance(wheel.get("url"), str)
            ):
                name = unquote(urlsplit(wheel["url"]).path.rsplit("/", 1)[-1])
                if name != wheel["url"].rsplit("/", 1)[-1]:
                    wheel["name"] = name
    return document


def _source(package: Package) -> str | None:
    if package.vcs:
        url = package.vcs.url or package.vcs.path
        return f"{package.vcs.type}+{url}@{package.vcs.commit_id}"
    if package.archive:
        return package.archive.url or package.archive.path
    if package.directory:
        return package.directory.path
    return index_source(package.index)


def _line(text: str, context: str | None) -> int | None:
    """`packages[3].version` -> the line of the fourth `[[packages]]` header."""
    if not context or not context.startswith("packages["):
        return None
    index = int(context[len("packages[") :].split("]", 1)[0])
    lines = header_lines(text, "[[packages]]")
    return lines[index] if index < len(lines) else None


PYLOCK = LockFormat(FORMAT, claims, parse)
