"""`auditor fix`: the mechanical rewrites of knowledge entries' `[fix]` tables, applied to the
call sites a scan found.

An entry's `[fix]` section is typed in `spec` (in the models layer: the knowledge loader builds
it). This file imports nothing, so importing those types runs no engine; callers import each
module directly.

Public API (stable; fix probes, SARIF `fixes` and the Action's "Suggested fix" call it), in
`apply` unless named, its result types in `model`:

- `rewrite_source(source, findings, entries, mode, *, min_confidence="high", versions=None,
  bound=frozenset()) -> Rewrite(new_source, applied, left_alone)`: one module's source with
  the fixes of `mode` ("keep-old" | "adopt-new") applied to `findings` (the scan's findings in
  that source; `Finding.shape` says which matcher shape each is). `entries`: SpecChanges, or a
  mapping id -> SpecChange. `versions`: package -> (old, new) Version, to check each transform's
  `requires` (not checked when None). `bound`: names bound elsewhere (no import is added for them).
  Every finding ends in `applied` (`Applied(finding, transform)`) or in `left_alone`
  (`LeftAlone(finding, kind, reason)`; kind "no-fix" means the change has no mechanical fix).
- `findings_in_source(source, entries, path="<source>") -> list[Finding]`: scan one module's
  source with these entries' matchers (a probe's `code`), to feed `rewrite_source`.
- `rewrite_probe(entry, mode) -> Rewrite | None`: the entry's `[probe].code` rewritten with its
  own fix (both calls above, every confidence counted): what a fix probe runs.
- `fix_project(audit, root, mode, min_confidence="high") -> FixResult`: every file of an
  `AuditResult`'s findings rewritten in memory (`FileRewrite(path, old_text, new_text, applied,
  left_alone, cells)`; notebooks: only the edited cells' `source` changes in the raw JSON).
- `write(result, root) -> list[str]`: write the changed files, all or none (writer.py; FixError
  names the file that cannot be written); `unified_diff(result)` (diff.py) the diff, of the same
  bytes.

Template placeholders (docs/knowledge.md): {receiver}, {args}, {arg0}.., {left},
{right}, and {func} (the callee as written), {inplace} ("_" when the matched method is an
in-place one such as floor_divide_), {kw:NAME} (the value given to keyword NAME; the site is
left alone when it is not given), {args:-NAME} (the arguments without keyword NAME) and
{kwargs} (the keyword arguments and ** spreads as written). An empty {args}/{kwargs} takes its
comma with it. A transform may name the `symbols` it rewrites and states the call shapes it was
proven on: the positional arguments (`min_positional`, `max_positional`), the keywords a call
may give (`proven_keywords`) and, where the value matters, their literal values
(`proven_values`); a call outside them is left alone ("unproven-shape", "positional"). A
transform the call site refuses gives way to the next one of the mode that fits, and a template
writing a non-plain argument twice is refused.

Two more actions: `replace-module` (moves.py: a name that moved to another module; the import
line the site reaches it through is rewritten, or the site's dotted name) and `map-keyword`
(keywords replaced by one whose value a table of literal values gives).
"""
