import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.knowledge.base import KnowledgeBase

# The suite runs offline: no audit reads the locks' dependencies from PyPI unless a test asks for
# it (tests/dependencies serve a recorded index on 127.0.0.1 and unset this).
os.environ.setdefault("AUDITOR_NO_DEPENDENCIES", "1")
os.environ.setdefault("AUDITOR_DEPENDENCIES", "false")  # the same for `auditor github`

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def examples() -> Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def kept_knowledge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The knowledge base and its generated changes as a run keeps them (`<cache dir>/knowledge`),
    made once a session: a test whose command gets a new cache directory, and is not about the
    kept knowledge, starts from a copy instead of reading the TOML again (seconds a command)."""
    cache = tmp_path_factory.mktemp("kept")
    KnowledgeBase.load(cache_dir=cache, harvested=True)
    return cache / "knowledge"


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once a session (`pip wheel`: an isolated build
    environment with hatchling and the build hook's dependencies) from a copy of it, so that the
    build leaves nothing in the checkout."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".ci-venv", "__pycache__", "build", "dist"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(source)],
                   check=True, capture_output=True)
    (wheel,) = (root / "dist").glob("lockfile_auditor-*.whl")
    return wheel
