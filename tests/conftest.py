import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.knowledge import KnowledgeBase

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
