"""compare/scan: locks -> transitions -> crossed knowledge -> call sites -> AuditResult."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from packaging.utils import canonicalize_name

from auditor.errors import UsageError
from auditor.knowledge import KnowledgeBase
from auditor.lockfiles import diff_locks, read_lock
from auditor.lockfiles.interface import parse_version
from auditor.models import AuditResult, EnvironmentFinding, Transition
from auditor.scan import scan_project

# conda names the PyPI package `torch` `pytorch`
ALIASES = {"pytorch": "torch"}


def package_name(name: str) -> str:
    canonical = canonicalize_name(name)
    return ALIASES.get(canonical, canonical)


def audit(
    transitions: Iterable[Transition],
    project: Path | None,
    kb: KnowledgeBase,
    python: str | None = None,
    environment: Iterable[EnvironmentFinding] = (),
) -> AuditResult:
    transitions = tuple(transitions)
    changes = kb.crossed(transitions, python)
    findings, skipped = scan_project(project, changes) if project is not None and changes else ([], [])
    return AuditResult(
        transitions=transitions,
        changes=changes,
        findings=tuple(findings),
        environment=tuple(environment),
        skipped=tuple(skipped),
    )


def compare(
    old: Path,
    new: Path,
    project: Path | None,
    kb: KnowledgeBase,
    old_format: str | None = None,
    new_format: str | None = None,
    python: str | None = None,
) -> AuditResult:
    diff = diff_locks(read_lock(old, old_format), read_lock(new, new_format))
    known = set(kb.packages())
    transitions = [t for t in diff.packages if t.package in known]
    return audit(transitions, project, kb, python, diff.environment)


def scan(
    project: Path,
    from_version: str,
    to_version: str,
    kb: KnowledgeBase,
    package: str = "torch",
    python: str | None = None,
) -> AuditResult:
    package = package_name(package)
    if package not in kb.packages():
        raise UsageError(f"the knowledge base knows no package {package!r} (it knows {', '.join(kb.packages())})")
    if not project.exists():
        raise UsageError(f"{project}: no such file or directory")
    transition = Transition(
        package, parse_version(from_version, "--from"), parse_version(to_version, "--to")
    )
    return audit([transition], project, kb, python)


def scan_changes(kb: KnowledgeBase, package: str, from_version: str, to_version: str) -> tuple:
    """The entries of `package` that the transition from_version -> to_version crosses."""
    transition = Transition(
        package_name(package), parse_version(from_version, "--from"), parse_version(to_version, "--to")
    )
    return kb.crossed([transition])
