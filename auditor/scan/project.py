"""Scanning a whole project: discovery, the result cache, and the files shared out to processes.

Reading and parsing is the floor of what a scan costs, so the work is arranged around it:
results of unchanged files come from the cache (a read and a hash each; none when the cache
never held results of these rules: the processes make the keys), the rest go in chunks
of paths to a pool with one process per core, biggest chunks first so that no core idles at the
end; inside each process `scan_file` skips without parsing every file that names none of the
rules' tokens. Small jobs stay in this process, where a pool would cost more than it saves.
Whatever the route, the findings and skipped files are the same, in the same order.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path

from auditor.knowledge.entry import SpecChange
from auditor.knowledge.presence import NOTHING, Presence
from auditor.models import Finding, Skipped
from auditor.progress import SILENT, ProgressReporter
from auditor.scan import feeds, syntax
from auditor.scan.cache import CacheUnusable, FileResult, Keys, ScanCache, decode
from auditor.scan.config import ScanConfig
from auditor.scan.discover import discover
from auditor.scan.modules import Dependency, ProjectModules
from auditor.scan.rules import Ends, RuleIndex
from auditor.scan.scanner import scan_module

PARALLEL_MIN_BYTES = 1 << 20  # less source than this is scanned faster than a pool starts
CHUNK_BYTES = 256 << 10
CHUNK_FILES = 64
_LOOKUP_BATCH = 256


def _unheard(note: str) -> None:
    pass


@dataclass(frozen=True)
class ScanOptions:
    """How to scan, as opposed to what: none of these changes the findings."""

    cache_dir: Path | None = None  # where per-file results are kept; None: no cache
    workers: int | None = (
        None  # processes; None: one per core when the work is worth it; 1: no pool
    )
    progress: ProgressReporter = SILENT
    note: Callable[[str], None] = _unheard  # told once of each cache problem (the scan goes on)


def scan_tree(
    root: Path,
    changes: Iterable[SpecChange],
    config: ScanConfig,
    options: ScanOptions,
    known: frozenset[str] = frozenset(),
    ends: Ends = (),
    presence: Presence = NOTHING,
) -> tuple[list[Finding], list[Skipped]]:
    changes = tuple(c for c in changes if c.id not in config.ignore)
    syntax.newer_python()  # a wrong AUDITOR_SYNTAX_PYTHON is said before any file is read
    base = root if root.is_dir() else root.parent
    discovered = discover(root, config)
    files, relatives = (
        discovered.files,
        discovered.relatives,
    )  # from `base`: the root, or a file's folder
    results: list[FileResult | None] = [None] * len(files)
    modules = ProjectModules(base, relatives)
    progress = options.progress
    progress.start(len(files), "Scanning")
    cache = None
    try:
        cache = (
            ScanCache.open(options.cache_dir, changes, known, ends, presence.digest)
            if options.cache_dir is not None
            else None
        )
    except CacheUnusable as exc:
        options.note(str(exc))
    try:
        keys: dict[int, tuple[bytes, Stamp]] = {}
        sizes: dict[int, int] = {}
        misses = _from_cache(files, relatives, results, cache, progress, modules, keys, sizes)
        blank = (
            cache.context if cache is not None and cache.blank else None
        )  # the scans make the keys
        work = _Work(changes, known, ends, presence, modules, options.workers, blank)
        with _Pool.of(work) as pool:
            for i, result, dependencies, keyed in _scan(
                files, relatives, misses, sizes, work, pool
            ):
                results[i] = result
                if keyed is not None:
                    keys[i] = keyed
                if cache is not None and i in keys:
                    key, stamp = keys[i]
                    if _stamp(files[i]) == stamp:  # not edited while it was scanned
                        cache.put(key, result, dependencies)
                progress.advance()
            _helpers(files, relatives, results, keys, work, cache)
            fed = _feed(files, relatives, results, keys, work, cache, pool)
            _reexported(files, relatives, results, work, fed)
    finally:
        if cache is not None:
            cache.close()
            for problem in dict.fromkeys(cache.problems):
                options.note(problem)
        progress.finish()

    findings: list[Finding] = []
    skipped: list[Skipped] = list(discovered.skipped)
    if not files and root.is_dir():  # a green scan that read nothing must say so
        skipped.insert(0, Skipped(".", "no .py or .ipynb file to scan in this folder", "note"))
    for done in results:
        assert done is not None
        findings += [f for f in done[0] if config.keeps(f)]
        skipped += done[1]
    findings.sort(key=lambda f: (f.path, f.cell or 0, f.line, f.column, f.change, f.symbol))
    return findings, skipped


Stamp = tuple[int, int]  # modification time (ns) and size


def _feed(
    files: list[Path],
    relatives: list[str],
    results: list[FileResult | None],
    keys: dict[int, tuple[bytes, Stamp]],
    work: _Work,
    cache: ScanCache | None,
    pool: _Pool,
) -> dict[int, feeds.Fed]:
    """Analyse again, with what the project's other modules pass their functions (`feeds`),
    the modules that asked about such parameters; their results replace the first ones. The
    cache keeps each under the file's key and what it was fed. The first pass's processes, if
    it had any, share the work out. Returns what each module was fed."""
    project = {
        relatives[i]: r[2] for i, r in enumerate(results) if r is not None and r[2] is not None
    }
    fed_all = feeds.index(project, work.modules)
    todo: dict[int, feeds.Fed] = {}
    for i, result in enumerate(results):
        if result is not None and result[2] is not None and relatives[i] in fed_all:
            fed = feeds.wanted(fed_all[relatives[i]], result[2])
            if fed:
                todo[i] = fed
    if not todo:
        return todo
    fed_keys = {
        i: cache.fed_key(keys[i][0], feeds.digest(fed))
        for i, fed in todo.items()
        if cache and i in keys
    }
    found = cache.get_many(list(fed_keys.values())) if cache is not None else {}
    again: list[tuple[int, str, str, feeds.Fed]] = []
    for i, fed in todo.items():
        first = results[i]
        assert first is not None
        value = found.get(fed_keys[i]) if i in fed_keys else None
        if value is not None:
            try:
                (findings, skipped, _), dependencies = decode(value, relatives[i])
                if work.modules.still_valid(dependencies):
                    results[i] = findings, skipped, first[2]
                    continue
            except (ValueError, TypeError, RecursionError):
                pass  # damaged: analysed again, and stored again
        again.append((i, str(files[i]), relatives[i], fed))
    if pool.executor is not None and len(again) > 1:
        again.sort(
            key=lambda item: -_size(files[item[0]])
        )  # the biggest first: no process idles at the end
        futures = [pool.executor.submit(_scan_fed, *item) for item in again]
        done = [future.result() for future in futures]
    else:
        index = (
            RuleIndex.build(work.changes, work.known, work.ends, work.presence) if again else None
        )
        done = []
        for i, path, relative, fed in again:
            assert index is not None
            work.modules.take()
            done.append(
                (
                    i,
                    scan_module(Path(path), relative, index, fed, work.modules),
                    work.modules.take(),
                )
            )
    for i, (findings, skipped, _), dependencies in done:
        first = results[i]
        assert first is not None
        second: FileResult = (findings, skipped, first[2])
        results[i] = second
        if cache is not None and i in fed_keys and _stamp(files[i]) == keys[i][1]:
            cache.put(fed_keys[i], second, dependencies)
    return todo


def _reexported(
    files: list[Path],
    relatives: list[str],
    results: list[FileResult | None],
    work: _Work,
    fed: dict[int, feeds.Fed],
) -> None:
    """Analyse again, with the project's own names for matched calls (`feeds.reexports`:
    `mypkg/__init__.py` importing `load as tload` from torch), the files that may call one of
    them: those naming both the name and its module (`from mypkg import tload`, `mypkg.tload`).
    Their results rest on other modules' facts, so they are not kept in the cache; projects
    that re-export torch's functions are few, and so are the files using them."""
    project = {
        relatives[i]: r[2] for i, r in enumerate(results) if r is not None and r[2] is not None
    }
    aliases = feeds.reexports(project, work.modules)
    if not aliases:
        return
    wanted: dict[str, set[str]] = {}  # name -> the modules it is an alias in
    for alias in aliases:
        module, _, name = alias.rpartition(".")
        wanted.setdefault(name, set()).add(module)
    names = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, wanted))) + r")\b")
    index = RuleIndex.build(work.changes, work.known, work.ends, work.presence).with_aliases(
        aliases
    )
    for i, file in enumerate(files):
        first = results[i]
        if first is None or first[1]:
            continue  # skipped: its result says why
        text = _text(file)
        if not any(module in text for name in set(names.findall(text)) for module in wanted[name]):
            continue
        work.modules.take()
        findings, skipped, _ = scan_module(file, relatives[i], index, fed.get(i), work.modules)
        results[i] = findings, skipped, first[2]


