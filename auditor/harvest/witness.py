"""The second witness of a curated entry's release: the harvested candidates on its symbols.

A probe run on the releases around `introduced` is the first witness; the released sources, as
the shipped harvest (`knowledge/<package>/harvest/`) reads them, are the second. For each curated
entry of a kind a harvest can see (deprecated, removed, default-changed), and for each of its
symbols, the candidates that speak about the same change are looked up:

- of a kind that begins the entry's change (a deprecation's warning, a removal, a default);
- on the symbol; or, to confirm a release but never to dispute one, on the same definition
  reached by another module path (`torch.cuda.memory.memory_cached` is `torch.cuda.memory_cached`)
  or with a warning that names the symbol (a helper the harvest tied to another name);
- for a warning whose text the probe declares (`warns = "Category: text"`), with that text;
- for a default, on a parameter the entry's matchers name, and not to the `None` sentinel (a
  signature default of `None` is resolved at run time: it says nothing of the effective default).

A candidate witnesses a release E when `before < E <= release` (the harvest may skip releases).
A symbol agrees when one of its candidates witnesses `introduced` (or `until`); it disagrees when
it has candidates and none does. A later category change or a later removal stub (a better error
for a name already gone) follows a change that began earlier: it never disagrees; nor does a later
candidate with the very warning text the sources show at the entry's release on another of its
symbols (a name added later that warns from its first release). That last rule would also hide
an existing name that took up the same warning later: the probes are the witness for that.

A candidate the entry `covers` on another symbol (a subclass's method that holds the warning, a
helper with the same message) confirms the release too, never disputes it.

An entry whose change lives in C++ says `evidence = "c++"`: no `.py`/`.pyi` can witness it. Where
the sources hold the change but in nothing the harvest reads, `evidence` says where it lives
instead (EVIDENCE), and the entry is counted there when no candidate speaks about it. A
disagreement that a reviewer read and found to be the harvest's mistake (a name it lost, a helper
it does not follow) is listed in `knowledge/<package>/harvest/witness.toml` with both witnesses;
every other disagreement fails `auditor kb coverage`. A listed lead that no longer disagrees is
reported too, so the list never outlives its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

from auditor.errors import KnowledgeError
from auditor.harvest.model import Candidate
from auditor.harvest.shipped import DIRECTORY, read_toml
from auditor.knowledge.entry import SpecChange

FILE = "witness.toml"

# Candidate kinds that begin each entry kind's change, and those that only follow one.
BEGINS = {
    "deprecated": {"deprecation-begins"},
    "removed": {"symbol-removed", "removal-stub-added"},
    "default-changed": {"default-changed"},
}
FOLLOWS = {
    "deprecated": {"warning-category-changed"},
    "removed": {"removal-stub-added"},
    "default-changed": set(),
}
# Where a change lives that no harvested candidate shows (the entry's `evidence`).
EVIDENCE = {
    "c++": "the compiled library: no .py/.pyi of any release holds it",
    "behaviour": "Python code with no warning, stub or signature default: a constant, a class attribute, "
    "a function body that resolves a default",
    "announcement": "a warning in the .py sources that announces a change without deprecation words, "
    "which the harvest does not read as a deprecation",
    "docstring": "the documentation only: no warning, no signature change",
    "metadata": "the wheel's metadata (its dependencies), not its sources",
    "private": "private names (a leading underscore), which the harvest does not read",
    "indirect": "a warning raised later, from private code, not by a call of the entry's symbols",
    "other-package": "a top-level package the torch wheel ships beside torch/ (functorch), which the harvest does not read",
    "helper": "a warning issued through a private helper that takes its message and category as parameters "
    "(flex_attention's _warn_once), which the harvest does not read as a deprecation",
}
STATES = ("agree", "disagree", "resolved", *EVIDENCE, "before harvest", "no candidate")


@dataclass(frozen=True, slots=True)
class Lead:
    """A reviewed disagreement: the harvest's release for the entry's symbol is its own mistake."""

    entry: str
    symbols: tuple[str, ...]
    release: str  # the harvest's release that was read and found wrong
    reason: str  # both witnesses: the source lines and the runs


@dataclass(frozen=True, slots=True)
class Verdict:
    entry: str
    state: str  # one of STATES
    introduced: str
    symbol: str | None = None  # the symbol a disagreement (or resolution) is about
    releases: tuple[str, ...] = ()  # the harvest's releases for that symbol
    candidates: tuple[str, ...] = ()  # their ids
    why: str = ""
    lead: Lead | None = None  # the reviewed lead that resolves it


@dataclass(frozen=True, slots=True)
class Witness:
    package: str
    verdicts: tuple[Verdict, ...]
    stale: tuple[Lead, ...] = ()  # listed leads that no longer disagree

    def totals(self) -> dict[str, int]:
        return {state: sum(v.state == state for v in self.verdicts) for state in STATES}

    def of(self, state: str) -> list[Verdict]:
        return [v for v in self.verdicts if v.state == state]

    @property
    def failed(self) -> bool:
        return bool(self.of("disagree") or self.stale)


def defines(candidate: str, symbol: str) -> bool:
    """Whether the candidate's symbol is `symbol`'s definition in a submodule that re-exports it
    (`torch.cuda.memory.memory_cached` for `torch.cuda.memory_cached`). A guess from the names
    alone: such a candidate may confirm a release, never dispute one."""
    c_module, _, c_name = candidate.rpartition(".")
    s_module, _, s_name = symbol.rpartition(".")
    return c_name == s_name and bool(s_module) and c_module.startswith(s_module + ".")


def names(c: Candidate, symbol: str) -> bool:
    """Whether the candidate's warning names `symbol` ("torch.nn.utils.weight_norm is deprecated",
    raised in a helper the harvest tied to another name). Like `defines`, it only confirms."""
    pattern, lowered = _named(symbol)
    for e in c.evidence:
        if e.release == c.release:
            text = _plain(e.message)
            # most texts lack the name: a substring test says so faster than the pattern (which
            # folds case beyond ASCII, so it alone reads a text that is not ASCII)
            if (lowered in text or not text.isascii()) and pattern.search(text):
                return True
    return False


@cache
def _named(symbol: str) -> tuple[re.Pattern[str], str]:
    """`symbol` as a whole name, and in lower case: made once, as each entry's symbol meets
    every candidate."""
    return re.compile(
        r"(?<![\w.])" + re.escape(symbol) + r"(?![\w.])", re.IGNORECASE
    ), symbol.lower()


def _message(c: Candidate) -> str:
    """The candidate's warning text in its own release, without the helper it goes through."""
    text = next((e.message for e in c.evidence if e.release == c.release), "")
    return _plain(re.sub(r" \(via [\w.]+\)$", "", text))


