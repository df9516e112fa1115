"""Requirements files read by pip's rules: pip-compile and `uv pip compile` output, hand-written
pins, `requirements.in` ranges.

pip-requirements-parser was considered: it vendors pip's own reader, but it has had no release
since 2022, reports bad lines as data without line-numbered errors, and does not detect include
cycles. pip's rules fit in a page, so they are written out here (see pip's `req_file.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from auditor.errors import LockfileError, redact
from auditor.lockfiles.interface import LockFormat, canonical, index_source, read_text, unique_pins
from auditor.lockfiles.pep508 import editable_pin, is_local, requirement_pin, url_pin
from auditor.models import Lock, Pin

FORMAT = "requirements.txt"

_STRONG_NAME = re.compile(
    r"(^|[-_.])(requirements|constraints)([-_.][^/]*)?\.(txt|in)$", re.IGNORECASE
)
# each `\s*` is followed by something it cannot match, so a long run of spaces is read once
# (two `\s*` side by side backtrack over each other: 8 s for a line of 20,000 spaces)
_PIN_LINE = re.compile(
    r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\]\s*)?(===?|~=|>=|<=|!=|<|>|@|;|$)"
)
_COMMENT = re.compile(r"(?:^|(?<=\s))#")  # pip's `(^|\s+)#.*$`, which is quadratic in spaces
_OPTION = re.compile(r"(?:^| )-")
_ENV_VAR = re.compile(r"\$\{([A-Z0-9_]+)\}")
_INCLUDE = re.compile(r"^(?:-([rc])\s*|--(requirement|constraint)(?:\s*=\s*|\s+))(\S.*)$")
EDITABLE = re.compile(r"^(?:-e\s*|--editable(?:\s*=\s*|\s+))(\S.*)$")
_INDEX = re.compile(r"^(?:-i\s*|--index-url(?:\s*=\s*|\s+))(\S+)")
_URLISH = re.compile(r"^([a-z][a-z0-9+.-]*://|\.{0,2}/|[A-Za-z]:\\)|\.(whl|tar\.gz|zip)(#.*)?$")


def claims(path: Path, text: str) -> int:
    if _STRONG_NAME.search(path.name):
        return 2
    if path.suffix not in ("", ".txt", ".in"):
        return 0
    lines = [ln for ln in text.splitlines()[:200] if ln.strip() and not ln.lstrip().startswith("#")]
    if lines and all(
        _PIN_LINE.match(ln) or ln.lstrip().startswith("-") or _URLISH.search(ln.strip())
        for ln in lines
    ):
        return 1
    return 0


def join_lines(text: str) -> Iterator[tuple[int, str]]:
    """pip's continuation rule: a trailing backslash joins, except on a line that is a comment.
    `pkg==1 # \\` does continue, so the next line ends up inside the comment, as in pip."""
    pending: list[str] = []
    first = 0
    for number, line in enumerate(text.splitlines(), start=1):
        is_comment = line.lstrip().startswith("#")
        if line.endswith("\\") and not is_comment:
            if not pending:
                first = number
            pending.append(line[:-1])
            continue
        if pending:
            pending.append(" " + line if is_comment else line)
            yield first, "".join(pending)
            pending = []
        else:
            yield number, line
    if pending:
        yield first, "".join(pending)


def logical_lines(text: str, env: Mapping[str, str]) -> Iterator[tuple[int, str]]:
    for number, line in join_lines(text):
        comment = _COMMENT.search(line) if "#" in line else None
        content = (line[: comment.start()] if comment else line).strip()
        if "${" in content:
            content = _ENV_VAR.sub(lambda m: env.get(m.group(1), m.group(0)), content)
        if content:
            yield number, content


def split_options(line: str) -> str:
    """The requirement part of a line; per-line options (`--hash`, `-C`) start at the first
    space-separated token beginning with `-`, as pip splits them."""
    found = _OPTION.search(line)
    return line[: found.start()].strip() if found else line


# pip's requirements-file options (pip/_internal/req/req_file.py); any other is a mistake, or
# a file that is no requirements file (`-----BEGIN OPENSSH PRIVATE KEY-----`)
_OPTIONS = frozenset(
    {
        "-i",
        "--index-url",
        "--extra-index-url",
        "--no-index",
        "-c",
        "--constraint",
        "-r",
        "--requirement",
        "-e",
        "--editable",
        "-f",
        "--find-links",
        "--no-binary",
        "--only-binary",
        "--prefer-binary",
        "--require-hashes",
        "--pre",
        "--trusted-host",
        "--use-feature",
    }
)
_OPTION_NAME = re.compile(r"--?[A-Za-z][A-Za-z-]*")
# a bare name no package has: a token or key that a file read by mistake holds (GitHub, GitLab,
# Slack, OpenAI, Hugging Face, PyPI, AWS), or 20+ letters and digits mixing cases, as random keys do
_CREDENTIAL = re.compile(
    r"(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|sk-|hf_)[A-Za-z0-9_-]{20,}|pypi-AgEI[A-Za-z0-9_-]+"
    r"|AKIA[0-9A-Z]{16}|(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9]{20,}"
)


def included_files(text: str) -> list[str]:
    """The targets of a file's `-r`/`-c` lines, as written."""
    found = (_INCLUDE.match(content) for _, content in logical_lines(text, {}))
    return [split_options(m.group(3)) for m in found if m]