def _helpers(
    files: list[Path],
    relatives: list[str],
    results: list[FileResult | None],
    keys: dict[int, tuple[bytes, Stamp]],
    work: _Work,
    cache: ScanCache | None,
) -> None:
    """Analyse the modules that name no matched module (the pre-filter read them only) whose
    functions an analysed module passes a tensor (`feeds.helpers`): `def bucket(t): return t // 2`
    in a utils.py that never imports torch; and those naming a wrapper whose parameter decides
    a change (`values.none_reaches` asked what its callers give it): their calls are wanted.
    Their facts join the project's index; the cache keeps the result under the file's key,
    facts and all. Few modules are such: this process analyses them."""
    project = {
        relatives[i]: r[2] for i, r in enumerate(results) if r is not None and r[2] is not None
    }
    unread = {
        relatives[i] for i, r in enumerate(results) if r is not None and r[2] is None and not r[1]
    }
    wanted = feeds.helpers(project, work.modules, unread) if project and unread else set()
    wrappers = {
        function
        for found in project.values()
        for function, param in found.asked
        if param.endswith("=")
    }
    if wrappers and unread - wanted:
        names = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, wrappers))) + r")\b")
        for i, relative in enumerate(relatives):
            if relative in unread and relative not in wanted:
                text = _text(files[i])
                # a substring search per name turns most files away faster than the pattern
                if any(name in text for name in wrappers) and names.search(text):
                    wanted.add(relative)
    if not wanted:
        return
    index = RuleIndex.build(work.changes, work.known, work.ends, work.presence)
    for i, relative in enumerate(relatives):
        if relative not in wanted:
            continue
        work.modules.take()
        result = scan_module(files[i], relative, index, modules=work.modules, helper=True)
        results[i] = result
        if cache is not None and i in keys and _stamp(files[i]) == keys[i][1]:
            cache.put(keys[i][0], result, work.modules.take())


