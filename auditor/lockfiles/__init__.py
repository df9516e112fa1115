"""Lock files in: every format a torch user has, read into `Lock`, compared into `LockDiff`."""

from auditor.lockfiles.detect import FORMATS, read_lock
from auditor.lockfiles.diff import LockDiff, diff_locks

__all__ = ["FORMATS", "LockDiff", "diff_locks", "read_lock"]
