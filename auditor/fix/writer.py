"""Writing a fix to the project: every changed file or none, each byte as the rewrite made it.

Every file is checked before the first is written: still as it was read, a regular file that is
not read-only, in a folder that takes a new file. Each file's new bytes go to a temporary file
beside it, given the file's mode, and only when all are written are they renamed over the files
(an atomic step each); should a rename fail, the files already replaced get their old bytes back.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from auditor.errors import FixError
from auditor.fix.model import FileRewrite, FixResult


def write(result: FixResult, root: Path) -> list[str]:
    """Write every changed file, or none (FixError naming the file and why); the paths written."""
    places = [(file, str(root / file.path if root.is_dir() else root)) for file in result.changed]
    targets = [
        Path(os.path.realpath(shown)) for _, shown in places
    ]  # a link's target: the link stays a link
    modes = [_writable(file, target, shown) for (file, shown), target in zip(places, targets)]
    staged: list[Path] = []
    replaced: list[tuple[FileRewrite, Path]] = []
    try:
        for (file, shown), target, mode in zip(places, targets, modes):
            staged.append(_stage(target, file.new_text.encode("utf-8"), mode, shown))
        for (file, shown), target, temp in zip(places, targets, staged):
            try:
                os.replace(temp, target)
            except OSError as exc:
                raise FixError(
                    f"cannot write: {exc.strerror or exc}{_undo(replaced, modes)}", shown
                ) from exc
            replaced.append((file, target))
    finally:
        for temp in staged[len(replaced) :]:
            with contextlib.suppress(OSError):
                os.unlink(temp)
    return [file.path for file, _ in replaced]


def _writable(file: FileRewrite, target: Path, shown: str) -> int:
    """The file's mode, once it is known the file can be replaced by its rewrite."""
    try:
        status = os.stat(target)
        data = target.read_bytes() if stat.S_ISREG(status.st_mode) else b""
    except OSError as exc:
        raise FixError(
            f"cannot read it again before writing: {exc.strerror or exc}; nothing was written",
            shown,
        ) from exc
    reason = None
    if not stat.S_ISREG(status.st_mode):
        reason = "not a regular file"
    elif data != file.old_text.encode("utf-8"):
        reason = "changed since it was read (run fix again)"
    elif not status.st_mode & 0o222 or not os.access(target, os.W_OK):
        reason = "the file is read-only"
    elif not os.access(target.parent, os.W_OK | os.X_OK):
        reason = f"no permission to create a file in {target.parent}"
    if reason is not None:
        raise FixError(f"cannot write: {reason}; nothing was written", shown)
    return stat.S_IMODE(status.st_mode)


def _stage(target: Path, data: bytes, mode: int, shown: str) -> Path:
    """A temporary file beside `target` holding `data`, with `mode`, on disk."""
    try:
        handle, name = tempfile.mkstemp(prefix=".auditor-fix-", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise FixError(f"cannot write: {exc.strerror or exc}; nothing was written", shown) from exc
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(name, mode)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise FixError(f"cannot write: {exc.strerror or exc}; nothing was written", shown) from exc
    return Path(name)


def _undo(replaced: list[tuple[FileRewrite, Path]], modes: list[int]) -> str:
    """Put the old bytes back into the files already replaced; what the error adds about them."""
    lost = []
    for (file, target), mode in zip(replaced, modes):
        try:
            os.replace(_stage(target, file.old_text.encode("utf-8"), mode, str(target)), target)
        except (OSError, FixError):
            lost.append(file.path)
    if lost:
        return f"; these files keep their rewrite, which could not be undone: {', '.join(lost)}"
    return "; nothing was written"
