"""`auditor kb new` and `kb snapshot`: a change's folder scaffolded, its fix snapshots written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from auditor.cli.common import (
    Command,
    handles_errors,
    kb_app,
)

KnowledgeDir = Annotated[
    Path | None,
    typer.Option(
        "--knowledge",
        help="The knowledge directory of a checkout (default: this one's).",
        file_okay=False,
    ),
]


@kb_app.command("new", cls=Command)
@handles_errors
def kb_new(
    package: Annotated[str, typer.Argument(help="The package that changes, such as torch.")],
    version: Annotated[
        str, typer.Argument(help="The release that brings the change, such as 2.16.0.")
    ],
    stem: Annotated[
        str, typer.Argument(help="The change's name in its folder; its id is PACKAGE-STEM.")
    ],
    knowledge_dir: KnowledgeDir = None,
) -> None:
    """A new change's folder: an entry to fill in (the loader refuses it until then) and fixtures."""
    from auditor.knowledge.loader import default_directory
    from auditor.knowledge.scaffold import new_change

    typer.echo(new_change(knowledge_dir or default_directory(), package, version, stem))


@kb_app.command("snapshot", cls=Command)
@handles_errors
def kb_snapshot(
    ids: Annotated[
        list[str] | None, typer.Argument(metavar="[ID]...", help="Only these entries.")
    ] = None,
    knowledge_dir: KnowledgeDir = None,
) -> None:
    """Write each change's fix snapshots: what fix --keep-old and --adopt-new make of positive.py."""
    from auditor.fix.snapshots import write_snapshots
    from auditor.knowledge.base import KnowledgeBase
    from auditor.knowledge.loader import default_directory

    root = knowledge_dir or default_directory()
    kb = KnowledgeBase.load(root)
    entries = [kb.get(i) for i in ids] if ids else kb.entries
    for path in write_snapshots(((root / e.source).parent, e) for e in entries):
        typer.echo(path)