@dataclass
class _Reading:
    env: Mapping[str, str]
    root: Path | None = None  # includes must stay inside (a repository read from git)
    pins: list[tuple[Pin, Path]] = field(default_factory=list)  # with the file of each
    constraints: dict[str, Pin] = field(default_factory=dict)
    index: str | None = None
    notes: list[str] = field(default_factory=list)
    visited: set[tuple[Path, bool]] = field(default_factory=set)  # each include is read once


def _read(
    path: Path, text: str, chain: tuple[Path, ...], state: _Reading, constraint: bool
) -> None:
    for number, content in logical_lines(text, state.env):
        editable = None
        if content.startswith("-"):
            include = _INCLUDE.match(content)
            index = _INDEX.match(content)
            editable = EDITABLE.match(content)
            if include:
                is_constraint = "c" in (include.group(1) or include.group(2)[0])
                _include(path, number, split_options(include.group(3)), chain, state, is_constraint)
            elif index:
                state.index = index_source(index.group(1))
            else:
                option = _OPTION_NAME.match(content)
                if option is None or option.group(0) not in _OPTIONS:
                    shown = option.group(0) if option else content[:1]
                    raise LockfileError(f"not a requirements-file option: {shown!r}", path, number)
            if not editable:
                continue  # an include, an index, or another global option (--pre, --find-links, ...)
        target = split_options(editable.group(1) if editable else content)
        if not target:
            continue
        if "${" in target:
            pin = Pin(_unexpanded_name(target), None, line=number, specifier=target)
        elif editable:
            pin = editable_pin(target, path, number)
        elif is_local(target) or is_url(target):
            pin = url_pin(target, path, number)
        else:
            if _CREDENTIAL.fullmatch(target):
                raise LockfileError(
                    "this line looks like a credential, not a requirement (not shown)", path, number
                )
            pin = requirement_pin(target, path, number, source=state.index)
        if constraint:
            if pin.version is not None:
                state.constraints.setdefault(pin.name, pin)
        else:
            state.pins.append((pin, path))


def is_url(target: str) -> bool:
    """A bare URL or path line, not `name @ url` and not a plain `name==version`."""
    maybe = "/" in target or "\\" in target or target.endswith((".whl", ".gz", ".zip"))
    return maybe and " @ " not in target and _URLISH.search(target) is not None


def _unexpanded_name(text: str) -> str:
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", text)
    return canonical(found.group(0)) if found else text


def _include(
    path: Path, line: int, target: str, chain: tuple[Path, ...], state: _Reading, constraint: bool
) -> None:
    if re.match(r"[a-z][a-z0-9+.-]*://", target):
        raise LockfileError(f"cannot follow an include from a URL: {redact(target)}", path, line)
    included = Path(os.path.normpath(path.parent / target))
    real = Path(os.path.realpath(included))  # unlike Path.resolve, never raises on a link loop
    if state.root is not None and not real.is_relative_to(state.root):
        state.notes.append(
            f"the include {target} ({path.name}:{line}) lies outside the repository: not read"
        )
        return
    if real in chain:
        cycle = " -> ".join(p.name for p in (*chain[chain.index(real) :], included))
        raise LockfileError(f"include cycle: {cycle}", path, line)
    if (real, constraint) in state.visited:
        return  # read already through another include: pip would read the same pins again
    if not included.is_file():
        raise LockfileError(f"included file not found: {target}", path, line)
    state.visited.add((real, constraint))
    text = read_text(included)
    if text.strip() and not claims(included, text):
        # its lines are not shown: a file included by mistake (`-c /etc/shadow`) may hold secrets
        raise LockfileError(f"the include {target} is not a requirements file", path, line)
    _read(included, text, (*chain, real), state, constraint)


def parse(
    path: Path, text: str, env: Mapping[str, str] | None = None, root: Path | None = None
) -> Lock:
    """`root`: includes that lead outside it are not read, and say so in the lock's notes."""
    state = _Reading(
        env=os.environ if env is None else env, root=root and Path(os.path.realpath(root))
    )
    _read(path, text, (Path(os.path.realpath(path)),), state, constraint=False)
    constrained = []
    for pin, where in state.pins:
        pinned = state.constraints.get(pin.name)
        if pin.version is None and pinned is not None and pin.source is None:
            pin = replace(pin, version=pinned.version, specifier=None)
        constrained.append((pin, where))
    pins = unique_pins(constrained)  # also the same pin reached through two includes
    return Lock(path=str(path), format=FORMAT, pins=tuple(pins), notes=tuple(state.notes))


REQUIREMENTS = LockFormat(FORMAT, claims, parse)
