"""An entry's `[fix]` section: the modes, the actions a transform may take with the fields
each reads, and the transforms the knowledge loader builds from the TOML (`auditor.fix.apply`
applies them).

It imports nothing of the package: the knowledge loader, below the fix engine, builds these
types without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from packaging.specifiers import SpecifierSet

FixMode = Literal["keep-old", "adopt-new"]
FIX_MODES: tuple[FixMode, ...] = ("keep-old", "adopt-new")


@dataclass(frozen=True, slots=True)
class Action:
    """What a transform's action rewrites (matcher shapes), the fields it needs, and every field
    it reads besides `on`, `action`, `note`, `requires` and `symbols`."""

    shapes: tuple[str, ...]
    required: tuple[str, ...]
    fields: tuple[str, ...]


# the call shapes a rewrite of a call was proven on: a call outside them is left alone
CALL_SHAPE_FIELDS = (
    "max_positional",
    "min_positional",
    "keyword_absent",
    "not_literal",
    "proven_keywords",
    "proven_values",
)

# The actions of a `[fix]` transform: the loader checks a transform against its action, and the
# schema's `on` and `action` enums and required fields come from here.
ACTIONS: dict[str, Action] = {
    "set-keyword": Action(
        ("call", "method"),
        ("keyword", "value"),
        ("keyword", "value", "replace", "max_positional", "proven_keywords"),
    ),
    "rename-call": Action(("call",), ("to",), ("to", "prepend", *CALL_SHAPE_FIELDS)),
    "template": Action(
        ("call", "method", "operator"), ("template",), ("template", "augmented", *CALL_SHAPE_FIELDS)
    ),
    "replace-import": Action(("import",), ("module",), ("module", "name")),
    "replace-attribute": Action(("attribute",), ("to",), ("to",)),
    "replace-module": Action(("call", "attribute", "import"), ("module", "to"), ("module", "to")),
    "map-keyword": Action(
        ("call", "method"),
        ("keyword", "keywords", "map"),
        (
            "keyword",
            "keywords",
            "map",
            "replace",
            "to",
            "max_positional",
            "min_positional",
            "proven_keywords",
            "proven_values",
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class Transform:
    """One mechanical rewrite of a `[[fix.keep_old]]` / `[[fix.adopt_new]]` table: `action`
    applied to a finding whose matcher shape is `on`. Fields an action does not read are None."""

    on: str  # a shape its action rewrites (`ACTIONS`)
    action: str  # one of ACTIONS
    keyword: str | None = None  # set-keyword
    value: str | None = None  # set-keyword: Python source
    replace: bool = False  # set-keyword: overwrite a keyword the call already gives
    to: str | None = None  # rename-call: dotted name; replace-attribute: expression source
    prepend: tuple[str, ...] = ()  # rename-call: leading positional arguments (sources)
    template: str | None = None  # template: expression with placeholders
    augmented: str | None = None  # template on operator: the statement for `a //= b`
    module: str | None = None  # replace-import
    name: str | None = None  # replace-import
    note: str | None = None
    requires: SpecifierSet | None = None  # package versions where the rewritten code works
    symbols: tuple[
        str, ...
    ] = ()  # the qualified names it applies to (empty: every symbol of its shape)
    max_positional: int | None = (
        None  # refuse a call passing more positional arguments (they would move)
    )
    min_positional: int | None = None  # refuse a call passing fewer (another form of the call)
    keyword_absent: tuple[
        str, ...
    ] = ()  # rename-call, template: refuse a call giving one of these keywords
    not_literal: tuple[
        int, ...
    ] = ()  # rename-call, template: refuse a call whose positional argument N is a number literal
    # rename-call, template, map-keyword, set-keyword: the keywords a call may give (None: not stated); a call
    # giving another is left alone, and one giving a keyword of `proven_values` must give it one
    # of those literal values (Python sources)
    proven_keywords: tuple[str, ...] | None = None
    proven_values: tuple[tuple[str, tuple[str, ...]], ...] = ()
    keywords: tuple[str, ...] = ()  # map-keyword: the keywords read (and dropped)
    map: tuple[KeywordRow, ...] = ()  # map-keyword: the rows tried in order


@dataclass(frozen=True, slots=True)
class KeywordRow:
    """A row of a map-keyword table: when each named keyword has one of these literal values
    (Python sources; a keyword the call does not give reads as None), write `value`; a keyword
    the row does not name may have any value. `value` None: no rewrite keeps this case."""

    when: tuple[tuple[str, tuple[str, ...]], ...]
    value: str | None


@dataclass(frozen=True, slots=True)
class Fix:
    """An entry's `[fix]` table: per mode, the transforms tried in order."""

    keep_old: tuple[Transform, ...] = ()
    adopt_new: tuple[Transform, ...] = ()
    probe: bool = True  # false: the entry's probe cannot be rewritten, `probe_reason` says why
    probe_reason: str | None = None

    def transforms(self, mode: FixMode) -> tuple[Transform, ...]:
        return self.keep_old if mode == "keep-old" else self.adopt_new


# what every transform rewriting a call's arguments states (the loader refuses one without):
# how many positional arguments, and which keywords, the shapes it was proven on have
CALL_SHAPE_STATED = ("max_positional", "proven_keywords")
CALL_REWRITES = ("set-keyword", "rename-call", "template", "map-keyword")