@cache
def _plain(text: str) -> str:
    """A warning's text without quotes, in lower case: kept, as every entry reads every candidate's."""
    return re.sub(r"[`'\"]", "", text).lower()


def _parameters(entry: SpecChange) -> set[str]:
    names: set[str] = set()
    for m in entry.matches:
        names.update(
            m.when.keyword_absent, m.when.keyword_present, (k for k, _ in m.when.keyword_values)
        )
    return names


def witnesses(c: Candidate, edge: Version) -> bool:
    try:
        return Version(c.before) < edge <= Version(c.release)
    except InvalidVersion:
        return False


def relevant(
    entry: SpecChange, symbol: str, candidates: list[Candidate], exact: bool = True
) -> list[Candidate]:
    """The candidates on `symbol` (or, not `exact`, on its definition in a submodule) that speak
    about the entry's change."""
    kinds = BEGINS[entry.kind] | FOLLOWS[entry.kind]
    text = _plain(entry.probe.warns.partition(": ")[2]) if entry.probe and entry.probe.warns else ""
    parameters = _parameters(entry)
    found = []
    for c in candidates:
        if not (c.symbol == symbol if exact else defines(c.symbol, symbol) or names(c, symbol)):
            continue
        if c.id in entry.covers:  # a reviewer tied them already (a test checks the release)
            found.append(c)
            continue
        if c.kind not in kinds:
            continue
        if (
            text
            and c.kind != "symbol-removed"
            and not any(text in _plain(e.message) for e in c.evidence)
        ):
            continue
        if entry.kind == "default-changed" and (
            (parameters and c.parameter not in parameters) or c.detail.endswith("-> None")
        ):
            continue
        found.append(c)
    return found


