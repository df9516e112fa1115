"""Finding the project's call sites that the crossed spec changes touch.

The modules, by layer from the bottom up: a module imports from its own layer and the layers
listed before it, never from one listed after it (`tests/test_layering.py` checks this map).

Reading files
- walk: the cheaper `ast` walk that every pass over a module uses
- config: the project's scan settings (`[tool.auditor]`, `--config`)
- discover: the files worth scanning, and every one passed over
- notebook: a notebook's code cells, IPython syntax blanked
- syntax: sources newer than the running Python, parsed by a newer interpreter
- ignores: `# auditor: ignore[...]` comments

Values and scopes
- tags: what a value is known to hold (`Tag`: kind, dtype family)
- apis: tables of the torch and numpy APIs that give values their tags
- bindings: one class per way a name is bound
- scopes: what each scope binds, the one lookup rule, and `Conditions` (the tests code runs under)
- tagging: the `Tag` of each kind of expression (`Tagger`)

Resolving names
- collect: the one walk of a module: scopes, bindings and the sites the checker reads
- modules: the project's own modules: constants and re-exports one file reads from another
- names: the resolver (`Resolver`): what an expression names and holds
- guards: version guards, and code they make dead on both ends of a transition
- declared: the declared type of a call's result
- values: the value an argument holds, where the code in view shows it
- feeds: what the project's modules pass each other's functions

Checking
- rules: knowledge matchers compiled into lookup tables
- dicts: the keys of dicts built in view, for keyword conditions through `**kwargs`
- usage: a second pattern a hazard needs in the same function or module
- signs: values that are never negative (indices, sizes, mask sums), where they decide `//`
- reach: whether the project names a class anywhere (a method of a class nothing uses)
- conditions: the test of each argument condition (`TESTS`) on a call
- checker: every place in a module where a rule applies, as a `Finding`

Project orchestration
- scanner: one module or notebook in, findings out (`scan_file`, `scan_source`)
- cache: per-file results kept between runs
- project: a whole project: discovery, the cache, the worker processes (`scan_project`)
"""

from auditor.scan.project import scan_project
from auditor.scan.rules import RuleIndex
from auditor.scan.scanner import scan_file, scan_source

__all__ = ["RuleIndex", "scan_file", "scan_project", "scan_source"]
