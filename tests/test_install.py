"""Install problems show only in a real install: the console script, and a wheel outside the repo."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.venvs import sees_this_environment

ROOT = Path(__file__).resolve().parents[1]


def test_console_script_and_module_entry_point(tmp_path: Path) -> None:
    script = shutil.which("auditor", path=str(Path(sys.executable).parent)) or shutil.which("auditor")
    assert script, "the auditor console script is not installed"
    listed = subprocess.run([script, "kb", "list"], capture_output=True, text=True, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "torch-floor-divide-rounds-toward-floor" in listed.stdout
    as_module = subprocess.run([sys.executable, "-m", "auditor", "--version"], capture_output=True,
                               text=True, cwd=tmp_path)
    assert as_module.returncode == 0 and as_module.stdout.startswith("auditor ")
    bad = subprocess.run([script, "lock", "show", str(tmp_path / "missing.txt")], capture_output=True,
                         text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert "missing.txt" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
@pytest.mark.xdist_group("wheel")  # one build for the tests that read the wheel (`built_wheel`)
def test_wheel_installed_outside_the_repo_finds_every_knowledge_file(tmp_path: Path, built_wheel: Path) -> None:
    wheel = built_wheel
    env_dir = tmp_path / "env"
    venv.create(env_dir, system_site_packages=True)  # no pip of its own: ensurepip costs more than the install
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True)
    # the wheel's dependencies (--no-deps left them out), seen after it: before the install, pip
    # would have taken the running environment's lockfile-auditor for this one
    sees_this_environment(env_dir)
    isolated = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = (
        "import auditor, pathlib; from auditor.knowledge.loader import default_directory, load_entries;"
        "d = default_directory(); print(d); print(len(load_entries()));"
        "print(len(list(d.rglob('*.toml')))); print(len(list(d.rglob('*.py'))) + len(list(d.rglob('*.ipynb'))))"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path, env=isolated)
    assert done.returncode == 0, done.stderr
    where, loaded, files, scripts = done.stdout.split()
    assert scripts == "0", "the wheel ships a change's fixtures, snapshots or evidence"
    assert str(env_dir) in where and "_knowledge" in where
    shipped = list((ROOT / "knowledge").rglob("*.toml"))
    harvest = [p for p in shipped if "harvest" in p.relative_to(ROOT / "knowledge").parts]
    # every entry, horizon.toml, and the harvested candidates and waivers (not entries)
    assert int(loaded) + 1 + len(harvest) == int(files) == len(shipped)
