"""Probe tests run real interpreters and real environments: numpy 1.26.0 and 2.0.0 from the local
wheels for the cross-version path, the installed torch 2.13.0+cpu for torch probes."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from auditor.fix.probes import rewrites
from auditor.knowledge.base import KnowledgeBase
from auditor.probe import ProbeSettings, Sources
from auditor.probe.interpreters import discover

DOCS = """
[docs]
what = "A behaviour written for the probe executor's tests, with enough words to pass the schema."
why = "The tests need entries whose probes confirm, fail to reproduce, hang or crash on purpose."
before = "numpy.float32(3) + 3.0"
keep_old = "numpy.float64(numpy.float32(3)) + 3.0"
adopt_new = "numpy.float32(3) + numpy.float32(3.0)"
"""


def entry(directory: Path, name: str, probe: str, **fields: str) -> None:
    """One knowledge file of package numpy, introduced in 2.0.0 unless `fields` says otherwise."""
    values = {"id": f"numpy-{name}", "package": "numpy", "introduced": "2.0.0", "kind": "behaviour",
              "severity": "medium", "title": f"Test entry {name} for the probe executor", **fields}
    head = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in values.items())
    text = (
        f"{head}\nsilent = true\nsymbols = [\"numpy.float32\"]\n"
        f"references = [\"https://numpy.org/neps/nep-0050-scalar-promotion.html\"]\n\n"
        f"[[match]]\ncall = \"numpy.float32\"\n{DOCS}\n[probe]\n{textwrap.dedent(probe).strip()}\n"
    )
    (directory / f"{name}.toml").write_text(text, "utf-8")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist with `--dist loadgroup` this folder's tests share one process, so that
    the environments of its session fixtures are built once, not once in each process."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("probe-environments"))


@pytest.fixture(scope="session")
def scratch() -> Iterator[Path]:
    """A directory for the session that pytest's rotation of old temporary directories (which other
    pytest processes on the machine trigger) cannot remove while environments are in use."""
    root = Path(tempfile.mkdtemp(prefix="auditor-probe-tests-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def numpy_kb(scratch: Path) -> KnowledgeBase:
    """A small numpy pack written here, so these tests do not depend on the shipped one."""
    root = scratch / "knowledge"
    root.mkdir()
    directory = root / "numpy"
    directory.mkdir()
    entry(directory, "scalar-promotion", '''
        code = """
        import numpy as np
        print((np.float32(3) + 3.0).dtype)
        """
        before = "float64"
        after = "float32"
    ''')
    entry(directory, "float-alias-removed", '''
        code = """
        import numpy as np
        try:
            np.float_
            print("present")
        except AttributeError as exc:
            print("AttributeError")
        """
        before = "present"
        after = "AttributeError"
    ''', kind="removed")
    entry(directory, "wrong-claim", '''
        code = """
        import numpy as np
        print(np.array([1, 2]).sum())
        """
        before = "3"
        after = "4"
    ''')
    entry(directory, "needs-gpu", '''
        code = "print(1)"
        before = "1"
        after = "2"
        skip = "needs a GPU"
    ''')
    entry(directory, "old-pythons-only", '''
        code = "print(1)"
        before = "1"
        after = "2"
    ''', python="<3.7")
    entry(directory, "hangs", '''
        code = """
        import signal, time
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
        time.sleep(600)
        """
        before = "never"
        after = "never"
    ''')
    entry(directory, "segfaults", '''
        code = """
        import ctypes
        ctypes.string_at(0)
        """
        before = "never"
        after = "never"
    ''')
    entry(directory, "aborts", '''
        code = """
        import os
        os.abort()
        """
        before = "never"
        after = "never"
    ''')
    entry(directory, "not-crossed", '''
        code = "print(1)"
        before = "1"
        after = "1"
    ''', introduced="2.1.0")
    return KnowledgeBase.load(root)


@pytest.fixture(scope="session")
def local_sources() -> Sources:
    """pip's configuration on this machine (find-links and file:// indexes) with its local indexes
    in place of PyPI: no network, and no PyPI metadata that uv's shared cache may hold."""
    pip = Sources(use_pip_config=True, torch_index=None).resolved()
    local = [url for url in (pip.index_url, *pip.extra_index_urls) if url and url.startswith("file:")]
    if not local:
        return dataclasses.replace(pip, offline=True)
    return dataclasses.replace(pip, index_url=local[0], extra_index_urls=tuple(local[1:]))


@pytest.fixture(scope="session")
def probe_cache(scratch: Path) -> Path:
    """One cache for the session: environments are built once and reused by later tests."""
    return scratch / "cache"


@pytest.fixture(scope="session")
def settings(probe_cache: Path, local_sources: Sources) -> ProbeSettings:
    current = discover()[0]
    return ProbeSettings(cache_dir=probe_cache, sources=local_sources, pythons=(current,),
                         timeout=300, probe_timeout=6, rewrites=rewrites)
