"""Scan a project: files in, findings and skipped files out."""

from __future__ import annotations

import ast
import gc
import io
import sys
import tokenize
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from auditor.models import Finding, Skipped
from auditor.scan import syntax
from auditor.scan.checker import Checker
from auditor.scan.feeds import Facts, Fed, facts
from auditor.scan.ignores import Ignores, read_ignores
from auditor.scan.modules import ProjectModules
from auditor.scan.names import Resolver
from auditor.scan.notebook import Cell, NotebookError, code_cells, join_cells, syntax_problem
from auditor.scan.rules import RuleIndex

# How deep the analysis may recurse, where that costs no C stack: from 3.11 a Python function
# calling another does not recurse in C, and generated code (a sum of 5,000 terms) nests deep.
DEEP_RECURSION = 20_000 if sys.version_info >= (3, 11) else None


class TooDeep(Exception):
    """The source parses but nests deeper than the analysis follows."""


def scan_source(
    source: str,
    path: str,
    index: RuleIndex,
    ignores: Ignores | None = None,
    modules: ProjectModules | None = None,
) -> list[Finding]:
    """Findings in one Python source, less those its ignore comments silence (`ignores`, read
    from `source` unless given); raises SyntaxError when it does not parse, TooDeep when it
    nests too deeply to analyse. `modules`: the project's other modules, where a version guard
    reads a constant of another module (what it looked up is noted in `modules.consulted`)."""
    if not index.could_match(source):
        return []
    return analyse_source(source, path, index, ignores, modules=modules)[0]


def analyse_source(
    source: str,
    path: str,
    index: RuleIndex,
    ignores: Ignores | None = None,
    fed: Fed | None = None,
    modules: ProjectModules | None = None,
    tree: ast.Module | None = None,
    helper: bool = False,
) -> tuple[list[Finding], Facts | None]:
    """`scan_source`, with what other modules feed its functions' parameters (`feeds`), and the
    module's own facts for the project's index (None when the pre-filter skipped it). `tree`:
    the source's, when a newer Python parsed it (`syntax`). A module that names no matched module
    is analysed only as a `helper` (another module passes its functions a tensor, or it may call a
    wrapper whose callers decide a change: its facts are wanted) or when it is fed: tensors reach
    it through its parameters alone."""
    rooted = index.mentions_root(source)
    matches = index.mentions_token(source) if rooted or helper or fed else False
    if not matches and not rooted and not helper:
        return [], None
    with warnings.catch_warnings(), _without_cycle_collection():
        warnings.simplefilter("ignore", SyntaxWarning)
        ignores = read_ignores(source) if ignores is None else ignores
        return _analyse(source, path, index, ignores, fed, matches, modules, tree)


