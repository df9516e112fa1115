"""`replace-module`: a name that moved to another module (torch.func -> functorch on a
downgrade, torch.ao.nn.quantized -> torch.nn.quantized, torch._six.container_abcs ->
collections.abc). The rewrite follows how the site reaches the name:

- through an import of the moved name or of something under it (`from torch.func import vmap`,
  `import torch.func as tf`, `from torch import func`): the site stays as written and the
  import line is rewritten (`from functorch import vmap`), aliases kept; a `from M import a, b`
  is split only where its names go to different modules;
- through an import above it (`import torch` + `torch.func.vmap(f)`): the site's dotted name is
  rewritten (`functorch.vmap(f)`, `import functorch` added), and an `import torch.func` nothing
  refers through any more becomes `import torch`.

Two phases, so that a notebook's import cell is rewritten for the sites of its other cells:
`plan_site` (per finding, in transforms.py's rewriter) decides, and records a `Move` per import
binding to rewrite; `move_imports` then rewrites the import statements of a source.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from auditor.astnames import dotted_name
from auditor.fix.spec import Transform


class NoMove(Exception):
    """The site cannot be moved; the message says why (kind "import-form")."""


@dataclass(frozen=True, slots=True)
class Binding:
    local: str  # the name bound
    qualified: str  # what it refers to: torch.func.vmap; torch for `import torch.func`
    written: str  # the dotted module of `import M` (torch.func), else the qualified name
    plain: bool = False  # `import M` without `as`: the code names the module by its dotted name


@dataclass(frozen=True, slots=True)
class Move:
    """An import binding to rewrite: `local`, bound to `qualified`, which moved from `old` to
    `new` (a module, or module:attribute)."""

    local: str
    qualified: str
    old: str
    new: str
    symbols: tuple[str, ...] = ()


@dataclass
class ImportTable:
    """The imports of a module (or of all a notebook's cells): who binds what, and how each
    imported name is used."""

    bindings: dict[str, list[Binding]] = field(default_factory=lambda: defaultdict(list))
    other: set[str] = field(
        default_factory=set
    )  # names bound otherwise too (def, assignment, argument)
    uses: dict[str, set[str]] = field(
        default_factory=lambda: defaultdict(set)
    )  # local -> dotted chains read
    loose: dict[str, str] = field(
        default_factory=dict
    )  # local -> why its import cannot be rewritten
    unreadable: bool = False  # a source did not parse

    @classmethod
    def of(cls, sources: Iterable[str]) -> ImportTable:
        table = cls()
        for source in sources:
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError, RecursionError):
                table.unreadable = True
                continue
            table._read(tree)
        return table

    def _read(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.bindings[a.asname].append(Binding(a.asname, a.name, a.name))
                    else:
                        root = a.name.split(".")[0]
                        self.bindings[root].append(Binding(root, root, a.name, plain=True))
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    local = a.asname or a.name
                    if node.level or node.module is None:
                        self.loose[local] = (
                            "a relative import: the module it names is not known here"
                        )
                    elif a.name == "*":
                        self.loose["*"] = f"a star import from {node.module}"
                    else:
                        self.bindings[local].append(
                            Binding(local, f"{node.module}.{a.name}", f"{node.module}.{a.name}")
                        )
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.other.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.other.add(node.id)
            elif isinstance(node, ast.arg):
                self.other.add(node.arg)
        for chain in _chains(tree):
            self.uses[chain.split(".")[0]].add(chain)


def _chains(tree: ast.AST) -> list[str]:
    """Every dotted chain read (`torch.func.vmap`, `tf`), longest form only."""
    inner: set[int] = set()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            text = dotted_name(node)
            if text is not None:
                found.append((id(node), text))
                inner.add(id(node.value))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.append((id(node), node.id))
    return [text for key, text in found if key not in inner]


def moved(qualified: str, old: str, new: str) -> str | None:
    """Where `qualified` lives after `old` moved to `new`, or None when it is not under `old`."""
    if qualified == old:
        return new
    if qualified.startswith(old + "."):
        return new + qualified[len(old) :]
    return None


def covered(qualified: str, symbols: Sequence[str]) -> bool:
    return not symbols or any(qualified == s or qualified.startswith(s + ".") for s in symbols)


def module_of(new: str) -> str:
    """The module to import to reach `new` by its dotted name."""
    return new.split(":")[0]


def expression(new: str) -> str:
    return new.replace(":", ".")


def plan_site(chain: str, transform: Transform, table: ImportTable) -> tuple[str, str] | Move:
    """For a site written as the dotted `chain`: (the new dotted source, the module it needs)
    when the site itself is rewritten, or the Move of the import that binds its root."""
    assert transform.module is not None and transform.to is not None
    old, new = transform.module, transform.to
    local = chain.split(".")[0]
    found = {b.qualified: b for b in table.bindings.get(local, ())}
    if not found:
        why = table.loose.get(local) or table.loose.get("*")
        raise NoMove(f"{local} is not imported by name here" + (f" ({why})" if why else ""))
    if len(found) > 1:
        raise NoMove(
            f"{local} is imported more than once ({', '.join(sorted(found))}): the code may choose by version already"
        )
    if local in table.other:
        raise NoMove(
            f"{local} is also bound otherwise (an assignment, a definition or an argument)"
        )
    binding = next(iter(found.values()))
    qualified = binding.qualified + chain[len(local) :]
    target = moved(qualified, old, new)
    if target is None:
        raise NoMove(f"{chain} is {qualified}, not under {old}")
    if not covered(qualified, transform.symbols):
        raise NoMove(f"{qualified} is not one of the names this fix moves")
    if binding.plain or moved(binding.qualified, old, new) is None:
        # bound above the moved name, or by `import M` and named by its dotted name: rewrite the site
        return expression(target), module_of(new)
    if transform.symbols and not covered(binding.qualified, transform.symbols):
        # a module binding (import torch.func as tf): every use must be a name the fix moves
        for use in sorted(table.uses.get(local, ())):
            full = binding.qualified + use[len(local) :]
            if use == local or not covered(full, transform.symbols):
                raise NoMove(
                    f"{use} is used too, and {full} is not one of the names this fix moves"
                )
    new_binding = moved(binding.qualified, old, new)
    assert new_binding is not None
    if ":" in new_binding and "." in new_binding.split(":", 1)[1]:
        raise NoMove(
            f"{binding.qualified} would be {expression(new_binding)}, which no import statement binds"
        )
    return Move(local, binding.qualified, old, new, transform.symbols)


def plan_import(
    node: cst.Import | cst.ImportFrom, transform: Transform, table: ImportTable
) -> list[Move]:
    """An import statement a finding points at: a Move for each name it binds under the moved one."""
    assert transform.module is not None and transform.to is not None
    if isinstance(node, cst.ImportFrom) and (
        node.relative or isinstance(node.names, cst.ImportStar)
    ):
        raise NoMove("a relative or star import: the names it binds are not known")
    moves = []
    for alias in node.names:  # type: ignore[union-attr]
        written = _code(alias.name)
        if isinstance(node, cst.ImportFrom):
            assert node.module is not None
            written = f"{_code(node.module)}.{written}"
        local = (
            _code(alias.asname.name)
            if alias.asname
            else written.split(".")[-1]
            if isinstance(node, cst.ImportFrom)
            else written.split(".")[0]
        )
        if moved(written, transform.module, transform.to) is None:
            continue
        chain = local if alias.asname or isinstance(node, cst.ImportFrom) else written
        plan = plan_site(chain, transform, table)
        if isinstance(plan, Move):
            moves.append(plan)
    if not moves:
        raise NoMove(f"binds nothing under {transform.module} that an import line can move")
    return moves


# --- phase 2: the import statements -------------------------------------------------------------


_EMPTY = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def move_imports(source: str, moves: Sequence[Move], uses: ImportTable | None = None) -> str:
    """`source` with the import statements of `moves` rewritten; and every `import M` (no alias)
    of a moved module that nothing refers through any more replaced by `import <top>`. `uses`:
    the table of the new sources (a notebook's other cells), to see what is still referred to."""
    if not moves:
        return source
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source
    now = uses if uses is not None else ImportTable.of([source])
    return module.visit(_Imports(tuple(moves), now)).code


@dataclass
class _Imports(cst.CSTTransformer):
    moves: tuple[Move, ...]
    now: ImportTable

    def __post_init__(self) -> None:
        super().__init__()

    def _target(self, local: str, qualified: str, line_moves: Sequence[Move]) -> str | None:
        for m in self.moves:
            if (m.local, m.qualified) == (local, qualified):
                return moved(qualified, m.old, m.new)
        for m in line_moves:  # another name of a statement that moves: it goes with it when covered
            target = moved(qualified, m.old, m.new)
            if target is not None and (
                not m.symbols or qualified in m.symbols or covered(qualified, m.symbols)
            ):
                return target
        return None

    def _still_used(self, written: str) -> bool:
        for m in self.moves:
            if moved(written, m.old, m.new) is None:
                continue
            root = written.split(".")[0]
            if any(moved(chain, m.old, m.new) is not None for chain in self.now.uses.get(root, ())):
                return True
        return False

    def _rewrite(self, small: cst.BaseSmallStatement) -> list[cst.BaseSmallStatement] | None:
        if isinstance(small, cst.ImportFrom):
            if small.relative or isinstance(small.names, cst.ImportStar) or small.module is None:
                return None
            base = _code(small.module)
            entries = [
                (a, _code(a.asname.name) if a.asname else _code(a.name), f"{base}.{_code(a.name)}")
                for a in small.names
            ]
            mine = [
                m
                for m in self.moves
                if any((m.local, m.qualified) == (loc, q) for _, loc, q in entries)
            ]
            if not mine:
                return None
            kept: list[cst.ImportAlias] = []
            groups: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(
                list
            )  # (form, module) -> (name, local)
            for alias, local, qualified in entries:
                target = self._target(local, qualified, mine)
                if target is None:
                    kept.append(alias)
                    continue
                groups[_form(target)].append((_last(target), local))
            if not groups:
                return None
            if not kept and len(groups) == 1 and next(iter(groups))[0] == "from":
                (_, module), pairs = next(iter(groups.items()))
                renamed = [
                    a.with_changes(
                        name=cst.Name(n),
                        asname=None if n == loc else cst.AsName(name=cst.Name(loc)),
                    )
                    for a, (n, loc) in zip(small.names, pairs)
                ]
                return [small.with_changes(module=cst.parse_expression(module), names=renamed)]
            out: list[cst.BaseSmallStatement] = []
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                out.append(
                    small.with_changes(names=kept, lpar=None, rpar=None)
                    if len(kept) == 1
                    else small.with_changes(names=kept)
                )
            for (form, module), pairs in groups.items():
                if form == "from":
                    out.append(
                        _statement(
                            f"from {module} import " + ", ".join(_alias(n, loc) for n, loc in pairs)
                        )
                    )
                else:
                    out += [
                        _statement(f"import {module}" + ("" if module == loc else f" as {loc}"))
                        for _, loc in pairs
                    ]
            return out
        if isinstance(small, cst.Import):
            changed = False
            names: list[cst.ImportAlias] = []
            extra: list[cst.BaseSmallStatement] = []
            for alias in small.names:
                written = _code(alias.name)
                if alias.asname is not None:
                    target = self._target(_code(alias.asname.name), written, ())
                    if target is not None:
                        changed = True
                        if ":" in target:
                            extra.append(
                                _statement(
                                    f"from {target.split(':')[0]} import {_alias(_last(target), _code(alias.asname.name))}"
                                )
                            )
                            continue
                        alias = alias.with_changes(name=cst.parse_expression(target))
                elif any(
                    moved(written, m.old, m.new) is not None for m in self.moves
                ) and not self._still_used(written):
                    changed = True  # nothing refers through `import torch.func` (`import functorch`) any more
                    root = written.split(".")[0]
                    if root == written or any(
                        b.written == root for b in self.now.bindings.get(root, ())
                    ):
                        continue  # `import functorch` goes; `import torch` is there already
                    alias = alias.with_changes(name=cst.Name(root))
                names.append(alias)
            if not changed:
                return None
            out = []
            if names:
                names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                out.append(small.with_changes(names=names))
            return out + extra
        return None

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        body: list[cst.BaseSmallStatement] = []
        changed = False
        for small in updated_node.body:
            new = self._rewrite(small)
            if new is None:
                body.append(small)
                continue
            changed = True
            body += new
        if not changed:
            return updated_node
        if not body:
            return cst.RemovalSentinel.REMOVE  # type: ignore[return-value]
        if len(updated_node.body) == 1 and len(body) > 1:  # one statement a line, as it was
            lines = [
                cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                for s in body
            ]
            lines[0] = lines[0].with_changes(
                leading_lines=updated_node.leading_lines,
                trailing_whitespace=updated_node.trailing_whitespace,
            )
            return cst.FlattenSentinel(lines)
        body = [
            s.with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))
            for s in body[:-1]
        ] + [body[-1].with_changes(semicolon=updated_node.body[-1].semicolon)]
        return updated_node.with_changes(body=body)


def _form(target: str) -> tuple[str, str]:
    """How to import `target`: ("from", module) or ("import", module)."""
    if ":" in target:
        return "from", target.split(":")[0]
    if "." in target:
        return "from", target.rsplit(".", 1)[0]
    return "import", target


def _last(target: str) -> str:
    return target.replace(":", ".").rsplit(".", 1)[-1]


def _alias(name: str, local: str) -> str:
    return name if name == local else f"{name} as {local}"


def _statement(text: str) -> cst.BaseSmallStatement:
    line = cst.parse_statement(text + "\n")
    assert isinstance(line, cst.SimpleStatementLine)
    return line.body[0]
