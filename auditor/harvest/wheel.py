"""A wheel read as a zip: its Python sources and stubs parsed, nothing installed, imported or run."""

from __future__ import annotations

import ast
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

# Generated or test-only trees: no user-facing API, and a third of the parsing time.
SKIPPED_TREES = ("_inductor", "_dynamo", "testing/_internal", "_export", "include", "tests", "test")


@dataclass(frozen=True, slots=True)
class Source:
    module: str  # torch.nn.functional
    path: str  # torch/nn/functional.py
    tree: ast.Module
    is_package: bool  # an __init__ file
    is_stub: bool


def module_name(path: str) -> tuple[str, bool]:
    stem = path.rsplit(".", 1)[0]
    parts = stem.split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def import_name(package: str) -> str:
    return package.replace("-", "_")


def read_wheel(path: Path, package: str) -> tuple[list[Source], list[str]]:
    """The package's .py and .pyi members, parsed; and a note per member that cannot be parsed."""
    top = import_name(package) + "/"
    sources: list[Source] = []
    notes: list[str] = []
    with zipfile.ZipFile(path) as wheel:
        for info in wheel.infolist():
            name = info.filename
            if not name.startswith(top) or not name.endswith((".py", ".pyi")):
                continue
            inner = "/" + name[len(top) :]
            if any(f"/{tree}/" in inner for tree in SKIPPED_TREES):
                continue
            text = wheel.read(info)
            try:
                with warnings.catch_warnings():  # invalid escapes in old sources are not ours
                    warnings.simplefilter("ignore")
                    tree = ast.parse(text, filename=name)
            except (SyntaxError, ValueError) as exc:
                notes.append(f"{path.name}: {name}: not parsed ({exc.__class__.__name__}: {exc})")
                continue
            module, is_package = module_name(name)
            sources.append(Source(module, name, tree, is_package, name.endswith(".pyi")))
    return sources, notes
