"""Where a spec change's files live: one folder, `knowledge/<package>/<version>/<stem>/`.

The folder holds the entry (`change.toml`, id `<package>-<stem>`), the scanner fixtures
(`positive*.py` or `.ipynb`: each line ending in `# expect` is reported, no other;
`negative*.py`: nothing is), the fix snapshots (`positive.keep_old.py`, `positive.adopt_new.py`:
what `auditor fix` writes on `positive.py`) and, where one exists, the evidence script
(`evidence.py`). A wheel ships the entries, the horizon and the harvest: not the rest.
"""

from __future__ import annotations

from pathlib import Path

CHANGE = "change.toml"
POSITIVE = "positive.py"
MODES = ("keep_old", "adopt_new")


def change_folders(root: Path) -> list[Path]:
    """Every change's folder under the knowledge directory `root`, sorted."""
    return sorted(p.parent for p in root.glob(f"*/*/*/{CHANGE}"))


def folder_id(folder: Path) -> str:
    """The id a change's folder gives its entry: `<package>-<stem>`."""
    return f"{folder.parent.parent.name}-{folder.name}"


def fixtures(folder: Path, kind: str) -> list[Path]:
    """A change's scanner fixtures of one kind ("positive" or "negative"), snapshots left out."""
    return [p for p in sorted(folder.glob(f"{kind}*")) if not is_snapshot(p)]


def snapshot(folder: Path, mode: str) -> Path:
    """Where the fix snapshot of `mode` ("keep_old" or "adopt_new") of a change's fixture lives."""
    return folder / f"positive.{mode}.py"


def is_snapshot(path: Path) -> bool:
    return any(path.name == f"positive.{mode}.py" for mode in MODES)


def shipped_files(root: Path) -> list[Path]:
    """The files of the knowledge directory `root` a wheel carries: each change's entry alone of
    its folder, and every other file (the horizon, the harvest)."""
    folders = set(change_folders(root))
    return [
        f for f in sorted(root.rglob("*"))
        if f.is_file() and "__pycache__" not in f.parts and (f.parent not in folders or f.name == CHANGE)
    ]