def _text(file: Path) -> str:
    """A file's text for a search by name ("" when it cannot be read: its scan says why)."""
    try:
        return file.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _read(file: Path) -> tuple[bytes, Stamp]:
    """A file's bytes, and its stamp taken before they were read: one open, one `fstat`."""
    handle = os.open(file, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        stat = os.fstat(handle)
        chunks = [os.read(handle, stat.st_size + 1)]
        while chunks[-1]:  # to the end, should it have grown meanwhile
            chunks.append(os.read(handle, 1 << 20))
    finally:
        os.close(handle)
    return b"".join(chunks), (stat.st_mtime_ns, stat.st_size)


def _stamp(file: Path) -> Stamp | None:
    try:
        stat = file.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _from_cache(
    files: list[Path],
    relatives: list[str],
    results: list[FileResult | None],
    cache: ScanCache | None,
    progress: ProgressReporter,
    modules: ProjectModules,
    keys: dict[int, tuple[bytes, Stamp]],
    sizes: dict[int, int],
) -> Iterator[list[int]]:
    """Fill `results` from the cache, a batch of files at a time, and yield each batch's misses,
    the files left to scan, as soon as it is looked up (their scans start while the next batch
    is read); their keys and sizes go in `keys` and `sizes`. The first batch ends early, at
    PARALLEL_MIN_BYTES: were they all misses, the processes could start. A result resting on
    another module that has changed since (`Dependency`) is scanned again. A cache that never
    held a result of these rules (`ScanCache.blank`) is not asked: every file is left to scan,
    and the scans make the keys from the bytes they read."""
    if cache is None or cache.blank:
        yield list(range(len(files)))
        return
    start = 0
    while start < len(files):
        todo: list[int] = []
        batch: list[int] = []
        end, weight = min(start + _LOOKUP_BATCH, len(files)), 0
        for i in range(start, end):
            if start == 0 and weight >= PARALLEL_MIN_BYTES:
                end = i
                break
            try:
                data, stamp = _read(files[i])
            except OSError:
                todo.append(i)  # scan_file says why it cannot be read
                continue
            keys[i] = (cache.key(data, relatives[i]), stamp)
            sizes[i] = len(data)
            weight += len(data)
            batch.append(i)
        start = end
        found = cache.get_many([keys[i][0] for i in batch])
        hits = 0
        for i in batch:
            value = found.get(keys[i][0])
            try:
                if value is not None:
                    result, dependencies = decode(value, relatives[i])
                    results[i] = result if modules.still_valid(dependencies) else None
            except (
                ValueError,
                TypeError,
                RecursionError,
            ):  # written by something else: scanned again
                cache.problems.append(
                    f"the scan cache in {cache.directory} held damaged results: those files were scanned again"
                )
            if results[i] is None:
                todo.append(i)
            else:
                hits += 1
        if hits:
            progress.advance(hits)
        if todo:
            yield sorted(todo)


@dataclass(frozen=True)
class _Work:
    """What every file is scanned with."""

    changes: tuple[SpecChange, ...]
    known: frozenset[str]
    ends: Ends
    presence: Presence
    modules: ProjectModules
    workers: int | None
    blank: bytes | None = (
        None  # the context of a blank cache (`ScanCache.blank`): each scan makes its file's key
    )


Keyed = tuple[bytes, Stamp]  # a file's key in the cache, and its stamp when it was read
Scanned = tuple[int, FileResult, tuple[Dependency, ...], Keyed | None]
Refed = tuple[int, FileResult, tuple[Dependency, ...]]  # a module analysed again (`_feed`)


def _scan(
    files: list[Path],
    relatives: list[str],
    misses: Iterable[list[int]],
    sizes: dict[int, int],
    work: _Work,
    pool: _Pool,
) -> Iterator[Scanned]:
    """(index, result, the other modules it rests on, its key when this side made it) for each
    file of `misses`, in no particular order. The processes start once the files to scan come to PARALLEL_MIN_BYTES
    (at once when `work.workers` says how many) and take each full chunk as the batches come;
    below that, or on one core, this process scans them all when the last batch is in."""
    cores = work.workers or _cores()
    held: list[int] = []  # files not given out yet
    pending: set[Future[list[Scanned]]] = set()
    executor: ProcessPoolExecutor | None = None
    try:
        for batch in misses:
            for i in batch:
                if i not in sizes:
                    sizes[i] = _size(files[i])
            held += batch
            if (
                executor is None
                and cores >= 2
                and len(held) >= 2
                and (work.workers is not None or sum(sizes[i] for i in held) >= PARALLEL_MIN_BYTES)
            ):
                executor = pool.start(min(cores, len(held)))
            if executor is not None:
                *full, last = _chunks([(i, str(files[i]), relatives[i], sizes[i]) for i in held])
                pending |= {executor.submit(_scan_chunk, _paths(chunk)) for chunk in full}
                held = [item[0] for item in last]
                done = {future for future in pending if future.done()}
                pending -= done
                for future in done:
                    yield from future.result()
        if executor is None:
            index = (
                RuleIndex.build(work.changes, work.known, work.ends, work.presence)
                if held
                else None
            )
            keys = Keys(work.blank) if work.blank is not None else None
            for i in held:
                assert index is not None
                yield (i, *_scan_one(files[i], relatives[i], index, work.modules, keys))
            return
        if held:
            items = [(i, str(files[i]), relatives[i], sizes[i]) for i in held]
            pending |= {
                executor.submit(_scan_chunk, _paths(chunk))
                for chunk in _chunks(items, biggest_first=True)
            }
        for future in as_completed(
            pending
        ):  # one waiter for them all: `wait` in a loop installs one per round
            pending.discard(future)
            yield from future.result()
    finally:
        for future in pending:
            future.cancel()


def _paths(chunk: list[tuple[int, str, str, int]]) -> list[tuple[int, str, str]]:
    return [(i, path, relative) for i, path, relative, _ in chunk]


class _Pool:
    """The processes of a scan, started when the first pass shares its files out, kept for the
    second analyses (`_feed`), stopped when the scan ends: at once when it ends early (a signal,
    an error), their chunks being of no use then. Each worker also ends by itself should this
    process go without a word (SIGKILL): `_end_with_scanner`."""

    def __init__(self, work: _Work):
        self.work = work
        self.executor: ProcessPoolExecutor | None = None

    def start(self, workers: int) -> ProcessPoolExecutor:
        if self.executor is None:
            modules = self.work.modules
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                initializer=_start_worker,
                initargs=(
                    self.work.changes,
                    self.work.known,
                    self.work.ends,
                    self.work.presence,
                    str(modules.base),
                    modules.relatives,
                    self.work.blank,
                ),
            )
        return self.executor

    @classmethod
    @contextlib.contextmanager
    def of(cls, work: _Work) -> Iterator[_Pool]:
        pool = cls(work)
        hook = threading.excepthook
        try:
            yield pool
        except BaseException:
            if pool.executor is not None:  # no public way before Python 3.14's terminate_workers()
                threading.excepthook = _quiet_when_broken(hook)
                for process in list((pool.executor._processes or {}).values()):
                    process.terminate()
            raise
        finally:
            if pool.executor is not None:
                pool.executor.shutdown(wait=True, cancel_futures=True)  # joins the pool's thread
            threading.excepthook = hook