def _analyse(
    source: str,
    path: str,
    index: RuleIndex,
    ignores: Ignores,
    fed: Fed | None,
    matches: bool = True,
    modules: ProjectModules | None = None,
    tree: ast.Module | None = None,
) -> tuple[list[Finding], Facts | None]:
    """With `matches` false (no matched token in it) only the module's facts: its calls. Fed
    (the project's second look, `project._feed`), only its findings: its facts are the first
    analysis's, and none is returned."""
    if tree is None:
        tree = ast.parse(source, filename=path)
    limit = sys.getrecursionlimit()
    if DEEP_RECURSION is not None and limit < DEEP_RECURSION:
        sys.setrecursionlimit(DEEP_RECURSION)
    try:
        if not matches:
            return [], facts(
                Resolver(tree, attributes=frozenset()), tree
            )  # no checker: no chain is read
        checker = Checker(tree, index, path, source, ignores, modules, fed)
        return checker.run(), facts(checker.resolver, tree, index.calls) if fed is None else None
    except RecursionError as exc:
        raise TooDeep from exc
    finally:
        sys.setrecursionlimit(limit)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """A syntax tree and its analysis hold no reference cycles: reference counting frees them.
    The cycle collector would walk their many young objects again and again to find nothing
    (a fifth of a big scan's time), so it waits until the file is done and its tree freed
    (`_analyse` has returned), when there is nothing left of them to walk."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_source(file: Path) -> str:
    """The text of a source as Python reads it (`source_text`): one read, one decode."""
    with open(file, "rb") as handle:
        return source_text(handle.read(), file.name.endswith(".ipynb"))


def source_text(data: bytes, notebook: bool = False) -> str:
    """`read_source` of a file whose bytes are `data`: decoded as its coding cookie or byte-order
    mark says (a notebook is JSON: UTF-8), newlines made "\n", a byte-order mark dropped.
    Raises UnreadableText."""
    encoding = "utf-8-sig"
    if not notebook:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except (
            SyntaxError
        ) as exc:  # no UTF-8 on the first lines, an unknown encoding, a cookie against the mark
            if not _utf8(data):
                raise UnreadableText("not UTF-8 text") from exc
            raise UnreadableText(f"line {exc.lineno or 1}: {exc.msg}") from exc
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        name = (
            "UTF-8"
            if encoding.startswith("utf-8")
            else f"{encoding}, as its coding cookie declares,"
        )
        raise UnreadableText(f"not {name} text") from exc
    except LookupError as exc:  # a codec, but no text encoding (`hex`)
        raise UnreadableText(f"line 1: cannot decode the source as {encoding}: {exc}") from exc
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class UnreadableText(ValueError):
    """Bytes that are no text in the encoding the source declares."""


def scan_file(
    file: Path, relative: str, index: RuleIndex, modules: ProjectModules | None = None
) -> tuple[list[Finding], list[Skipped]]:
    findings, skipped, _ = scan_module(file, relative, index, modules=modules)
    return findings, skipped


def scan_module(
    file: Path,
    relative: str,
    index: RuleIndex,
    fed: Fed | None = None,
    modules: ProjectModules | None = None,
    data: bytes | None = None,
    helper: bool = False,
) -> tuple[list[Finding], list[Skipped], Facts | None]:
    """`scan_file`, fed what the project's other modules pass its functions, with the module's
    facts for the project's index (None for a file not analysed). A notebook's cells, read
    together, have facts too: its calls feed the project's modules (no module imports it).
    `data`: the file's bytes, when they were read already; `helper`: analysed though it names
    no matched module (`analyse_source`)."""
    try:
        text = (
            read_source(file) if data is None else source_text(data, file.name.endswith(".ipynb"))
        )
    except UnreadableText as exc:
        return [], [Skipped(relative, str(exc))], None
    except OSError as exc:
        return [], [Skipped(relative, f"unreadable: {exc.strerror or exc}")], None
    if not file.name.endswith(".ipynb"):
        try:
            ignores = read_ignores(text, index.known)
            try:
                findings, found = analyse_source(
                    text, relative, index, ignores, fed, modules, helper=helper
                )
            except SyntaxError as exc:
                tree = _newer_tree(text, relative, exc, modules)
                if isinstance(tree, Skipped):
                    return [], [tree], None
                findings, found = analyse_source(
                    text, relative, index, ignores, fed, modules, tree=tree, helper=helper
                )
            return findings, _unknown(relative, ignores, lambda line: f"line {line}"), found
        except SyntaxError as exc:
            return [], [Skipped(relative, syntax_problem(exc, text), "syntax-error")], None
        except TooDeep:
            return [], [Skipped(relative, "nested too deeply to analyse")], None
        except (ValueError, RecursionError) as exc:
            return [], [Skipped(relative, f"cannot parse: {exc}")], None
    try:
        cells = code_cells(text)
    except NotebookError as exc:
        return [], [Skipped(relative, str(exc))], None
    return _scan_notebook(cells, relative, index, modules)


def _newer_tree(
    text: str, relative: str, error: SyntaxError, modules: ProjectModules | None
) -> ast.Module | Skipped:
    """The tree of a source this Python rejects, as a newer Python parses it, or why it is not read."""
    python = syntax.newer_python()
    base = modules.base if modules is not None else None
    if python is None:
        return syntax.unread(relative, error.lineno, error.msg, base)
    try:
        parsed = syntax.parse_newer(text, python)
    except syntax.Untranslatable as exc:
        return syntax.untranslatable(relative, python, str(exc))
    except OSError as exc:
        return syntax.unread(
            relative,
            error.lineno,
            error.msg,
            base,
            failed=f"{exc}, so nothing told newer syntax from an error",
        )
    if isinstance(parsed, ast.Module):
        return parsed
    newer_error = SyntaxError(parsed[1])  # an error for the newer Python too: at the line it gives
    newer_error.lineno = parsed[0]
    return Skipped(relative, syntax_problem(newer_error, text), "syntax-error")


def _scan_notebook(
    cells: list[Cell], relative: str, index: RuleIndex, modules: ProjectModules | None = None
) -> tuple[list[Finding], list[Skipped], Facts | None]:
    gating: set[str] = (
        set()
    )  # why cells of newer syntax were left out: as for a file, no green verdict

    def newer(source: str, error: SyntaxError) -> str | None:
        tree = _newer_tree(source, relative, error, modules)
        if isinstance(tree, ast.Module):
            return None
        if tree.kind == "newer-syntax":
            gating.add(tree.reason)
        return tree.reason

    joined = join_cells(cells, newer)
    skipped = [
        Skipped(relative, p, "newer-syntax" if p.partition(", ")[2] in gating else "note")
        for p in joined.problems
    ]
    ignores = read_ignores(joined.source, index.known)
    skipped += _unknown(
        relative, ignores, lambda line: "cell {}, line {}".format(*joined.origin[line - 1])
    )
    tree: ast.Module | None = None
    if joined.newer:  # cells only a newer Python reads: it reads them together too
        newer_tree = _newer_tree(
            joined.source, relative, SyntaxError("the cells together"), modules
        )
        if isinstance(newer_tree, Skipped):
            return [], [*skipped, newer_tree], None
        tree = newer_tree
    try:
        found, module_facts = analyse_source(
            joined.source, relative, index, ignores, modules=modules, tree=tree
        )
    except TooDeep:
        return [], [*skipped, Skipped(relative, "nested too deeply to analyse")], None
    except (
        SyntaxError,
        ValueError,
        RecursionError,
    ) as exc:  # cells that parse alone but not together
        return [], [*skipped, Skipped(relative, f"cannot read the cells together: {exc}")], None
    findings = []
    for finding in found:
        cell_index, line = joined.origin[finding.line - 1]
        findings.append(replace(finding, cell=cell_index, line=line))
    return findings, skipped, module_facts


def _unknown(relative: str, ignores: Ignores, where: Callable[[int], str]) -> list[Skipped]:
    """An ignore comment's ids that no knowledge entry has: they silence nothing."""
    return [
        Skipped(
            relative,
            f"{where(line)}: '# auditor: ignore[{change}]': no knowledge entry has this id, it silences nothing",
            "note",
        )
        for line, change in ignores.unknown
    ]