def judge(
    entry: SpecChange, candidates: list[Candidate], oldest: Version | None, leads: list[Lead]
) -> list[Verdict]:
    """One verdict per disagreeing (or resolved) symbol, or a single one for the entry."""
    introduced = str(entry.introduced)
    if entry.evidence == "c++":
        return [Verdict(entry.id, "c++", introduced)]
    edges = [entry.introduced] + ([entry.until] if entry.until else [])
    if oldest is None or entry.introduced <= oldest:
        return [
            Verdict(
                entry.id,
                "before harvest",
                introduced,
                why=f"the harvest starts at {oldest}: no release before it to compare with",
            )
        ]
    out: list[Verdict] = []
    per_symbol = {s: relevant(entry, s, candidates) for s in entry.symbols}
    confirming = {
        s: found + relevant(entry, s, candidates, exact=False) for s, found in per_symbol.items()
    }
    # The warnings the sources show at the entry's release, on any of its symbols.
    seen = {
        _message(c)
        for found in confirming.values()
        for c in found
        if any(witnesses(c, e) for e in edges)
    }
    seen |= {
        _message(c)
        for c in candidates
        if c.id in entry.covers and any(witnesses(c, e) for e in edges)
    }
    agreed = bool(seen)
    for symbol, found in per_symbol.items():
        if any(witnesses(c, e) for c in confirming[symbol] for e in edges):
            continue
        # A later follow-up (a category change, a removal stub) of a change that began earlier;
        # or the very warning already seen at the entry's release, reaching a name added later
        # (TypedStorage.float8_e4m3fn in 2.2: the class warns from 2.0).
        opening = [
            c
            for c in found
            if c.kind in BEGINS[entry.kind]
            and not (c.kind in FOLLOWS[entry.kind] and Version(c.release) > entry.introduced)
            and not (Version(c.release) > entry.introduced and _message(c) in seen)
        ]
        if not opening:
            continue
        releases = tuple(sorted({c.release for c in opening}, key=Version))
        lead = next(
            (
                lead
                for lead in leads
                if lead.entry == entry.id and symbol in lead.symbols and lead.release in releases
            ),
            None,
        )
        out.append(
            Verdict(
                entry.id,
                "resolved" if lead else "disagree",
                introduced,
                symbol,
                releases,
                tuple(c.id for c in opening),
                lead.reason if lead else "",
                lead,
            )
        )
    if out:
        return out
    if not agreed and entry.evidence in EVIDENCE:
        return [Verdict(entry.id, entry.evidence, introduced, why=EVIDENCE[entry.evidence])]
    return [Verdict(entry.id, "agree" if agreed else "no candidate", introduced)]


def read_leads(knowledge: Path, package: str) -> list[Lead]:
    path = knowledge / package / DIRECTORY / FILE
    if not path.exists():
        return []
    out, problems = [], []
    for index, raw in enumerate(read_toml(path).get("lead", [])):
        texts = (
            [raw.get(k) for k in ("entry", "release", "reason")] if isinstance(raw, dict) else []
        )
        symbols = raw.get("symbols") if isinstance(raw, dict) else None
        if (
            not all(isinstance(x, str) and x for x in texts)
            or len(texts) != 3
            or not isinstance(symbols, list)
            or not symbols
            or not all(isinstance(s, str) for s in symbols)
        ):
            problems.append(
                f"{path}: lead[{index}]: needs entry, symbols (a list), release and reason"
            )
            continue
        out.append(Lead(raw["entry"], tuple(symbols), raw["release"], raw["reason"]))
    if problems:
        raise KnowledgeError(problems)
    return out


def witness(
    knowledge: Path,
    package: str,
    entries: tuple[SpecChange, ...],
    candidates: list[Candidate],
    oldest: Version | None,
) -> Witness:
    leads = read_leads(knowledge, package)
    verdicts: list[Verdict] = []
    for e in entries:
        if e.package == package and e.harvested is None and e.kind in BEGINS:
            verdicts += judge(e, candidates, oldest, leads)
    used = {v.lead for v in verdicts}
    return Witness(package, tuple(verdicts), tuple(lead for lead in leads if lead not in used))


def oldest_release(candidates: list[Candidate]) -> Version | None:
    """The first release the harvest read: a change it brought cannot be seen."""
    befores = []
    for c in candidates:
        try:
            befores.append(Version(c.before))
        except InvalidVersion:
            continue
    return min(befores, default=None)
