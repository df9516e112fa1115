"""`auditor github`: what the Action runs on a pull request (or push).

Changed lockfiles between base and head -> one audit -> job summary, outputs, one sticky
comment, optional label and SARIF. API failures become warnings: the summary is still
written and the exit code still follows the findings.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from auditor import pipeline
from auditor.errors import UsageError
from auditor.fix.spec import FixMode
from auditor.github.api import GitHubAPIError, GitHubClient
from auditor.github.bump import Bump, BumpInfo, parse_bump
from auditor.github.comment import MARKER, CommentResult, add_labels, upsert_comment
from auditor.github.event import ActionsEnv, append_summary, pull_request, push_range, write_outputs
from auditor.github.fixcommit import FixCommit, commit_fix
from auditor.gitrange import check_rev, root
from auditor.knowledge.base import KnowledgeBase
from auditor.models import AuditResult, Gate, Transition
from auditor.report import markdown, sarif
from auditor.report.serialize import transition as transition_data
from auditor.report.summary import tally
from auditor.requests import AuditRequest, EnvironmentChoice, Fixes, GitRange, Probing
from auditor.scan.project import ScanOptions

if TYPE_CHECKING:
    from auditor.dependencies.stage import DependencySettings

CommentMode = Literal["always", "on-findings", "never"]
SUMMARY_LIMIT = 1_000_000  # $GITHUB_STEP_SUMMARY takes 1 MiB per step


def comment_mode(text: str) -> CommentMode:
    value = text.strip().lower()
    if value in ("always", "true", "yes", "on", "1", ""):
        return "always"
    if value in ("never", "false", "no", "off", "0"):
        return "never"
    if value in ("on-findings", "on-failure", "findings"):
        return "on-findings"
    raise UsageError(f"--comment: expected always, on-findings or never, got {text!r}")


def split_patterns(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(p.strip() for p in text.replace(",", "\n").splitlines() if p.strip())


@dataclass(frozen=True)
class ActionOptions:
    project: Path = Path(".")
    patterns: tuple[str, ...] = ()
    comment: CommentMode = "always"
    label: str | None = None
    python: str | None = None
    base: str | None = None
    head: str | None = None
    sarif: Path | None = None
    metadata: tuple[Bump, ...] = ()  # from dependabot/fetch-metadata, when given
    probe: Probing | None = (
        None  # the CLI's --probe, tolerant: a probe that cannot run is a warning
    )
    confidence: str = (
        "medium"  # findings below it are listed apart and do not count (--fail-on-confidence)
    )
    gate: Gate = field(
        default_factory=Gate
    )  # what counts for the exit code (the CLI's --fail-on options)
    fix: FixMode | None = None  # commit this rewrite to a bot's bump branch (fixcommit.py)
    dependencies: DependencySettings | None = (
        None  # how the locked dependencies are read (None: not read)
    )


@dataclass(frozen=True)
class ActionRun:
    result: AuditResult
    markdown: str
    lockfiles: tuple[str, ...]
    outputs: dict[str, str]
    prefix: str = ""
    comment: CommentResult | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    fix_commit: FixCommit | None = None


def _bump_transitions(
    bumps: Sequence[Bump], kb: KnowledgeBase
) -> list[tuple[Transition, str | None]]:
    """The bumps the PR names, for packages no changed lockfile shows (manifest-only changes),
    each with a note on how a requirement update, which names ranges and no versions, was read."""
    known = set(kb.packages())
    found: list[tuple[Transition, str | None]] = []
    for bump in bumps:
        name = pipeline.package_name(bump.package)
        note = None
        if name not in known:
            continue
        versions = bump.versions()
        ranges = bump.ranges() if versions is None else None
        if ranges is not None:
            versions = _newest_allowed(ranges, name, kb)
            if versions is not None:
                note = (
                    f"{name}: the requirement moves from {bump.old} to {bump.new}, read as "
                    f"{versions[0]} -> {versions[1]}: the newest version each range allows among "
                    "those where a known change begins or ends"
                )
        if versions is not None and versions[0] != versions[1]:
            found.append((Transition(name, versions[0], versions[1]), note))
    return found


def _newest_allowed(
    ranges: tuple[SpecifierSet, SpecifierSet], package: str, kb: KnowledgeBase
) -> tuple[Version, Version] | None:
    """A fresh install takes the newest release a range allows. Which release that is does not
    matter here, only where it lies among the versions where the package's known changes begin
    or end, so the newest of those (and of the versions the ranges name) stands for it."""
    entries = kb.for_package(package)
    candidates = {e.introduced for e in entries} | {e.until for e in entries if e.until is not None}
    for spec in ranges:
        for clause in spec:
            try:
                candidates.add(Version(clause.version))
            except InvalidVersion:  # 1.12.*
                continue
    old, new = (max((v for v in candidates if spec.contains(v)), default=None) for spec in ranges)
    return (old, new) if old is not None and new is not None else None


def _relative(path: Path, start: Path) -> str:
    try:
        rel = path.resolve().relative_to(start.resolve()).as_posix()
    except ValueError:
        return ""
    return "" if rel == "." else rel + "/"


def fix_mode(text: str) -> FixMode | None:
    value = text.strip().lower()
    if value in ("", "none", "false", "no", "off", "never"):
        return None
    if value in ("keep-old", "adopt-new"):
        return "keep-old" if value == "keep-old" else "adopt-new"
    raise UsageError(f"--fix: expected keep-old, adopt-new or nothing, got {text!r}")


def _outputs(
    result: AuditResult,
    comment: CommentResult | None,
    lockfiles: Sequence[str],
    confidence: str = "medium",
    fix_commit: FixCommit | None = None,
) -> dict[str, str]:
    return {
        "fix-commit": (fix_commit.sha or "") if fix_commit else "",
        "findings": str(tally(result).call_sites),
        "changes": str(len(result.changes)),
        "severity": result.worst_severity(confidence),
        "transitions": json.dumps([transition_data(t) for t in result.transitions], sort_keys=True),
        "lockfiles": json.dumps(list(lockfiles)),
        "comment-url": (comment.url or "") if comment else "",
    }


def _notes(info: BumpInfo | None) -> tuple[str, ...]:
    """What the PR says it bumps; which lockfiles were compared is among the result's notes."""
    described = info.describe() if info is not None else None
    return (described,) if described else ()