def _quiet_when_broken(
    hook: Callable[[threading.ExceptHookArgs], object],
) -> Callable[[threading.ExceptHookArgs], object]:
    """The thread hook while a stopped scan ends its workers: the executor's own thread, finding
    them gone, sets the pool's error on futures that `shutdown(cancel_futures=True)` has
    cancelled meanwhile, and raises InvalidStateError (Python 3.11's concurrent.futures); that
    is the stop, not a crash, and no traceback is printed for it."""

    def quiet(args: threading.ExceptHookArgs) -> object:
        if isinstance(args.exc_value, InvalidStateError):
            return None
        return hook(args)

    return quiet


def _chunks(
    items: list[tuple[int, str, str, int]], biggest_first: bool = False
) -> list[list[tuple[int, str, str, int]]]:
    """Neighbouring files grouped up to CHUNK_BYTES or CHUNK_FILES, in order (the last one may
    not be full), or the biggest groups first."""
    chunks: list[list[tuple[int, str, str, int]]] = []
    current: list[tuple[int, str, str, int]] = []
    weight = 0
    for item in items:
        if current and (weight + item[3] > CHUNK_BYTES or len(current) >= CHUNK_FILES):
            chunks.append(current)
            current, weight = [], 0
        current.append(item)
        weight += item[3]
    if current:
        chunks.append(current)
    if biggest_first:  # so that no process idles at the end
        chunks.sort(key=lambda chunk: -sum(item[3] for item in chunk))
    return chunks


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:
        return 0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


