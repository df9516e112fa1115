"""Fix snapshots: beside each change's `positive.py`, what `auditor fix --keep-old` and
`--adopt-new` write on it (`positive.keep_old.py`, `positive.adopt_new.py`). A snapshot that is
missing, out of date, or kept for a fix that leaves the fixture as it is fails, naming the command
that writes them again. The test id of a change whose fix leaves its fixture alone in a mode says
so ("leaves it alone"): that mode has no snapshot."""

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.fix.snapshots import expected, stale
from auditor.knowledge.folders import MODES, POSITIVE, snapshot
from auditor.knowledge.loader import load_entries

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"
BY_FOLDER = {(KNOWLEDGE / e.source).parent: e for e in load_entries(KNOWLEDGE)}
FIXED = [folder for folder, e in BY_FOLDER.items() if e.fix and (folder / POSITIVE).is_file()]
FLOOR = KNOWLEDGE / "torch" / "1.13" / "floor-divide-rounds-toward-floor"


def _says(folder: Path) -> str:
    alone = [m for m in MODES if not snapshot(folder, m).is_file()]
    return f"{BY_FOLDER[folder].id}" + (f" (leaves it alone: {', '.join(alone)})" if alone else "")


@pytest.mark.parametrize("folder", FIXED, ids=_says)
def test_fix_snapshots_are_what_fix_writes(folder: Path) -> None:
    entry = BY_FOLDER[folder]
    problems = stale(folder, entry)
    assert not problems, f"stale fix snapshots: run `auditor kb snapshot {entry.id}`: " + "; ".join(problems)


def test_a_stale_snapshot_fails_and_kb_snapshot_writes_it_again(tmp_path: Path) -> None:
    copy = tmp_path / "knowledge" / "torch" / "1.13" / FLOOR.name
    shutil.copytree(FLOOR, copy)
    entry = BY_FOLDER[FLOOR]
    kept = snapshot(copy, "keep_old").read_text("utf-8")
    assert "rounding_mode='trunc'" in kept and kept != (copy / POSITIVE).read_text("utf-8")
    snapshot(copy, "keep_old").write_text(kept.replace("'trunc'", "'floor'"), "utf-8")
    snapshot(copy, "adopt_new").unlink()
    assert [p.split(": ")[1] for p in stale(copy, entry)] == ["out of date", "missing"]

    done = CliRunner().invoke(app, ["kb", "snapshot", entry.id, "--knowledge", str(tmp_path / "knowledge")])
    assert done.exit_code == 0, done.output
    assert done.output.split() == [str(snapshot(copy, "keep_old")), str(snapshot(copy, "adopt_new"))]
    assert stale(copy, entry) == []
    assert snapshot(copy, "keep_old").read_text("utf-8") == kept


def test_a_snapshot_of_a_fix_that_leaves_the_fixture_alone_is_not_wanted(tmp_path: Path) -> None:
    folder = next(f for f in FIXED if not snapshot(f, "keep_old").is_file())
    copy = tmp_path / "knowledge" / folder.relative_to(KNOWLEDGE)
    shutil.copytree(folder, copy)
    assert expected(copy, BY_FOLDER[folder])[snapshot(copy, "keep_old")] is None
    snapshot(copy, "keep_old").write_text((copy / POSITIVE).read_text("utf-8"), "utf-8")
    assert [p.split(": ", 1)[1] for p in stale(copy, BY_FOLDER[folder])] == [
        "not wanted: the fix leaves positive.py as it is"
    ]