def summarise_failure(env: ActionsEnv, message: str) -> None:
    """Say in the job summary why there is no report (best effort: the log says it too)."""
    if env.step_summary is None:
        return
    text = f"{markdown.HEADING}\n\n⛔ **auditor could not run.**\n\n```\n{message}\n```\n"
    try:
        append_summary(env.step_summary, text)
    except OSError:
        pass


def run(env: ActionsEnv, options: ActionOptions, kb: KnowledgeBase) -> ActionRun:
    warnings: list[str] = []
    event = env.event()
    pr = pull_request(event)
    workspace = env.workspace or Path.cwd()
    repo = root(workspace)
    project = options.project if options.project.is_absolute() else workspace / options.project
    if not project.exists():
        raise UsageError(f"{options.project}: no such project folder")

    base, head = options.base, options.head
    if base is None:
        if pr is not None and pr.base_sha:
            base, head = pr.base_sha, head or pr.head_sha or None
        elif (pushed := push_range(event)) is not None:
            base, head = pushed[0], head or pushed[1]
        else:
            raise UsageError("no base commit: run on a pull_request or push event, or pass --base")
    base, head = check_rev(base, "--base"), check_rev(head, "--head") if head else None

    info = parse_bump(pr.title, pr.body, pr.author) if pr is not None else None
    bumps = tuple(options.metadata) + (info.bumps if info else ())

    # the rewrites are made before a fix commit changes the files
    mode: FixMode = options.fix or "keep-old"
    fixes = Fixes(
        project,
        mode,
        rewrite=options.sarif is not None or options.fix is not None,
        suggest=True,
        shown=options.project.as_posix(),
    )
    done = pipeline.run(
        AuditRequest(
            GitRange(
                repo, base, head, options.patterns, fallback=tuple(_bump_transitions(bumps, kb))
            ),
            project,
            EnvironmentChoice(options.python),
            None,
            ScanOptions(),
            options.probe,
            options.gate,
            options.dependencies,
            fixes,
        ),
        kb,
    )
    result, lockfiles, suggested = done.result, done.lockfiles, done.suggested
    warnings.extend(done.warnings)

    prefix = _relative(project, repo)
    links = (
        markdown.Links(env.repository, head or env.sha or "HEAD", env.server_url, prefix)
        if env.repository and (head or env.sha)
        else None
    )
    notes = _notes(info)
    client = GitHubClient(env.api_url, env.token) if env.token and env.repository else None
    committed: FixCommit | None = None
    if options.fix is not None and pr is not None and result.findings:
        assert done.fixes is not None  # asked for with options.fix, made when there are findings
        committed = commit_fix(repo, project, pr, result, done.fixes, client, env.repository)
        if committed.sha is not None:
            said = (
                f"auditor pushed {committed.sha[:12]} to {pr.head_ref}: the {options.fix} rewrite of "
                f"{committed.rewritten} call site(s); the report below is of the code before it"
            )
            notes += (said,)
        elif committed.reason is not None:
            warnings.append(committed.reason)
    comment_text = markdown.render(
        result, links, notes, markdown.GITHUB_COMMENT_LIMIT - len(MARKER) - 1, suggested
    )
    summary_text = markdown.render(result, links, notes, SUMMARY_LIMIT, suggested)

    if env.step_summary is not None:
        try:
            append_summary(env.step_summary, summary_text)
        except OSError as exc:
            warnings.append(f"could not write the job summary: {exc.strerror or exc}")

    comment: CommentResult | None = None
    if pr is not None and options.comment != "never":
        if not env.token or not env.repository:
            warnings.append("no GITHUB_TOKEN or GITHUB_REPOSITORY: the PR comment was not written")
        else:
            assert client is not None
            counted = result.gating()  # what the exit code counts
            create = options.comment == "always" or bool(counted or result.environment)
            try:
                comment = upsert_comment(client, env.repository, pr.number, comment_text, create)
            except GitHubAPIError as exc:
                warnings.append(f"could not write the PR comment: {exc}")
            if options.label and counted:
                try:
                    add_labels(client, env.repository, pr.number, [options.label])
                except GitHubAPIError as exc:
                    warnings.append(f"could not label the PR: {exc}")

    if options.sarif is not None:
        try:
            options.sarif.write_text(sarif.render(result, prefix, done.fixes), "utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write: {exc.strerror or exc}", options.sarif) from exc

    outputs = _outputs(result, comment, lockfiles, options.confidence, committed)
    if env.output is not None:
        try:
            write_outputs(env.output, outputs)
        except OSError as exc:
            warnings.append(f"could not write the step outputs: {exc.strerror or exc}")

    if env.token:  # defence in depth: nothing we print may carry the token
        warnings = [w.replace(env.token, "***") for w in warnings]
    return ActionRun(
        result, summary_text, lockfiles, outputs, prefix, comment, tuple(warnings), committed
    )