# --- in the worker processes -------------------------------------------------------------------

_index: RuleIndex | None = None
_modules: ProjectModules | None = None
_keys: Keys | None = None


def _start_worker(
    changes: tuple[SpecChange, ...],
    known: frozenset[str],
    ends: Ends,
    presence: Presence,
    base: str,
    relatives: tuple[str, ...],
    blank: bytes | None,
) -> None:
    global _index, _modules, _keys
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler: ended is ended
    _end_with_scanner()
    _index = RuleIndex.build(changes, known, ends, presence)
    _modules = ProjectModules(Path(base), relatives)
    _keys = Keys(blank) if blank is not None else None
    # What the worker holds from here on (the scanning process's objects, the rules) lives as
    # long as it does: the cycle collector's full passes need not walk it again after each file.
    gc.freeze()


WATCH_SECONDS = 0.5  # how often a worker checks that the scanning process is still there
_PR_SET_PDEATHSIG = 1


def _end_with_scanner() -> None:
    """End this worker when the scanning process ends, however it ends: a worker left behind waits
    on its queue forever. On Linux the kernel kills it when its parent goes (PR_SET_PDEATHSIG),
    and everywhere a thread watches for the end (`_gone`)."""
    scanner = multiprocessing.parent_process()
    if scanner is None:  # not started by multiprocessing
        return
    parent = os.getppid()
    if sys.platform == "linux":
        import ctypes  # here: the scanning process has no use for it

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    forked = multiprocessing.get_start_method() == "fork"
    if (forked and parent != scanner.pid) or _gone(
        parent, scanner
    ):  # it ended before this worker started
        os._exit(0)
    threading.Thread(
        target=_watch, args=(parent, scanner), name="auditor-scanner-watch", daemon=True
    ).start()


