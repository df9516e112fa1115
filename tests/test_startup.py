"""What every scan pays before it reads a file: the modules it imports. The fix engine's libcst
takes a tenth of a second to import; a scan that suggests no fix must not load it. Nor does a
scan that runs no probe load the probe machinery (a thirtieth of a second)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = """
import sys
from auditor import cli
sys.argv = ["auditor", *sys.argv[1:]]
try:
    cli.main()
except SystemExit:
    pass
print("probes loaded" if "auditor.probe.executor" in sys.modules else "probes not loaded", file=sys.stderr)
print("libcst loaded" if "libcst" in sys.modules else "libcst not loaded", file=sys.stderr)
print("loaded: " + " ".join(m for m in ("yaml", "rich") if m in sys.modules), file=sys.stderr)
print("harvester loaded" if "auditor.harvest" in sys.modules else "harvester not loaded", file=sys.stderr)
"""


@pytest.mark.parametrize("fmt", ["json", "text", "github"])  # SARIF and Markdown carry fixes
def test_a_scan_does_not_load_the_fix_engine(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "train.py").write_text("import torch\n\nprint(torch.arange(-5, 5) // 2)\n", "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, "scan", str(tmp_path), "--from", "1.10", "--to", "2.15", "--format", fmt,
         "--no-cache", "--fail-on", "none"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert "torch-floor-divide" in done.stdout or fmt == "github" and "floor" in done.stdout
    assert done.stderr.strip().splitlines()[-4:-2] == ["probes not loaded", "libcst not loaded"]
    # PyYAML reads conda files only, rich writes the text report only (a fiftieth of a second each)
    assert done.stderr.splitlines()[-2].strip() == ("loaded: rich" if fmt == "text" else "loaded:")


def test_a_scan_with_the_kept_knowledge_does_not_load_the_harvester(tmp_path: Path) -> None:
    """The presence tables' reader needs only their format: the harvester (a thirtieth of a
    second to import) is loaded when the knowledge is read from its files, not when it is kept."""
    (tmp_path / "train.py").write_text("import torch\n\nprint(torch.arange(-5, 5) // 2)\n", "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", RUN, "scan", str(tmp_path), "--from", "1.10", "--to", "2.15", "--format",
               "json", "--cache-dir", str(tmp_path / "cache"), "--fail-on", "none"]
    first = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    kept = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert first.stdout == kept.stdout and "torch-floor-divide" in kept.stdout
    assert first.stderr.strip().splitlines()[-1] == "harvester loaded"  # the knowledge read from its files
    assert kept.stderr.strip().splitlines()[-1] == "harvester not loaded"
