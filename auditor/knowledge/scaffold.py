"""`auditor kb new`: a change's folder to fill in (`knowledge/<package>/<major.minor>/<stem>/`).

The entry has every field the schema requires; those only its author knows hold a string that
starts with `FILL_IN` (`loader.FILL_IN`), which the loader refuses, naming the file and the
field, until each is replaced. The fixtures beside it are the scanner's: `positive.py` (lines
ending in `# expect` are reported) and `negative.py` (nothing is).
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.errors import UsageError
from auditor.knowledge.folders import CHANGE
from auditor.knowledge.loader import FILL_IN

_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

ENTRY = f'''id = "{{package}}-{{stem}}"
package = "{{package}}"
introduced = "{{version}}"
kind = "{FILL_IN}: behaviour, now-raises, removed, deprecated, default-changed, python-support, added, made-public, warning-removed or undeprecated"
severity = "{FILL_IN}: low, medium or high"
silent = "{FILL_IN}: true (a boolean) when the same code runs and gives other results, else false"
title = "{FILL_IN}: what changed, in one line of 10 to 120 characters"
symbols = ["{FILL_IN}: the dotted names the change touches, such as {{package}}.name"]
references = ["{FILL_IN}: https:// addresses, the release note or pull request first"]

[[match]]
call = "{FILL_IN}: a dotted name whose calls the scanner reports"

[docs]
what = "{FILL_IN}: what changed, and in which release"
why = "{FILL_IN}: what it does to code that keeps running"
before = "{FILL_IN}: a line of code and what it gives before and after"
keep_old = "{FILL_IN}: the code that keeps the old behaviour"
adopt_new = "{FILL_IN}: the code that takes the new one"
'''

POSITIVE = '''# Scanner fixture of {package}-{stem}: each line ending in `# expect` is reported, no other.
import {module}

{module}.FILL_IN()  # expect
'''

NEGATIVE = '''# Scanner fixture of {package}-{stem}: nothing here is reported (look-alikes, other names).
import {module}

{module}.FILL_IN
'''


def new_change(root: Path, package: str, version: str, stem: str) -> Path:
    """Write the folder of a new change under the knowledge directory `root`; its path. A
    UsageError when an argument is not of its form or the folder exists."""
    if not _NAME.match(package):
        raise UsageError(f"package {package!r}: lower-case letters, digits and dashes")
    if not _NAME.match(stem):
        raise UsageError(f"stem {stem!r}: lower-case words joined by dashes, such as load-default-changed")
    try:
        release = Version(version)
    except InvalidVersion:
        raise UsageError(f"version {version!r}: not a version (the release that brings the change, such as 2.16.0)") from None
    folder = root / package / f"{release.major}.{release.minor}" / stem
    if folder.exists():
        raise UsageError("already exists: edit it, or choose another stem", folder)
    folder.mkdir(parents=True)
    names = {"package": package, "stem": stem, "version": version, "module": package.replace("-", "_")}
    for name, text in ((CHANGE, ENTRY), ("positive.py", POSITIVE), ("negative.py", NEGATIVE)):
        (folder / name).write_text(text.format(**names), "utf-8")
    return folder
