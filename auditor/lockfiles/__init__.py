"""Lock files in: every format a torch user has, read into `Lock`, compared into `LockDiff`."""

from auditor.lockfiles.changes import PackageChange, Selection
from auditor.lockfiles.detect import FORMATS, detect, format_names, read_lock
from auditor.lockfiles.diff import LockDiff, diff_locks
from auditor.lockfiles.interface import LockFormat

__all__ = [
    "FORMATS",
    "LockDiff",
    "LockFormat",
    "PackageChange",
    "Selection",
    "detect",
    "diff_locks",
    "format_names",
    "read_lock",
]