def _gone(parent: int, scanner: BaseProcess | None) -> bool:
    """Whether the scanning process has ended: this worker's parent changed (start method "fork":
    the scanner is the parent; an orphan is adopted by init or a subreaper), or the pipe that only
    the scanner holds open is closed ("forkserver", "spawn": the parent is a server, or Windows,
    where a process keeps its parent's id after the parent ends)."""
    return os.getppid() != parent or (scanner is not None and not scanner.is_alive())


def _watch(parent: int, scanner: BaseProcess | None) -> None:
    while not _gone(parent, scanner):
        time.sleep(WATCH_SECONDS)
    os._exit(0)


def _scan_one(
    file: Path, relative: str, index: RuleIndex, modules: ProjectModules, keys: Keys | None
) -> tuple[FileResult, tuple[Dependency, ...], Keyed | None]:
    """One file's result, the other modules it rests on, and with `keys` its key (None when
    it cannot be read: its result says why)."""
    data, keyed = None, None
    if keys is not None:
        try:
            data, stamp = _read(file)
            keyed = keys.key(data, relative), stamp
        except OSError:
            pass
    modules.take()
    result = scan_module(file, relative, index, modules=modules, data=data)
    return result, modules.take(), keyed


def _scan_fed(i: int, path: str, relative: str, fed: feeds.Fed) -> Refed:
    """One module analysed again with what it is fed (`_feed`)."""
    assert _index is not None and _modules is not None
    _modules.take()
    result = scan_module(Path(path), relative, _index, fed, _modules)
    return i, result, _modules.take()


def _scan_chunk(chunk: list[tuple[int, str, str]]) -> list[Scanned]:
    assert _index is not None and _modules is not None
    return [
        (i, *_scan_one(Path(path), relative, _index, _modules, _keys))
        for i, path, relative in chunk
    ]


def scan_project(
    root: Path,
    changes: Iterable[SpecChange],
    config: ScanConfig | None = None,
    options: ScanOptions | None = None,
    known: Iterable[str] = (),
    ends: Ends = (),
    presence: Presence = NOTHING,
) -> tuple[list[Finding], list[Skipped]]:
    """`config` (exclusions, ignored changes, minimum confidence) defaults to no settings at all;
    `options` (cache, processes, progress) to no cache, one process per core, silence; `known`,
    every id of the knowledge base, lets ignore comments naming no entry be reported; `ends`,
    the moving packages' versions on each side (`rules.transition_ends`), lets code behind a
    version guard that holds the same way on both sides be read as dead (none: all code runs);
    `presence`, what each release of a package has, lets `hasattr(module, "name")` be read as
    such a guard."""
    return scan_tree(
        root,
        changes,
        config or ScanConfig(),
        options or ScanOptions(),
        frozenset(known),
        ends,
        presence,
    )
